"""Runs one test of the boltons test suite outside pytest, so that its failure is an
uncaught exception: tests/test_queueutils.py::test_heap_queue."""

from tests.test_queueutils import test_heap_queue

test_heap_queue()
