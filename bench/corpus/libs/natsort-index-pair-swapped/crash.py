"""Runs one test of the natsort test suite outside pytest, so that its failure is an
uncaught exception: tests/test_natsorted_convenience.py::test_index_natsorted_applies_key_function_before_sorting."""

from tests.test_natsorted_convenience import test_index_natsorted_applies_key_function_before_sorting

test_index_natsorted_applies_key_function_before_sorting()
