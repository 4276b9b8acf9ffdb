"""Runs one test of the boltons test suite outside pytest, so that its failure is an
uncaught exception: tests/test_iterutils.py::test_chunk_ranges."""

from tests.test_iterutils import test_chunk_ranges

test_chunk_ranges()
