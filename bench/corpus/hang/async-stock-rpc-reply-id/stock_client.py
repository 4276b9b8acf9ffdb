"""Ask the warehouse's stock service for the stock of the SKUs on the product pages. Requests go
over one connection; a reader task matches each reply to its request by the request id."""

import asyncio
import json

STOCK = {"TEA-SEN-100": 40, "POT-GLS-01": 3, "CUP-ESP-04": 0, "KET-COP-02": 7}


async def stock_service(requests, replies):
    """Stands in for the service on the other end of the connection: reads JSON requests and
    answers each in JSON (its ids come back as strings, as the service's API documents)."""
    while True:
        request = json.loads(await requests.get())
        await asyncio.sleep(0.01)
        reply = {"id": str(request["id"]), "sku": request["sku"],
                 "qty": STOCK.get(request["sku"], 0)}
        await replies.put(json.dumps(reply))


class StockClient:
    def __init__(self, requests, replies):
        self.requests = requests
        self.replies = replies
        self.pending = {}  # request id -> future for its reply
        self.next_id = 1

    async def read_replies(self):
        while True:
            reply = json.loads(await self.replies.get())
            future = self.pending.pop(reply["id"], None)
            if future is not None:
                future.set_result(reply["qty"])

    async def stock(self, sku):
        request_id = self.next_id
        self.next_id += 1
        future = asyncio.get_running_loop().create_future()
        self.pending[request_id] = future
        await self.requests.put(json.dumps({"id": request_id, "sku": sku}))
        return await future


async def main():
    requests, replies = asyncio.Queue(), asyncio.Queue()
    service = asyncio.create_task(stock_service(requests, replies))
    client = StockClient(requests, replies)
    reader = asyncio.create_task(client.read_replies())
    skus = ["TEA-SEN-100", "POT-GLS-01", "CUP-ESP-04", "KET-COP-02"]
    levels = await asyncio.gather(*(client.stock(sku) for sku in skus))
    for sku, qty in zip(skus, levels):
        print(f"{sku}: {'in stock' if qty > 0 else 'sold out'} ({qty})")
    print(f"{sum(qty > 0 for qty in levels)} of {len(skus)} SKUs in stock")
    reader.cancel()
    service.cancel()


asyncio.run(main())
