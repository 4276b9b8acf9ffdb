"""Runs one test of the natsort test suite outside pytest, so that its failure is an
uncaught exception: tests/test_natsorted.py::test_natsorted_can_sort_as_signed_ints."""

from tests.test_natsorted import test_natsorted_can_sort_as_signed_ints

# the float_list fixture
float_list = ["a50", "a51.", "a50.31", "a-50", "a50.4", "a5.034e1", "a50.300"]
test_natsorted_can_sort_as_signed_ints(float_list)
