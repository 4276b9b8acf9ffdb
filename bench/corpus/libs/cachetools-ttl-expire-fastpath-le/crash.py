"""Runs one test of the cachetools test suite outside pytest, so that its failure is an
uncaught exception: tests/test_ttl.py::TTLCacheTest::test_ttl."""

from tests.test_ttl import TTLCacheTest

test = TTLCacheTest("test_ttl")
test.setUp()
test.test_ttl()
