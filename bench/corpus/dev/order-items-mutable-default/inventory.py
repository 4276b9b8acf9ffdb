"""Stock levels and reservations for the warehouse."""


class OutOfStock(Exception):
    """Not enough of an item left to reserve."""


class Inventory:
    def __init__(self, stock):
        self.stock = dict(stock)

    def available(self, sku):
        return self.stock.get(sku, 0)

    def reserve(self, items):
        for sku, quantity in items:
            if self.available(sku) < quantity:
                raise OutOfStock(f"only {self.available(sku)} of {sku} left, {quantity} wanted")
        for sku, quantity in items:
            self.stock[sku] -= quantity
