"""Order life cycle: replay the shop's event log and show each order's history."""

ALLOWED = {
    "new": {"paid", "cancelled"},
    "paid": {"packed", "refunded"},
    "packed": {"shiped"},
    "shipped": {"delivered", "returned"},
    "delivered": {"returned"},
    "returned": {"refunded"},
    "cancelled": set(),
    "refunded": set(),
}

EVENT_LOG = """\
1001 paid
1002 paid
1001 packed
1003 cancelled
1001 shipped
1002 packed
1002 shipped
1001 delivered
"""


class TransitionError(Exception):
    """An event that is not allowed in the order's current status."""


class Order:
    def __init__(self, order_id):
        self.order_id = order_id
        self.history = ["new"]

    @property
    def status(self):
        return self.history[-1]

    def advance(self, event):
        if event not in ALLOWED[self.status]:
            raise TransitionError(f"order {self.order_id}: cannot go from {self.status} to {event}")
        self.history.append(event)


def replay(log):
    orders = {}
    for line in log.splitlines():
        order_id, event = line.split()
        orders.setdefault(order_id, Order(order_id)).advance(event)
    return orders


for order in replay(EVENT_LOG).values():
    print(f"{order.order_id}: {' -> '.join(order.history)}")
