"""A cachetools-style LRU cache: reading a key moves it to the end."""

from collections import OrderedDict
from collections.abc import MutableMapping

from kit import crash_in, log, state_at_exit


class LRUCache(MutableMapping):
    def __init__(self, maxsize):
        self._data = OrderedDict()
        self.maxsize = maxsize

    def __getitem__(self, key):
        log(f"LRUCache.__getitem__ {key}")
        value = self._data[key]
        self._data.move_to_end(key)
        return value

    def __setitem__(self, key, value):
        self._data[key] = value
        self._data.move_to_end(key)

    def __delitem__(self, key):
        log(f"LRUCache.__delitem__ {key}")
        del self._data[key]

    def __iter__(self):
        log("LRUCache.__iter__")
        return iter(self._data)

    def __len__(self):
        log("LRUCache.__len__")
        return len(self._data)

    def __contains__(self, key):
        log("LRUCache.__contains__")
        return key in self._data

    def __repr__(self):
        log("LRUCache.__repr__")
        return f"LRUCache({dict(self._data)!r}, maxsize={self.maxsize})"


def crash():
    cache = LRUCache(10)
    for key in "abc":
        cache[key] = ord(key)
    misses = 0
    state_at_exit(lambda: "order " + "".join(cache._data))
    return cache["a"] + cache["b"] / misses


crash_in(crash)
