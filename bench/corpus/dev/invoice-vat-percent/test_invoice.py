from invoice import Line, subtotal, total, vat

LINES = [Line("Consulting", 3, 120.0), Line("Travel", 1, 45.5)]


def test_subtotal():
    assert subtotal(LINES) == 405.5


def test_vat_and_total():
    assert vat(LINES) == 81.1
    assert total(LINES) == 486.6


if __name__ == "__main__":
    test_subtotal()
    test_vat_and_total()
    print("all tests passed")
