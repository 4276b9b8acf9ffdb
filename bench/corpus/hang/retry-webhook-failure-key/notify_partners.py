"""Tell partner shops that their orders have shipped, by POSTing to their webhooks. A partner
host that keeps failing is retried a few times with back-off, then skipped for this run."""

import json
import time
from pathlib import Path
from urllib.parse import urlsplit

MAX_FAILURES = 3
BACKOFF = 0.01  # seconds, times the number of failures so far


class WebhookError(Exception):
    pass


class FakeHTTP:
    """Stands in for the HTTP client: one partner's server is down today."""

    def __init__(self):
        self.delivered = []

    def post(self, url, payload):
        if urlsplit(url).hostname == "api.mugmarket.example":
            raise WebhookError("502 Bad Gateway")
        self.delivered.append((url, payload["order"]))


def deliver(http, url, payload, failures):
    """POST PAYLOAD to URL, retrying; FAILURES counts failures per host across the run."""
    host = urlsplit(url).hostname
    while failures.get(host, 0) < MAX_FAILURES:
        try:
            http.post(url, payload)
            return True
        except WebhookError:
            failures[host] = failures.get(url, 0) + 1
            time.sleep(BACKOFF * failures[host])
    return False


def main():
    shipments = json.loads(Path(__file__).with_name("shipments.json").read_text(encoding="utf-8"))
    http = FakeHTTP()
    failures = {}
    skipped = []
    for shipment in shipments:
        payload = {"event": "order.shipped", "order": shipment["order"],
                   "carrier": shipment["carrier"]}
        if not deliver(http, shipment["partner"], payload, failures):
            skipped.append(shipment["order"])
    print(f"delivered {len(http.delivered)} webhooks")
    print(f"skipped orders: {', '.join(map(str, skipped)) or 'none'}")


main()
