from datetime import datetime

from scheduler import Job, due_jobs

NOW = datetime(2024, 5, 6, 12, 0)


def test_next_run():
    job = Job("backup", 90, last_run=datetime(2024, 5, 6, 11, 0))
    assert job.next_run(NOW) == datetime(2024, 5, 6, 12, 30)


def test_due_jobs():
    jobs = [
        Job("report", 30, last_run=datetime(2024, 5, 6, 11, 15)),
        Job("backup", 90, last_run=datetime(2024, 5, 6, 11, 0)),
        Job("cleanup", 5),
    ]
    assert [job.name for job in due_jobs(jobs, NOW)] == ["cleanup", "report"]


if __name__ == "__main__":
    test_next_run()
    test_due_jobs()
    print("all tests passed")
