"""Monthly revenue in euros from orders placed in several currencies."""

RATES_TO_EUR = {"EUR": 1.0, "USD": 0.92, "GBP": 1.17, "SEK": 0.087}

ORDERS = [
    {"id": "A1", "country": "DE", "currency": "EUR", "total": 120.0},
    {"id": "A2", "country": "US", "currency": "USD", "total": 80.0},
    {"id": "A3", "country": "GB", "currency": "GBP", "total": 45.0},
    {"id": "A4", "country": "SE", "currency": "SEK", "total": 950.0},
]


def rate_for(currency):
    return RATES_TO_EUR[currency]


def to_euros(amount, currency):
    return round(amount * rate_for(currency), 2)


def order_in_euros(order):
    return to_euros(order["total"], order["country"])


def monthly_revenue(orders):
    return round(sum(order_in_euros(order) for order in orders), 2)


print(f"revenue: {monthly_revenue(ORDERS):.2f} EUR")
