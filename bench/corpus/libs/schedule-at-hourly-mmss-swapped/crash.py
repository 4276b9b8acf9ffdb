"""Runs one test of the schedule test suite outside pytest, so that its failure is an
uncaught exception: test_schedule.py::SchedulerTests::test_at_time_hour."""

from test_schedule import SchedulerTests

test = SchedulerTests("test_at_time_hour")
test.setUp()
test.test_at_time_hour()
