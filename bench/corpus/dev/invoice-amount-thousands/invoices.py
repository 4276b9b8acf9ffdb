"""Import supplier invoices exported from a spreadsheet and total them per supplier."""

import csv
from collections import defaultdict
from pathlib import Path


def clean_amount(text):
    """The amount as a plain number: '$1,250.00' -> '1250.00'."""
    return text.strip().lstrip("$")


def read_invoices(path):
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            yield row["supplier"], clean_amount(row["amount"])


def totals_by_supplier(invoices):
    totals = defaultdict(float)
    for supplier, amount in invoices:
        totals[supplier] += float(amount)
    return totals


for supplier, total in sorted(totals_by_supplier(read_invoices(Path(__file__).with_name("invoices.csv"))).items()):
    print(f"{supplier:<14}{total:>12,.2f}")
