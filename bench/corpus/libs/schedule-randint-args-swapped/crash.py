"""Runs one test of the schedule test suite outside pytest, so that its failure is an
uncaught exception: test_schedule.py::SchedulerTests::test_time_range."""

from test_schedule import SchedulerTests

test = SchedulerTests("test_time_range")
test.setUp()
test.test_time_range()
