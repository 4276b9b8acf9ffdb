"""Runs one test of the jmespath test suite outside pytest, so that its failure is an
uncaught exception: tests/test_parser.py::TestParserWildcards::test_indices_out_of_bounds."""

from tests.test_parser import TestParserWildcards

test = TestParserWildcards("test_indices_out_of_bounds")
test.setUp()
test.test_indices_out_of_bounds()
