"""Runs one test of the mistune test suite outside pytest, so that its failure is an
uncaught exception: tests/test_commonmark.py::TestCommonMark::test_tabs_002."""

from tests.test_commonmark import TestCommonMark

test = TestCommonMark("test_tabs_002")
test.setUp()
test.test_tabs_002()
