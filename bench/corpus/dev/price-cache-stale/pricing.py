"""Price lookups with a small cache in front of the (slow) catalogue."""


class Catalogue:
    def __init__(self, prices):
        self._prices = dict(prices)
        self.lookups = 0

    def fetch(self, sku):
        self.lookups += 1
        return self._prices[sku]

    def store(self, sku, price):
        self._prices[sku] = price


class PriceService:
    def __init__(self, catalogue):
        self.catalogue = catalogue
        self._cache = {}

    def price(self, sku):
        if sku not in self._cache:
            self._cache[sku] = self.catalogue.fetch(sku)
        return self._cache[sku]

    def set_price(self, sku, price):
        self.catalogue.store(sku, price)

    def quote(self, basket):
        return round(sum(self.price(sku) * quantity for sku, quantity in basket.items()), 2)
