"""Read the shop's settings file: `key = value` lines, `#` comments, blank lines, and long values
continued on the next line with a trailing backslash."""

from pathlib import Path

DEFAULTS = {"currency": "EUR", "vat_rate": "0.21", "low_stock_alert": "5"}


def read_settings(path):
    lines = [line.strip() for line in Path(path).read_text(encoding="utf-8").splitlines()]
    settings = dict(DEFAULTS)
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line or line[0] == "#":
            continue
        while line.endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line[:-1].rstrip() + " " + lines[i]
        key, sep, value = line.partition("=")
        if not sep:
            raise ValueError(f"{path}, line {i + 1}: expected 'key = value', got {line!r}")
        settings[key.strip()] = value.strip()
        i += 1
    return settings


def typed(settings):
    return {
        "shop_name": settings["shop_name"],
        "currency": settings["currency"],
        "vat_rate": float(settings["vat_rate"]),
        "low_stock_alert": int(settings["low_stock_alert"]),
        "footer": settings.get("footer", ""),
    }


config = typed(read_settings(Path(__file__).with_name("shop.conf")))
print(f"shop: {config['shop_name']} ({config['currency']}, VAT {config['vat_rate']:.0%})")
print(f"low stock alert below {config['low_stock_alert']} items")
print(f"footer: {config['footer']}")
