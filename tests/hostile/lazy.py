"""Lazy proxies: a Django-style LazyObject that sets itself up on first use (its `__class__`
included), and a werkzeug-style LocalProxy that answers `__class__` by looking up its target."""

import operator

from kit import crash_in, log, state_at_exit

empty = object()


def new_method_proxy(func):
    def inner(self, *args):
        if self._wrapped is empty:
            self._setup()
        return func(self._wrapped, *args)
    return inner


class LazyObject:
    """django.utils.functional.LazyObject, abridged."""
    _wrapped = None

    def __init__(self):
        self._wrapped = empty

    __getattr__ = new_method_proxy(getattr)

    def __setattr__(self, name, value):
        if name == "_wrapped":
            self.__dict__["_wrapped"] = value
        else:
            if self._wrapped is empty:
                self._setup()
            setattr(self._wrapped, name, value)

    __class__ = property(new_method_proxy(operator.attrgetter("__class__")))
    __bool__ = new_method_proxy(bool)
    __dir__ = new_method_proxy(dir)
    __eq__ = new_method_proxy(operator.eq)
    __lt__ = new_method_proxy(operator.lt)
    __ne__ = new_method_proxy(operator.ne)
    __hash__ = new_method_proxy(hash)
    __getitem__ = new_method_proxy(operator.getitem)
    __iter__ = new_method_proxy(iter)
    __len__ = new_method_proxy(len)
    __contains__ = new_method_proxy(operator.contains)
    __str__ = new_method_proxy(str)


class Settings:
    DEBUG = False
    TIMEOUT = 30


class LazySettings(LazyObject):
    def _setup(self):
        log("LazySettings set up")
        self._wrapped = Settings()

    def __repr__(self):  # Django's: never sets up
        return "<LazySettings [Unevaluated]>" if self._wrapped is empty else "<LazySettings>"


class LocalProxy:
    """werkzeug.local.LocalProxy, abridged: every use looks up the current object."""
    __slots__ = ("_get_current",)

    def __init__(self, get_current):
        object.__setattr__(self, "_get_current", get_current)

    def _current(self):
        log("LocalProxy resolves")
        return object.__getattribute__(self, "_get_current")()

    @property
    def __class__(self):
        log("LocalProxy.__class__")
        try:
            return type(self._current())
        except RuntimeError:
            return type(self)

    def __getattr__(self, name):
        return getattr(self._current(), name)

    def __repr__(self):
        try:
            return repr(self._current())
        except RuntimeError:
            return f"<{type(self).__name__} unbound>"

    def __bool__(self):
        try:
            return bool(self._current())
        except RuntimeError:
            return False

    def __eq__(self, other):
        return self._current() == other

    def __hash__(self):
        return hash(self._current())

    def __len__(self):
        return len(self._current())

    def __iter__(self):
        return iter(self._current())

    def __dir__(self):
        return dir(self._current())

    def __str__(self):
        return str(self._current())


requests = []  # the request stack: empty outside a request


def top_request():
    if not requests:
        raise RuntimeError("Working outside of request context.")
    return requests[-1]


settings = LazySettings()
request = LocalProxy(top_request)


def crash():
    limits = {}
    return settings, request, limits["per_user"]


state_at_exit(lambda: f"settings set up: {settings.__dict__['_wrapped'] is not empty}")
crash_in(crash)
