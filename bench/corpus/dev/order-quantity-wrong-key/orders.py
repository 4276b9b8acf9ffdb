"""Validate web-shop orders (posted as JSON) before they are sent to the warehouse."""

import json
from pathlib import Path


class ValidationError(Exception):
    """An order the warehouse must not receive."""


def parse_order(raw):
    return {
        "id": raw["id"],
        "sku": raw["sku"].upper(),
        "quantity": int(raw.get("quantity", 0)),
        "express": bool(raw.get("express", False)),
    }


def validate(order):
    if order["quantity"] <= 0:
        raise ValidationError(f"order {order['id']}: quantity must be positive, got {order['quantity']}")
    if order["express"] and order["quantity"] > 5:
        raise ValidationError(f"order {order['id']}: express orders take at most 5 items")
    return order


def main():
    raw_orders = json.loads(Path(__file__).with_name("orders.json").read_text(encoding="utf-8"))
    accepted = [validate(parse_order(raw)) for raw in raw_orders]
    print(f"{len(accepted)} orders accepted, {sum(order['quantity'] for order in accepted)} items")


main()
