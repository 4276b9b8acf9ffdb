"""Runs one test of the jsonpatch test suite outside pytest, so that its failure is an
uncaught exception: tests.py::ApplyPatchTestCase::test_test_read_only_sequence_contents_and_lengths."""

from tests import ApplyPatchTestCase

test = ApplyPatchTestCase("test_test_read_only_sequence_contents_and_lengths")
test.setUp()
test.test_test_read_only_sequence_contents_and_lengths()
