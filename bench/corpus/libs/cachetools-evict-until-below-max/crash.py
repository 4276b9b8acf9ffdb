"""Runs one test of the cachetools test suite outside pytest, so that its failure is an
uncaught exception: tests/test_lru.py::LRUCacheTest::test_missing_getsizeof."""

from tests.test_lru import LRUCacheTest

test = LRUCacheTest("test_missing_getsizeof")
test.setUp()
test.test_missing_getsizeof()
