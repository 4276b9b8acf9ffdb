"""Shopping cart totals with a free-shipping threshold."""

FREE_SHIPPING_FROM = 50.0
SHIPPING = 4.95


class Cart:
    def __init__(self):
        self.lines = []

    def add(self, name, price, quantity=1):
        self.lines.append((name, price, quantity))
        return self

    def subtotal(self):
        return round(sum(price * quantity for _, price, quantity in self.lines), 2)

    @property
    def item_count(self):
        return sum(quantity for _, _, quantity in self.lines)


def shipping_for(cart):
    return 0.0 if cart.subtotal >= FREE_SHIPPING_FROM else SHIPPING


def summary(cart):
    shipping = shipping_for(cart)
    return (f"{cart.item_count} items: {cart.subtotal:.2f} + shipping {shipping:.2f}"
            f" = {cart.subtotal + shipping:.2f}")


print(summary(Cart().add("mug", 6.5, 2).add("tea", 3.2)))
print(summary(Cart().add("teapot", 24.0).add("tray", 18.0).add("mug", 6.5, 2)))
