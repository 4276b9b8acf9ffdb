"""Estimate delivery dates for orders whose date the shop records as DD/MM/YYYY."""

from datetime import date, timedelta

HANDLING_DAYS = 1
TRANSIT_DAYS = {"standard": 4, "express": 1}


def make_date(year, month, day):
    return date(year, month, day)


def parse_order_date(text):
    day, month, year = (int(part) for part in text.split("/"))
    return make_date(day, month, year)


def add_working_days(start, days):
    current = start
    while days > 0:
        current += timedelta(days=1)
        if current.weekday() < 5:
            days -= 1
    return current


def delivery_date(order_date_text, service):
    ordered = parse_order_date(order_date_text)
    return add_working_days(ordered, HANDLING_DAYS + TRANSIT_DAYS[service])


for text, service in [("03/06/2024", "express"), ("28/06/2024", "standard")]:
    print(f"{text} {service}: arrives {delivery_date(text, service):%a %d %b %Y}")
