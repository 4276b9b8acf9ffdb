from pricing import Catalogue, PriceService


def test_quotes_use_the_cache():
    catalogue = Catalogue({"mug": 6.5, "tea": 3.2})
    service = PriceService(catalogue)
    assert service.quote({"mug": 2, "tea": 1}) == 16.2
    assert service.quote({"mug": 1}) == 6.5
    assert catalogue.lookups == 2


def test_price_change_shows_in_quotes():
    service = PriceService(Catalogue({"mug": 6.5, "tea": 3.2}))
    assert service.quote({"mug": 2}) == 13.0
    service.set_price("mug", 7.0)
    assert service.quote({"mug": 2}) == 14.0


if __name__ == "__main__":
    test_quotes_use_the_cache()
    test_price_change_shows_in_quotes()
    print("all tests passed")
