"""The shop's price lookups go through a cache in front of the slow pricing backend. One thread
answers the checkout's lookups, another logs the cache statistics for the dashboard."""

import csv
import threading
import time
from pathlib import Path


class PriceCache:
    def __init__(self, load):
        self.load = load  # sku -> price, from the slow backend
        self.entries = {}
        self.hits = self.misses = 0
        self.cache_lock = threading.Lock()
        self.stats_lock = threading.Lock()

    def get(self, sku):
        with self.cache_lock:
            if sku not in self.entries:
                self.entries[sku] = self.load(sku)
                hit = False
            else:
                hit = True
            with self.stats_lock:
                if hit:
                    self.hits += 1
                else:
                    self.misses += 1
            return self.entries[sku]

    def report(self):
        with self.stats_lock:
            with self.cache_lock:
                return f"{len(self.entries)} prices cached, {self.hits} hits, {self.misses} misses"


def backend(prices):
    def load(sku):
        time.sleep(0.2)  # the pricing backend is slow
        return prices[sku]
    return load


def checkout(cache, basket, totals):
    totals.append(sum(cache.get(sku) * qty for sku, qty in basket))


def dashboard(cache, lines):
    time.sleep(0.05)  # first report shortly after start-up
    lines.append(cache.report())


with open(Path(__file__).with_name("prices.csv"), newline="", encoding="utf-8") as f:
    prices = {row["sku"]: float(row["price"]) for row in csv.DictReader(f)}
cache = PriceCache(backend(prices))
basket = [("TEA-SEN-100", 2), ("POT-GLS-01", 1), ("TEA-SEN-100", 1)]
totals, lines = [], []
threads = [threading.Thread(target=checkout, args=(cache, basket, totals), daemon=True),
           threading.Thread(target=dashboard, args=(cache, lines), daemon=True)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(f"basket total: {totals[0]:.2f}")
print(f"first report: {lines[0]}")
print(f"final: {cache.report()}")
