"""Runs one test of the cachetools test suite outside pytest, so that its failure is an
uncaught exception: tests/test_rr.py::RRCacheTest::test_getsizeof_param."""

from tests.test_rr import RRCacheTest

test = RRCacheTest("test_getsizeof_param")
test.setUp()
test.test_getsizeof_param()
