"""Turn a nested JSON config into environment variables: {"db": {"host": ..}} -> APP_DB_HOST=..."""

import json
from pathlib import Path


def flatten(config, prefix=""):
    flat = {}
    for key, value in config.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(flatten(config, prefix=f"{name}."))
        else:
            flat[name] = value
    return flat


def to_env(flat, app="APP"):
    return {f"{app}_{key.replace('.', '_').upper()}": str(value) for key, value in flat.items()}


def main():
    config = json.loads(Path(__file__).with_name("config.json").read_text(encoding="utf-8"))
    for name, value in sorted(to_env(flatten(config)).items()):
        print(f"{name}={value}")


main()
