"""Overdue library loans: which books have been out longer than the loan period."""

from datetime import datetime, timedelta

LOAN_PERIOD = timedelta(weeks=3)
DATE_FORMAT = "%Y-%m-%d"

LOANS = [
    ("The Dispossessed", "Ruth", "2024-04-02"),
    ("Middlemarch", "Tom", "2024-04-20"),
    ("Dune", "Ines", "2024-03-28"),
]


def parse_day(text):
    return datetime.strptime(DATE_FORMAT, text).date()


def overdue(loans, today):
    late = []
    for title, borrower, borrowed_on in loans:
        due = parse_day(borrowed_on) + LOAN_PERIOD
        if due < today:
            late.append((title, borrower, (today - due).days))
    return late


today = parse_day("2024-05-01")
for title, borrower, days in overdue(LOANS, today):
    print(f"{title} ({borrower}): {days} days late")
