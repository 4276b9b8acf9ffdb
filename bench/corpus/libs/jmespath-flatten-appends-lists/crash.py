"""Runs one test of the jmespath test suite outside pytest, so that its failure is an
uncaught exception: tests/test_parser.py::TestMergedLists::test_merge_with_indices."""

from tests.test_parser import TestMergedLists

test = TestMergedLists("test_merge_with_indices")
test.setUp()
test.test_merge_with_indices()
