"""Runs one test of the schedule test suite outside pytest, so that its failure is an
uncaught exception: test_schedule.py::SchedulerTests::test_next_run_property."""

from test_schedule import SchedulerTests

test = SchedulerTests("test_next_run_property")
test.setUp()
test.test_next_run_property()
