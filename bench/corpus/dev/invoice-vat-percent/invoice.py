"""Invoice lines, subtotal, VAT and total."""

from dataclasses import dataclass

VAT_RATE = 20  # standard UK rate


@dataclass
class Line:
    description: str
    quantity: int
    unit_price: float

    @property
    def amount(self):
        return self.quantity * self.unit_price


def subtotal(lines):
    return round(sum(line.amount for line in lines), 2)


def vat(lines):
    return round(subtotal(lines) * VAT_RATE, 2)


def total(lines):
    return round(subtotal(lines) + vat(lines), 2)
