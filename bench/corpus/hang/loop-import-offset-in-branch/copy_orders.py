"""Copy the day's orders from the shop database into the reporting store, one batch at a time,
leaving out cancelled orders."""

import csv
import sqlite3
import time
from pathlib import Path

BATCH_SIZE = 25
QUERY = "SELECT id, customer, total, status FROM orders ORDER BY id LIMIT ? OFFSET ?"


class ShopDB:
    """Stands in for the shop's remote database: loaded from its nightly CSV export, and every
    query pays a network round trip."""

    def __init__(self, csv_path):
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE TABLE orders "
                        "(id INTEGER PRIMARY KEY, customer TEXT, total REAL, status TEXT)")
        with open(csv_path, newline="", encoding="utf-8") as f:
            rows = [(int(r["id"]), r["customer"], float(r["total"]), r["status"])
                    for r in csv.DictReader(f)]
        self.db.executemany("INSERT INTO orders VALUES (?, ?, ?, ?)", rows)

    def fetch_orders(self, limit, offset):
        time.sleep(0.02)  # the round trip
        return self.db.execute(QUERY, (limit, offset)).fetchall()


class ReportStore:
    def __init__(self):
        self.orders = {}

    def save_many(self, rows):
        for order_id, customer, total, status in rows:
            self.orders[order_id] = {"customer": customer, "total": total, "status": status}

    def revenue(self):
        return sum(order["total"] for order in self.orders.values())


def copy_orders(db, store):
    offset = 0
    while True:
        batch = db.fetch_orders(BATCH_SIZE, offset)
        if not batch:
            break
        kept = [row for row in batch if row[3] != "cancelled"]
        if kept:
            store.save_many(kept)
            offset += BATCH_SIZE
    return len(store.orders)


db = ShopDB(Path(__file__).with_name("orders.csv"))
store = ReportStore()
count = copy_orders(db, store)
print(f"copied {count} orders, revenue {store.revenue():.2f}")
