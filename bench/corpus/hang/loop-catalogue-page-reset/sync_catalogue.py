"""Sync the product catalogue from the supplier's paged API into a local table keyed by SKU."""

import json
import time
from pathlib import Path

PAGE_SIZE = 20


class CatalogueAPI:
    """Stands in for the supplier's HTTP API: pages of products, served from a JSON dump."""

    def __init__(self, dump_path):
        self.products = json.loads(Path(dump_path).read_text(encoding="utf-8"))
        self.requests = 0

    def list_products(self, page, per_page=PAGE_SIZE):
        self.requests += 1
        time.sleep(0.01)  # the network round trip
        start = (page - 1) * per_page
        items = self.products[start:start + per_page]
        return {"page": page, "items": items, "has_more": start + per_page < len(self.products)}


def sync_catalogue(api):
    catalogue = {}
    while True:
        page = 1
        reply = api.list_products(page)
        for item in reply["items"]:
            catalogue[item["sku"]] = {"name": item["name"], "price": item["price"]}
        if not reply["has_more"]:
            break
        page += 1
    return catalogue


def cheapest(catalogue, n):
    return sorted(catalogue.items(), key=lambda entry: entry[1]["price"])[:n]


api = CatalogueAPI(Path(__file__).with_name("products.json"))
catalogue = sync_catalogue(api)
print(f"synced {len(catalogue)} products in {api.requests} requests")
for sku, product in cheapest(catalogue, 3):
    print(f"  {sku}: {product['name']} at {product['price']:.2f}")
