"""Runs one test of the schedule test suite outside pytest, so that its failure is an
uncaught exception: test_schedule.py::SchedulerTests::test_weekday_at_todady."""

from test_schedule import SchedulerTests

test = SchedulerTests("test_weekday_at_todady")
test.setUp()
test.test_weekday_at_todady()
