"""Runs one test of the mistune test suite outside pytest, so that its failure is an
uncaught exception: tests/test_commonmark.py::TestCommonMark::test_setext_headings_080."""

from tests.test_commonmark import TestCommonMark

test = TestCommonMark("test_setext_headings_080")
test.setUp()
test.test_setext_headings_080()
