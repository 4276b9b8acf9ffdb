"""Occupancy calendar for a holiday flat: who stays each night of a date range."""

from datetime import date, timedelta

BOOKINGS = [
    ("Okafor", date(2024, 7, 1), 3),
    ("Lindqvist", date(2024, 7, 4), 2),
    ("Moreau", date(2024, 7, 6), 2),
]


def nights_in_range(first, last):
    """Every night from FIRST to LAST, both included."""
    return [first + timedelta(days=offset) for offset in range((last - first).days)]


def occupancy(bookings, first, last):
    nights = nights_in_range(first, last)
    guests = [None] * len(nights)
    for name, arrival, length in bookings:
        for offset in range(length):
            index = (arrival - first).days + offset
            guests[index] = name
    return list(zip(nights, guests))


def print_calendar(first, last):
    for night, guest in occupancy(BOOKINGS, first, last):
        print(f"{night:%a %d %b}: {guest or '-'}")


print_calendar(date(2024, 7, 1), date(2024, 7, 7))
