"""Runs one test of the boltons test suite outside pytest, so that its failure is an
uncaught exception: tests/test_cacheutils.py::test_lri."""

from tests.test_cacheutils import test_lri

test_lri()
