"""Runs one test of the jsonpointer test suite outside pytest, so that its failure is an
uncaught exception: tests.py::SetTests::test_set_create_list."""

from tests import SetTests

test = SetTests("test_set_create_list")
test.setUp()
test.test_set_create_list()
