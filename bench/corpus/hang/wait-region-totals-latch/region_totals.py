"""End-of-day totals per sales region. Each region with orders today is summed by its own thread
(in production each one queries that region's database); the main thread waits on a latch until
every region thread has reported."""

import csv
import threading
from decimal import Decimal
from pathlib import Path

REGIONS = ["north", "east", "south", "west"]


class Latch:
    """Lets one thread wait until COUNT others have called count_down()."""

    def __init__(self, count):
        self.count = count
        self.cond = threading.Condition()

    def count_down(self):
        with self.cond:
            self.count -= 1
            if self.count <= 0:
                self.cond.notify_all()

    def wait(self):
        with self.cond:
            while self.count > 0:
                self.cond.wait()


def sum_region(region, orders, totals, latch):
    totals[region] = sum(Decimal(o["total"]) for o in orders if o["region"] == region)
    latch.count_down()


def region_totals(orders):
    active = [region for region in REGIONS if any(o["region"] == region for o in orders)]
    totals = {}
    latch = Latch(len(REGIONS))
    for region in active:
        threading.Thread(target=sum_region, args=(region, orders, totals, latch),
                         daemon=True).start()
    latch.wait()
    return {region: totals.get(region, Decimal("0.00")) for region in REGIONS}


with open(Path(__file__).with_name("orders.csv"), newline="", encoding="utf-8") as f:
    orders = list(csv.DictReader(f))
totals = region_totals(orders)
for region, total in totals.items():
    print(f"{region:>5}: {total:8.2f}")
print(f"  all: {sum(totals.values()):8.2f}")
