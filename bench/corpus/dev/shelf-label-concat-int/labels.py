"""Shelf labels for the shop: name, price and how many are left."""

PRODUCTS = [
    {"name": "Stoneware mug", "price": 6.5, "stock": 14},
    {"name": "Cast-iron teapot", "price": 24.0, "stock": 3},
]


def format_price(price):
    return f"EUR {price:.2f}"


def label(product):
    return product["name"] + " - " + format_price(product["price"]) + " - " + product["stock"] + " left"


def print_labels(products):
    width = max(len(product["name"]) for product in products) + 24
    for product in products:
        print(label(product).ljust(width) + "|")


print_labels(PRODUCTS)
