"""Runs one test of the natsort test suite outside pytest, so that its failure is an
uncaught exception: tests/test_natsorted.py::test_natsorted_supports_case_handling."""

from tests.test_natsorted import test_natsorted_supports_case_handling
from natsort import ns

# the fruit_list fixture, and the IGNORECASE parametrize case
fruit_list = ["Apple", "corn", "Corn", "Banana", "apple", "banana"]
expected = ["Apple", "apple", "Banana", "banana", "corn", "Corn"]
test_natsorted_supports_case_handling(ns.IGNORECASE, expected, fruit_list)
