"""URL slugs for blog post titles."""

import re
import unicodedata


def ascii_fold(text):
    normalized = unicodedata.normalize("NFKD", text)
    return normalized.encode("ascii", "ignore").decode("ascii")


def slugify(title, max_length=60):
    text = ascii_fold(title)
    text = re.sub(r"[^a-z0-9]+", "-", text).lower()
    return text.strip("-")[:max_length].rstrip("-")


def unique_slug(title, taken):
    slug = slugify(title)
    candidate, n = slug, 2
    while candidate in taken:
        candidate, n = f"{slug}-{n}", n + 1
    return candidate
