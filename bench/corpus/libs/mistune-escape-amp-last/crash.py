"""Runs one test of the mistune test suite outside pytest, so that its failure is an
uncaught exception: tests/test_commonmark.py::TestCommonMark::test_code_spans_343."""

from tests.test_commonmark import TestCommonMark

test = TestCommonMark("test_code_spans_343")
test.setUp()
test.test_code_spans_343()
