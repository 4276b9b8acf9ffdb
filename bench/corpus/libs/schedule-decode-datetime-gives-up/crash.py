"""Runs one test of the schedule test suite outside pytest, so that its failure is an
uncaught exception: test_schedule.py::SchedulerTests::test_until_time."""

from test_schedule import SchedulerTests

test = SchedulerTests("test_until_time")
test.setUp()
test.test_until_time()
