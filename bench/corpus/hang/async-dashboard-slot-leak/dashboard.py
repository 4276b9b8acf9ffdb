"""Morning dashboard: fetch the shop's figures from its admin API concurrently, at most
MAX_CONCURRENT requests at a time (the API rate-limits us), and print one line per panel.
Panels whose endpoint does not exist (yet) on this server are shown as n/a."""

import asyncio
import json
from pathlib import Path

MAX_CONCURRENT = 2


class FakeAdminAPI:
    """Stands in for the admin API over HTTP, served from a dump of its answers."""

    def __init__(self, dump):
        self.dump = dump

    async def get(self, path):
        await asyncio.sleep(0.02)  # the round trip
        if path not in self.dump:
            return 404, None
        return 200, self.dump[path]


class Client:
    def __init__(self, api):
        self.api = api
        self.slots = asyncio.Semaphore(MAX_CONCURRENT)

    async def fetch(self, path):
        await self.slots.acquire()
        status, body = await self.api.get(path)
        if status == 404:
            return None
        self.slots.release()
        return body


async def panel(client, title, path, show):
    body = await client.fetch(path)
    return f"{title}: {show(body) if body is not None else 'n/a'}"


async def main():
    api = FakeAdminAPI(json.loads(Path(__file__).with_name("api_dump.json").read_text("utf-8")))
    client = Client(api)
    lines = await asyncio.gather(
        panel(client, "Vouchers", "/vouchers/active", lambda b: f"{len(b)} active"),
        panel(client, "Newsletter", "/newsletter/stats", lambda b: f"{b['open_rate']} opened"),
        panel(client, "Orders", "/orders/today", lambda b: f"{b['count']} (EUR {b['revenue']})"),
        panel(client, "Low stock", "/stock/low", lambda b: ", ".join(b)),
        panel(client, "Reviews", "/reviews/latest", lambda b: f"{len(b)} new"),
    )
    for line in lines:
        print(line)
    print(f"{len(lines)} panels")


asyncio.run(main())
