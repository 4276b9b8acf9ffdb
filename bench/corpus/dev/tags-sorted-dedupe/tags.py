"""Tags for blog posts: clean up what the author typed in."""


def normalize_tag(tag):
    return "-".join(tag.strip().lower().split())


def clean_tags(raw_tags):
    """Normalized tags without duplicates, in the order the author gave them."""
    tags = [normalize_tag(tag) for tag in raw_tags if tag.strip()]
    return sorted(set(tags))


def tag_line(raw_tags, limit=3):
    return " ".join("#" + tag for tag in clean_tags(raw_tags)[:limit])
