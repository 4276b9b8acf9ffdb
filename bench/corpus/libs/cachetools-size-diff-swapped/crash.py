"""Runs one test of the cachetools test suite outside pytest, so that its failure is an
uncaught exception: tests/test_lru.py::LRUCacheTest::test_getsizeof_replace_grow."""

from tests.test_lru import LRUCacheTest

test = LRUCacheTest("test_getsizeof_replace_grow")
test.setUp()
test.test_getsizeof_replace_grow()
