"""Runs one test of the mistune test suite outside pytest, so that its failure is an
uncaught exception: tests/test_commonmark.py::TestCommonMark::test_fenced_code_blocks_119."""

from tests.test_commonmark import TestCommonMark

test = TestCommonMark("test_fenced_code_blocks_119")
test.setUp()
test.test_fenced_code_blocks_119()
