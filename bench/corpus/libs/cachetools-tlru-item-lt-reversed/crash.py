"""Runs one test of the cachetools test suite outside pytest, so that its failure is an
uncaught exception: tests/test_tlru.py::TLRUCacheTest::test_ttu."""

from tests.test_tlru import TLRUCacheTest

test = TLRUCacheTest("test_ttu")
test.setUp()
test.test_ttu()
