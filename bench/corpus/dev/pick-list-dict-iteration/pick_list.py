"""Pick lists for the warehouse: one line per item of each order, heaviest first."""

import json
from pathlib import Path

WEIGHTS_KG = {"mug": 0.35, "teapot": 1.2, "tea": 0.25, "tray": 0.8}


def pick_lines(items):
    lines = []
    for item in items:
        sku = item.get("sku")
        quantity = item.get("quantity", 1)
        lines.append((WEIGHTS_KG[sku] * quantity, sku, quantity))
    return sorted(lines, reverse=True)


def print_pick_list(order):
    print(f"order {order['id']} for {order['customer']}:")
    for weight, sku, quantity in pick_lines(order):
        print(f"  {quantity} x {sku} ({weight:.2f} kg)")


def main():
    orders = json.loads(Path(__file__).with_name("orders.json").read_text(encoding="utf-8"))
    for order in orders:
        print_pick_list(order)


main()
