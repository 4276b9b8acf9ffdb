"""Runs one test of the jsonpointer test suite outside pytest, so that its failure is an
uncaught exception: tests.py::SpecificationTests::test_example."""

from tests import SpecificationTests

test = SpecificationTests("test_example")
test.setUp()
test.test_example()
