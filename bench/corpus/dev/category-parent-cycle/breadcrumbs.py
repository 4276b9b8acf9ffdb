"""Breadcrumbs for the shop's product pages, from categories.csv (id, parent, name)."""

import csv
from pathlib import Path


def load_categories(path):
    with open(path, newline="", encoding="utf-8") as f:
        return {row["id"]: row for row in csv.DictReader(f)}


def breadcrumb(categories, category_id):
    category = categories[category_id]
    if not category["parent"]:
        return [category["name"]]
    return breadcrumb(categories, category["parent"]) + [category["name"]]


def main():
    categories = load_categories(Path(__file__).with_name("categories.csv"))
    for product, category_id in [("Tea towel", "12"), ("Espresso cup", "21")]:
        print(f"{product}: {' > '.join(breadcrumb(categories, category_id))}")


main()
