"""Runs one test of the mistune test suite outside pytest, so that its failure is an
uncaught exception: tests/test_commonmark.py::TestCommonMark::test_links_482."""

from tests.test_commonmark import TestCommonMark

test = TestCommonMark("test_links_482")
test.setUp()
test.test_links_482()
