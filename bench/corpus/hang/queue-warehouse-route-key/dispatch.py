"""Route the day's orders to the picker thread of the warehouse they ship from, and collect the
pickers' answers: picked, or back-ordered when the shelf has too few."""

import csv
import queue
import threading
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).parent
WAREHOUSES = ["AMS", "RTM"]


def read_csv(name):
    with open(HERE / name, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def picker(warehouse, shelf, inbox, results):
    """Pick the orders that arrive in INBOX from SHELF (sku -> quantity in stock)."""
    while True:
        order = inbox.get()
        qty = int(order["qty"])
        if shelf.get(order["sku"], 0) >= qty:
            shelf[order["sku"]] -= qty
            results.put((order["order"], f"picked at {warehouse}"))
        else:
            results.put((order["order"], f"back-ordered at {warehouse}"))


def dispatch(orders, stock):
    inboxes = defaultdict(queue.Queue)
    results = queue.Queue()
    for code in WAREHOUSES:
        shelf = {row["sku"]: int(row["qty"]) for row in stock if row["warehouse"] == code}
        threading.Thread(target=picker, args=(code, shelf, inboxes[code], results),
                         daemon=True).start()
    for order in orders:
        inboxes[order["warehouse"].strip().lower()].put(order)
    outcome = {}
    for _ in orders:
        number, text = results.get()
        outcome[number] = text
    return outcome


orders = read_csv("orders.csv")
outcome = dispatch(orders, read_csv("stock.csv"))
for number in sorted(outcome):
    print(f"order {number}: {outcome[number]}")
print(f"{sum('picked' in text for text in outcome.values())} of {len(orders)} orders picked")
