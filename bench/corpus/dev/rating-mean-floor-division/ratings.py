"""Product ratings: the average of verified reviews and the star bar shown on the product page."""


def mean(values):
    return sum(values) // len(values)


def average_stars(reviews):
    stars = [review["stars"] for review in reviews if review.get("verified")]
    return round(mean(stars), 1) if stars else None


def star_bar(average):
    full = int(average)
    half = average - full >= 0.5
    return "*" * full + ("+" if half else "") + "." * (5 - full - half)
