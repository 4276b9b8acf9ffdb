"""Runs one test of the jsonpointer test suite outside pytest, so that its failure is an
uncaught exception: tests.py::SpecificationTests::test_round_trip."""

from tests import SpecificationTests

test = SpecificationTests("test_round_trip")
test.setUp()
test.test_round_trip()
