"""Runs one test of the jsonpointer test suite outside pytest, so that its failure is an
uncaught exception: tests.py::SpecificationTests::test_escaped_tilde_is_not_decoded_twice."""

from tests import SpecificationTests

test = SpecificationTests("test_escaped_tilde_is_not_decoded_twice")
test.setUp()
test.test_escaped_tilde_is_not_decoded_twice()
