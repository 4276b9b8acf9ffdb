"""Runs one test of the jsonpatch test suite outside pytest, so that its failure is an
uncaught exception: tests.py::ApplyPatchTestCase::test_replace_whole_document_does_not_share_value."""

from tests import ApplyPatchTestCase

test = ApplyPatchTestCase("test_replace_whole_document_does_not_share_value")
test.setUp()
test.test_replace_whole_document_does_not_share_value()
