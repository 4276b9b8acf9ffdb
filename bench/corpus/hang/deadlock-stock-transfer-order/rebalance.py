"""Rebalance stock between the two warehouses: each warehouse's clerk moves what the other one
is short of. A transfer locks both warehouses' books so that no order sees stock in transit."""

import json
import threading
import time
from pathlib import Path


class Warehouse:
    def __init__(self, code, stock):
        self.code = code
        self.stock = dict(stock)
        self.lock = threading.Lock()


def transfer(src, dst, sku, qty):
    """Move QTY of SKU from SRC to DST, holding both warehouses' locks."""
    first, second = src, dst
    with first.lock:
        time.sleep(0.1)  # reading the stock level from the booking system
        with second.lock:
            moved = min(qty, src.stock.get(sku, 0))
            src.stock[sku] -= moved
            dst.stock[sku] = dst.stock.get(sku, 0) + moved
            return moved


def top_up(src, dst, minimum, log, start):
    """Transfer to DST every SKU it holds fewer than MINIMUM of."""
    start.wait()
    for sku, qty in sorted(dst.stock.items()):
        if qty < minimum:
            moved = transfer(src, dst, sku, minimum - qty)
            log.append(f"{sku}: {moved} from {src.code} to {dst.code}")


def main():
    books = json.loads(Path(__file__).with_name("stock.json").read_text(encoding="utf-8"))
    ams, rtm = Warehouse("AMS", books["AMS"]), Warehouse("RTM", books["RTM"])
    log = []
    start = threading.Barrier(2)  # both clerks start their round at 9:00
    clerk = threading.Thread(target=top_up, args=(ams, rtm, 10, log, start), daemon=True)
    clerk.start()
    top_up(rtm, ams, 10, log, start)
    clerk.join()
    for line in sorted(log):
        print(line)
    for house in (ams, rtm):
        print(f"{house.code}: {', '.join(f'{sku} {n}' for sku, n in sorted(house.stock.items()))}")


main()
