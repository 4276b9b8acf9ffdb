"""Show the price list in the visitor's currency, using exchange rates cached from the last fetch."""

import json
from pathlib import Path

CACHE_FILE = Path(__file__).with_name("rates_cache.json")
FALLBACK_RATES = {"EUR": 1.0, "USD": 1.08, "GBP": 0.85}
PRICES_EUR = {"mug": 6.5, "teapot": 24.0, "tea": 3.2}


def load_cached_rates(path):
    try:
        with open(path, encoding="utf-8") as f:
            rates = json.load(f)
    except FileNotFoundError:
        print(f"no {path.name} yet, using the built-in rates")
    return rates


def price_list(currency):
    rate = load_cached_rates(CACHE_FILE)[currency]
    return {item: round(price * rate, 2) for item, price in PRICES_EUR.items()}


for item, price in price_list("USD").items():
    print(f"{item}: {price:.2f} USD")
