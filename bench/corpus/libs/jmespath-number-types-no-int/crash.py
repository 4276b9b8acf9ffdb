"""Runs one test of the jmespath test suite outside pytest, so that its failure is an
uncaught exception: tests/test_search.py::TestSearchOptions::test_can_provide_custom_functions."""

from tests.test_search import TestSearchOptions

test = TestSearchOptions("test_can_provide_custom_functions")
test.setUp()
test.test_can_provide_custom_functions()
