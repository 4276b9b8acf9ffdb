"""Runs one test of the boltons test suite outside pytest, so that its failure is an
uncaught exception: tests/test_strutils.py::test_bytes2human."""

from tests.test_strutils import test_bytes2human

test_bytes2human()
