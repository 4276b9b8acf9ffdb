"""Monthly sales report: revenue per region from sales.csv."""

import csv
from collections import defaultdict
from pathlib import Path

SALES_FILE = Path(__file__).with_name("sales.csv")
REGION_COLUMN = "region"
QUANTITY_COLUMN = "quantity"
PRICE_COLUMN = "price"


def read_sales(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def line_revenue(row):
    quantity = int(row[QUANTITY_COLUMN])
    unit_price = float(row[PRICE_COLUMN])
    return quantity * unit_price


def revenue_by_region(rows):
    totals = defaultdict(float)
    for row in rows:
        totals[row[REGION_COLUMN]] += line_revenue(row)
    return dict(totals)


def print_report(totals):
    for region in sorted(totals):
        print(f"{region:<8}{totals[region]:>10.2f}")
    print(f"{'total':<8}{sum(totals.values()):>10.2f}")


print_report(revenue_by_region(read_sales(SALES_FILE)))
