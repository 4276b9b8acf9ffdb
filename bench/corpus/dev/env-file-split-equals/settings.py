"""Read the app's .env-style settings file and print the connection it will use."""

from pathlib import Path
from urllib.parse import urlsplit


def parse_env(text):
    values = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, value = line.split("=")
        values[key.strip()] = value.strip().strip('"')
    return values


def describe_database(url):
    parts = urlsplit(url)
    return f"{parts.scheme} database {parts.path.lstrip('/')} on {parts.hostname}:{parts.port or 5432}"


settings = parse_env(Path(__file__).with_name("app.env").read_text(encoding="utf-8"))
print(describe_database(settings["DATABASE_URL"]))
print(f"debug: {settings.get('DEBUG', 'false')}")
