"""Render the day's invoices with a pool of worker threads. Orders that cannot be invoiced (no
order lines, say) are reported instead. The main thread waits until every queued order has been
handled."""

import json
import queue
import threading
from decimal import Decimal
from pathlib import Path

WORKERS = 2
VAT = Decimal("0.21")


def render(order):
    if not order["lines"]:
        raise ValueError("order has no lines")
    net = sum(Decimal(price) * qty for _, qty, price in order["lines"])
    vat = (net * VAT).quantize(Decimal("0.01"))
    return f"invoice {order['id']} {order['customer']}: {net + vat:.2f} incl. {vat:.2f} VAT"


def invoice_worker(jobs, invoices, failures):
    while True:
        order = jobs.get()
        try:
            invoice = render(order)
        except ValueError as exc:
            failures.append(f"order {order['id']}: {exc}")
            continue
        invoices.append(invoice)
        jobs.task_done()


def main():
    orders = json.loads(Path(__file__).with_name("orders.json").read_text(encoding="utf-8"))
    jobs = queue.Queue()
    invoices, failures = [], []
    for _ in range(WORKERS):
        threading.Thread(target=invoice_worker, args=(jobs, invoices, failures),
                         daemon=True).start()
    for order in orders:
        jobs.put(order)
    jobs.join()
    for line in sorted(invoices):
        print(line)
    for line in failures:
        print(f"not invoiced: {line}")
    print(f"{len(invoices)} invoices, {len(failures)} failed")


main()
