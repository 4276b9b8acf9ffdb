"""Runs one test of the natsort test suite outside pytest, so that its failure is an
uncaught exception: tests/test_natsorted.py::test_natsorted_consistent_ordering_with_nan_and_friends."""

from tests.test_natsorted import test_natsorted_consistent_ordering_with_nan_and_friends
from natsort import ns

# the first parametrize case
expected = [float("nan"), None, float("-inf"), 5, "25", 1e40, float("inf")]
test_natsorted_consistent_ordering_with_nan_and_friends(ns.DEFAULT, expected)
