"""Payment plans for invoices that customers pay off in fixed monthly amounts: how many payments
each invoice takes, and how much the last (smaller) one is."""

import json
from decimal import Decimal
from pathlib import Path


def to_cents(amount):
    return int(Decimal(amount) * 100)


def euros(cents):
    return f"{cents // 100}.{cents % 100:02d}"


def payoff(total_cents, monthly_cents):
    """(number of payments, amount of the last payment) to pay TOTAL at MONTHLY a month."""
    remaining = total_cents
    payments = 0
    last = 0
    while remaining != 0:
        last = monthly_cents if remaining > monthly_cents else remaining
        remaining -= monthly_cents
        payments += 1
    return payments, last


def plan_line(invoice):
    total = to_cents(invoice["total"])
    monthly = to_cents(invoice["monthly"])
    payments, last = payoff(total, monthly)
    if last == monthly:
        return f"{invoice['number']} {invoice['customer']}: {payments} x {euros(monthly)}"
    return (f"{invoice['number']} {invoice['customer']}: {payments - 1} x {euros(monthly)}"
            f" + {euros(last)}")


invoices = json.loads(Path(__file__).with_name("invoices.json").read_text(encoding="utf-8"))
for invoice in invoices:
    print(plan_line(invoice))
print(f"{len(invoices)} payment plans")
