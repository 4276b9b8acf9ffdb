"""Send the monthly newsletter to every subscriber. Mail servers that answer with a temporary
failure (4xx) are retried with exponential back-off; once the back-off would exceed MAX_DELAY the
message is deferred to the next run instead."""

import csv
import time
from pathlib import Path

FIRST_DELAY = 0.01  # seconds
MAX_DELAY = 0.08


class TemporaryFailure(Exception):
    """An SMTP 4xx answer: try again later."""


class FakeSMTP:
    """Stands in for smtplib.SMTP: one receiving server greylists us for the whole day."""

    def __init__(self):
        self.sent = []

    def sendmail(self, to, body):
        if to.endswith("@greylist.example"):
            raise TemporaryFailure("451 4.7.1 greylisted, try again later")
        self.sent.append(to)


def send_with_backoff(smtp, to, body):
    """True when the message went out, False when it is deferred."""
    delay = FIRST_DELAY
    while delay <= MAX_DELAY:
        try:
            smtp.sendmail(to, body)
            return True
        except TemporaryFailure:
            time.sleep(delay)
            delay = min(delay * 2, MAX_DELAY)
    return False


def render(name):
    return f"Hello {name},\n\nThis month: new teapots, and 10% off all cups.\n"


def main():
    path = Path(__file__).with_name("subscribers.csv")
    with open(path, newline="", encoding="utf-8") as f:
        subscribers = list(csv.DictReader(f))
    smtp = FakeSMTP()
    deferred = []
    for row in subscribers:
        if not send_with_backoff(smtp, row["email"], render(row["name"])):
            deferred.append(row["email"])
    print(f"sent {len(smtp.sent)} of {len(subscribers)} newsletters")
    print(f"deferred: {', '.join(deferred) or 'none'}")


main()
