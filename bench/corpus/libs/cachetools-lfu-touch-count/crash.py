"""Runs one test of the cachetools test suite outside pytest, so that its failure is an
uncaught exception: tests/test_lfu.py::LFUCacheTest::test_lfu_tie."""

from tests.test_lfu import LFUCacheTest

test = LFUCacheTest("test_lfu_tie")
test.setUp()
test.test_lfu_tie()
