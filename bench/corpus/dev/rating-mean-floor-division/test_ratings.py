from ratings import average_stars, star_bar

REVIEWS = [
    {"stars": 5, "verified": True},
    {"stars": 4, "verified": True},
    {"stars": 4, "verified": True},
    {"stars": 1, "verified": False},
]


def test_average_counts_verified_reviews_only():
    assert average_stars(REVIEWS) == 4.3


def test_no_verified_reviews():
    assert average_stars([{"stars": 2}]) is None


def test_star_bar():
    assert star_bar(3.5) == "***+."
    assert star_bar(4.3) == "****."


if __name__ == "__main__":
    test_average_counts_verified_reviews_only()
    test_no_verified_reviews()
    test_star_bar()
    print("all tests passed")
