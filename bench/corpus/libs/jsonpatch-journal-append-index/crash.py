"""Runs one test of the jsonpatch test suite outside pytest, so that its failure is an
uncaught exception: tests.py::AtomicApplyTests::test_patch_can_be_reapplied."""

from tests import AtomicApplyTests

test = AtomicApplyTests("test_patch_can_be_reapplied")
test.setUp()
test.test_patch_can_be_reapplied()
