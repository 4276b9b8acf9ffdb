"""Take the day's orders and reserve their items in the warehouse."""

from inventory import Inventory


class Order:
    def __init__(self, customer, items=[]):
        self.items = items
        self.customer = customer

    def add(self, sku, quantity=1):
        self.items.append((sku, quantity))
        return self


def todays_orders():
    return [
        Order("ana").add("mug", 2).add("tea", 1),
        Order("ben").add("mug", 1),
        Order("chloe").add("tea", 3),
    ]


def main():
    inventory = Inventory({"mug": 3, "tea": 4})
    for order in todays_orders():
        inventory.reserve(order.items)
        print(f"reserved {len(order.items)} line(s) for {order.customer}")
    print("left:", inventory.stock)


main()
