"""Runs one test of the jsonpointer test suite outside pytest, so that its failure is an
uncaught exception: tests.py::SetTests::test_set."""

from tests import SetTests

test = SetTests("test_set")
test.setUp()
test.test_set()
