"""Recurring jobs: when each one runs next, and which are due now."""

from datetime import timedelta


class Job:
    def __init__(self, name, every_minutes, last_run=None):
        self.name = name
        self.every_minutes = every_minutes
        self.last_run = last_run

    def interval(self):
        return timedelta(seconds=self.every_minutes)

    def next_run(self, now):
        if self.last_run is None:
            return now
        return self.last_run + self.interval()

    def is_due(self, now):
        return self.next_run(now) <= now


def due_jobs(jobs, now):
    return sorted((job for job in jobs if job.is_due(now)), key=lambda job: job.name)
