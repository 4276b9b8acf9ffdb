"""Stock levels for SKUs quoted from old catalogues; renamed_skus.txt maps old SKUs to new ones."""

from pathlib import Path

STOCK = {"A100": 12, "A200": 0, "B310": 7}


def load_renames(path):
    renames = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                old, new = line.split(" -> ")
                renames[old] = new
    return renames


def current_sku(sku, renames):
    while sku in renames:
        sku = renames[sku]
    return sku


def stock_level(sku, renames):
    return STOCK[current_sku(sku, renames)]


renames = load_renames(Path(__file__).with_name("renamed_skus.txt"))
for sku in ["A100", "OLD-7", "X-31"]:
    print(f"{sku}: {stock_level(sku, renames)} in stock")
