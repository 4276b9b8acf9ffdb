from slugs import slugify, unique_slug


def test_plain_title():
    assert slugify("  ten tips for python  ") == "ten-tips-for-python"


def test_capitals_and_accents():
    assert slugify("Crème Brûlée: A Guide") == "creme-brulee-a-guide"


def test_unique_slug():
    assert unique_slug("release notes", {"release-notes"}) == "release-notes-2"


if __name__ == "__main__":
    test_plain_title()
    test_capitals_and_accents()
    test_unique_slug()
    print("all tests passed")
