"""Check the links in the shop's newsletter archive: follow each link's redirects to the page it
ends on, and report links that are broken or stuck in a redirect loop."""

import json
import time
from pathlib import Path

MAX_REDIRECTS = 5


class TooManyRedirects(Exception):
    pass


class FakeSite:
    """Stands in for HTTP requests to the shop's web site, served from a dump of its routes."""

    def __init__(self, dump):
        self.pages = dump["pages"]
        self.redirects = dump["redirects"]
        self.requests = 0

    def head(self, path):
        """(status, Location header or None) for PATH."""
        self.requests += 1
        time.sleep(0.01)  # the round trip
        if path in self.redirects:
            return 301, self.redirects[path]
        return self.pages.get(path, 404), None


def resolve(site, path, hops=0):
    """(final path, status) that PATH ends on after its redirects."""
    if hops > MAX_REDIRECTS:
        raise TooManyRedirects(path)
    status, location = site.head(path)
    if status in (301, 302, 307, 308):
        return resolve(site, location, hops)
    return path, status


def check(site, links):
    problems = []
    for link in links:
        try:
            final, status = resolve(site, link)
        except TooManyRedirects:
            problems.append(f"{link}: redirect loop")
            continue
        if status != 200:
            problems.append(f"{link}: {status} at {final}")
    return problems


site = FakeSite(json.loads(Path(__file__).with_name("site.json").read_text(encoding="utf-8")))
links = Path(__file__).with_name("links.txt").read_text(encoding="utf-8").split()
problems = check(site, links)
for problem in problems:
    print(problem)
print(f"{len(links)} links checked, {len(problems)} problems")
