"""Runs one test of the jsonpatch test suite outside pytest, so that its failure is an
uncaught exception: tests.py::ApplyPatchTestCase::test_move_array_item_into_other_item."""

from tests import ApplyPatchTestCase

test = ApplyPatchTestCase("test_move_array_item_into_other_item")
test.setUp()
test.test_move_array_item_into_other_item()
