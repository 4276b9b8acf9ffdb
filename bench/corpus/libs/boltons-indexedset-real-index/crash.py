"""Runs one test of the boltons test suite outside pytest, so that its failure is an
uncaught exception: tests/test_setutils.py::test_indexed_set_mutate."""

from tests.test_setutils import test_indexed_set_mutate

test_indexed_set_mutate()
