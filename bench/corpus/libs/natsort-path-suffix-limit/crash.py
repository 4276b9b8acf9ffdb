"""Runs one test of the natsort test suite outside pytest, so that its failure is an
uncaught exception: tests/test_natsorted.py::test_natsorted_handles_filesystem_paths."""

from tests.test_natsorted import test_natsorted_handles_filesystem_paths

test_natsorted_handles_filesystem_paths()
