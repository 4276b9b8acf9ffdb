"""Start-up of a small web service: read settings.json over the built-in defaults."""

import json
from pathlib import Path

DEFAULTS = {
    "host": "127.0.0.1",
    "port": 8080,
    "workers": 2,
    "log_level": "info",
}


def read_settings(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def merge_settings(defaults, overrides):
    merged = dict(defaults)
    for key, value in overrides.items():
        if key not in defaults:
            print(f"warning: unknown setting {key!r} ignored")
            continue
        merged[key] = value


def describe(settings):
    address = f"{settings.get('host')}:{settings.get('port')}"
    return f"serving on {address} with {settings.get('workers')} workers"


def main():
    overrides = read_settings(Path(__file__).with_name("settings.json"))
    settings = merge_settings(DEFAULTS, overrides)
    print(describe(settings))


main()
