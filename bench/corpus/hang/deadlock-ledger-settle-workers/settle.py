"""Settle the day's invoices between the shop's accounts: one worker per direction, so the
payments of the two accounts to each other are booked side by side. Booking locks both accounts
so that no statement shows money in flight."""

import json
import threading
import time
from pathlib import Path


class Account:
    def __init__(self, number, balance):
        self.number = number
        self.balance = balance
        self.lock = threading.Lock()


def book(payer, payee, cents):
    """Move CENTS from PAYER to PAYEE, holding both accounts' locks."""
    first, second = payer, payee
    with first.lock:
        time.sleep(0.05)  # the bank's confirmation
        with second.lock:
            payer.balance -= cents
            payee.balance += cents


def settle(payer, payee, invoices, start):
    start.wait()
    for cents in invoices:
        book(payer, payee, cents)


def main():
    day = json.loads(Path(__file__).with_name("invoices.json").read_text(encoding="utf-8"))
    shop, supplier = Account("NL01-SHOP", day["shop"]), Account("NL02-SUPP", day["supplier"])
    start = threading.Barrier(2)
    workers = [threading.Thread(target=settle, args=(shop, supplier, day["to_supplier"], start), daemon=True),
               threading.Thread(target=settle, args=(supplier, shop, day["to_shop"], start), daemon=True)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    for account in (shop, supplier):
        print(f"{account.number}: {account.balance / 100:.2f}")


main()
