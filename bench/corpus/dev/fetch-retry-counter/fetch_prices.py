"""Fetch the supplier's price list, retrying with back-off; if it stays down, use yesterday's copy."""

import json
import time
from pathlib import Path

MAX_ATTEMPTS = 4
BASE_DELAY = 0.05


class TransientError(Exception):
    """A failure worth retrying (timeouts, 5xx answers)."""


class SupplierAPI:
    """Stands in for the HTTP client; today the supplier's server is down."""

    def __init__(self):
        self.calls = 0

    def get_prices(self):
        self.calls += 1
        raise TransientError("503 Service Unavailable")


def fetch_with_retry(fetch, attempts=MAX_ATTEMPTS, base_delay=BASE_DELAY):
    attempt = 1
    while True:
        try:
            return fetch()
        except TransientError:
            if attempt == attempts:
                raise
            time.sleep(base_delay * attempt)
            attempt + 1


def load_prices(api):
    try:
        return fetch_with_retry(api.get_prices)
    except TransientError as exc:
        print(f"supplier unavailable ({exc}), using the cached price list")
        cached = Path(__file__).with_name("prices_cache.json")
        return json.loads(cached.read_text(encoding="utf-8"))


api = SupplierAPI()
prices = load_prices(api)
print(f"{len(prices)} prices loaded after {api.calls} calls")
