"""Runs one test of the natsort test suite outside pytest, so that its failure is an
uncaught exception: tests/test_natsorted.py::test_natsorted_handles_mixed_types."""

from tests.test_natsorted import test_natsorted_handles_mixed_types
from natsort import ns

# the mixed_list fixture, and the first parametrize case
mixed_list = ["Ä", "0", "ä", 3, "b", 1.5, "2", "Z"]
test_natsorted_handles_mixed_types(mixed_list, ns.DEFAULT, ["0", 1.5, "2", 3, "Ä", "Z", "ä", "b"])
