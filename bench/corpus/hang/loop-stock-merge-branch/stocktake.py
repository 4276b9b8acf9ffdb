"""Compare the warehouse's stock count with the stock levels the shop system has on record,
and list every SKU whose numbers disagree."""

import csv
from collections import namedtuple
from pathlib import Path

Stock = namedtuple("Stock", "sku qty")


def read_stock(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = [Stock(row["sku"], int(row["qty"])) for row in csv.DictReader(f)]
    return sorted(rows)


def differences(counted, recorded):
    """SKU -> counted minus recorded, for each SKU where they differ (a missing SKU counts as 0).
    Both lists must be sorted by SKU."""
    diffs = {}
    i = j = 0
    while i < len(counted) and j < len(recorded):
        here, there = counted[i], recorded[j]
        if here.sku < there.sku:
            diffs[here.sku] = here.qty
            i += 1
        elif here.sku > there.sku:
            diffs[there.sku] = -there.qty
            j += 1
        else:
            if here.qty != there.qty:
                diffs[here.sku] = here.qty - there.qty
                i += 1
                j += 1
    for extra in counted[i:]:
        diffs[extra.sku] = extra.qty
    for extra in recorded[j:]:
        diffs[extra.sku] = -extra.qty
    return diffs


folder = Path(__file__).parent
diffs = differences(read_stock(folder / "counted.csv"), read_stock(folder / "system.csv"))
for sku, delta in sorted(diffs.items()):
    print(f"{sku}: {delta:+d}")
print(f"{len(diffs)} SKUs to correct")
