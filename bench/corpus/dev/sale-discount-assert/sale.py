"""Price list for the summer sale: each product's price after its discount."""

PRODUCTS = [
    ("Linen shirt", 45.0, 0.30),
    ("Straw hat", 18.0, 0.15),
    ("Canvas bag", 12.0, 0.0),
    ("Sandals", 60.0, 0.25),
]


def apply_discount(price, discount):
    assert 0 < discount < 1, f"discount must be a fraction, got {discount}"
    return round(price * (1 - discount), 2)


def sale_lines(products):
    for name, price, discount in products:
        yield f"{name:<12} {price:6.2f} -> {apply_discount(price, discount):6.2f}"


for line in sale_lines(PRODUCTS):
    print(line)
