"""End-of-day sales summary for a shop that takes several currencies."""

currency = "EUR"

SALES = [("EUR", 12.5), ("USD", 8.0), ("EUR", 30.0), ("GBP", 5.0)]


def totals_by_currency(sales):
    totals = {}
    for code, amount in sales:
        totals[code] = totals.get(code, 0) + amount
    return totals


def print_summary(sales):
    print(f"Sales summary (home currency {currency})")
    totals = totals_by_currency(sales)
    for currency, amount in sorted(totals.items()):
        print(f"  {currency}: {amount:.2f}")
    print(f"  {len(sales)} sales")


print_summary(SALES)
