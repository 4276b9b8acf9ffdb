"""Runs one test of the jmespath test suite outside pytest, so that its failure is an
uncaught exception: tests/test_custom_functions.py::TestCustomFunctions::test_null_to_nonetype."""

from tests.test_custom_functions import TestCustomFunctions

test = TestCustomFunctions("test_null_to_nonetype")
test.setUp()
test.test_null_to_nonetype()
