"""Runs one test of the jsonpatch test suite outside pytest, so that its failure is an
uncaught exception: tests.py::MakePatchTestCase::test_arrays."""

from tests import MakePatchTestCase

test = MakePatchTestCase("test_arrays")
test.setUp()
test.test_arrays()
