"""Runs one test of the jmespath test suite outside pytest, so that its failure is an
uncaught exception: tests/test_lexer.py::TestRegexLexer::test_position_information."""

from tests.test_lexer import TestRegexLexer

test = TestRegexLexer("test_position_information")
test.setUp()
test.test_position_information()
