"""Order confirmations: look each order's customer up by e-mail address and greet them."""

from dataclasses import dataclass


@dataclass
class Customer:
    name: str
    email: str
    language: str = "en"


CUSTOMERS = [
    Customer("Ada Byron", "ada@example.org"),
    Customer("Grace Hopper", "grace@example.org"),
    Customer("Emile Zola", "emile@example.fr", "fr"),
]

GREETINGS = {"en": "Dear {name}", "fr": "Cher {name}"}


def find_customer(customers, email):
    wanted = email.strip().lower()
    for customer in customers:
        if customer.email == wanted:
            return customer
        return None


def confirmation(order_id, email):
    customer = find_customer(CUSTOMERS, email)
    greeting = GREETINGS[customer.language].format(name=customer.name)
    return f"{greeting}, your order {order_id} is confirmed."


for order_id, email in [("A-17", "ada@example.org"), ("A-18", "Emile@Example.fr")]:
    print(confirmation(order_id, email))
