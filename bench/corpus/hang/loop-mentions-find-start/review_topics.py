"""Count how often each topic comes up in the shop's customer reviews, and how many reviews
mention it, for the monthly customer-service meeting."""

from pathlib import Path

TOPICS = {
    "delivery": ["delivery", "packed", "packaging", "arrived"],
    "price": ["price", "cheap", "expensive"],
    "quality": ["quality", "glaze", "chipped", "dented"],
}


def count_mentions(text, word):
    """How many times WORD occurs in TEXT."""
    count = 0
    start = text.find(word)
    while start != -1:
        count += 1
        start = text.find(word, start)
    return count


def topic_counts(reviews):
    """topic -> (mentions in all reviews, number of reviews that mention it)."""
    counts = {}
    for topic, words in TOPICS.items():
        per_review = [sum(count_mentions(review, word) for word in words) for review in reviews]
        counts[topic] = (sum(per_review), sum(1 for n in per_review if n))
    return counts


def read_reviews(path):
    """The reviews, lower-cased, one per line; blank lines are left out."""
    text = Path(path).read_text(encoding="utf-8").lower()
    return [line.strip() for line in text.splitlines() if line.strip()]


reviews = read_reviews(Path(__file__).with_name("reviews.txt"))
counts = topic_counts(reviews)
for topic, (mentions, in_reviews) in sorted(counts.items(), key=lambda item: -item[1][0]):
    print(f"{topic}: {mentions} mentions in {in_reviews} of {len(reviews)} reviews")
quiet = [topic for topic, (mentions, _) in counts.items() if mentions == 0]
print(f"topics nobody mentioned: {', '.join(quiet) or 'none'}")
