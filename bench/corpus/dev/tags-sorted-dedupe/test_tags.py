from tags import clean_tags, tag_line

RAW = ["Python", "web  dev", "python", " ", "Testing", "Async"]


def test_duplicates_and_blanks_go():
    assert len(clean_tags(RAW)) == 4


def test_author_order_is_kept():
    assert clean_tags(RAW) == ["python", "web-dev", "testing", "async"]


def test_tag_line_shows_the_first_tags():
    assert tag_line(RAW) == "#python #web-dev #testing"


if __name__ == "__main__":
    test_duplicates_and_blanks_go()
    test_author_order_is_kept()
    test_tag_line_shows_the_first_tags()
    print("all tests passed")
