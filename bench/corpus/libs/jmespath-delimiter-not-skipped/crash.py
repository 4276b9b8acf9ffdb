"""Runs one test of the jmespath test suite outside pytest, so that its failure is an
uncaught exception: tests/test_lexer.py::TestRegexLexer::test_quoted_identifier."""

from tests.test_lexer import TestRegexLexer

test = TestRegexLexer("test_quoted_identifier")
test.setUp()
test.test_quoted_identifier()
