"""Shopping list: add up recipe ingredients and show each total in the shopper's preferred unit."""

import csv
from pathlib import Path

PREFERRED = {"mass": "lb", "volume": "cup"}
BASE_UNIT = {"mass": "g", "volume": "ml"}

RECIPES = {
    "pancakes": [("flour", 250, "g"), ("milk", 500, "ml"), ("butter", 2, "oz")],
    "bread": [("flour", 0.5, "kg"), ("water", 1.25, "cup")],
}


def load_units(path):
    units = {}
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            units[row["unit"]] = (row["dimension"], float(row["factor"]))
    return units


def convert(amount, from_unit, to_unit, units):
    from_dimension, from_factor = units[from_unit]
    to_dimension, to_factor = units[to_unit]
    if from_dimension != to_dimension:
        raise ValueError(f"cannot convert {from_unit} to {to_unit}")
    return amount * from_factor / to_factor


def add_up(recipes, units):
    totals = {}
    for ingredients in recipes.values():
        for name, amount, unit in ingredients:
            dimension = units[unit][0]
            base = convert(amount, unit, BASE_UNIT[dimension], units)
            totals[name] = (dimension, totals.get(name, (dimension, 0))[1] + base)
    return totals


def shopping_list(recipes, units):
    for name, (dimension, amount) in sorted(add_up(recipes, units).items()):
        unit = PREFERRED[dimension]
        print(f"{name}: {convert(amount, BASE_UNIT[dimension], unit, units):.2f} {unit}")


shopping_list(RECIPES, load_units(Path(__file__).with_name("units.csv")))
