"""Checkout: apply the customer's loyalty discount and VAT to a basket."""

import json
from pathlib import Path

DISCOUNTS = {"bronze": 0.05, "silver": 0.10, "gold": 0.15}
VAT = 0.20


def load_customers(path):
    with open(path, encoding="utf-8") as f:
        return {customer["id"]: customer for customer in json.load(f)}


def discount_rate(customer):
    tier = customer.get("tier", "none")
    return DISCOUNTS.get(tier)


def checkout_total(basket_total, customer):
    discounted = basket_total * (1 - discount_rate(customer))
    return round(discounted * (1 + VAT), 2)


def main():
    customers = load_customers(Path(__file__).with_name("customers.json"))
    for customer_id, basket_total in [(101, 80.0), (102, 42.5), (103, 19.99)]:
        total = checkout_total(basket_total, customers[customer_id])
        print(f"customer {customer_id}: {total:.2f}")


main()
