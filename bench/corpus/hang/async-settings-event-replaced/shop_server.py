"""A tiny async shop backend: request handlers may start before the shop settings are loaded,
so they wait for the settings' `loaded` event before quoting a price."""

import asyncio
import json
from decimal import Decimal
from pathlib import Path


class Settings:
    def __init__(self, path):
        self.path = path
        self.values = {}
        self.loaded = asyncio.Event()

    async def load(self):
        """(Re)load the settings file; handlers wait until it is done."""
        self.loaded = asyncio.Event()
        await asyncio.sleep(0.02)  # the settings live on a network share
        self.values = json.loads(Path(self.path).read_text(encoding="utf-8"))
        self.loaded.set()

    async def get(self, key):
        await self.loaded.wait()
        return self.values[key]


async def quote(settings, basket):
    """Price of BASKET ([(name, net price, quantity)]) incl. VAT and shipping."""
    vat_rate = Decimal(await settings.get("vat_rate"))
    free_from = Decimal(await settings.get("free_shipping_from"))
    net = sum(Decimal(price) * qty for _, price, qty in basket)
    gross = (net * (1 + vat_rate)).quantize(Decimal("0.01"))
    shipping = Decimal("0.00") if gross >= free_from else Decimal("4.95")
    return gross + shipping


async def main():
    settings = Settings(Path(__file__).with_name("shop.json"))
    baskets = {
        "web-4411": [("Sencha 100 g", "6.50", 2)],
        "web-4412": [("Cast iron teapot", "49.00", 1), ("Cups (set of 4)", "18.50", 1)],
    }
    handlers = [quote(settings, basket) for basket in baskets.values()]
    *totals, _ = await asyncio.gather(*handlers, settings.load())
    for order, total in zip(baskets, totals):
        print(f"{order}: EUR {total}")


asyncio.run(main())
