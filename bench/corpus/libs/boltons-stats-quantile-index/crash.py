"""Runs one test of the boltons test suite outside pytest, so that its failure is an
uncaught exception: tests/test_statsutils.py::test_stats_basic."""

from tests.test_statsutils import test_stats_basic

test_stats_basic()
