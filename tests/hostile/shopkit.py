"""Objects for the hostile-model suite that do harm when looked at: every dunder of a Tripwire
(and the overridden methods of subclasses of str, list and dict) appends to SANDBOX/tripped; a
Django-style lazy object sets itself up; a class blocks on `__module__`, an object on `__repr__`; a
registered codec search function trips too. They live in this module, not in the crashed frames,
so only a command that names them (`kit.tripwire == 1`) touches them."""

import codecs
import os
import socket
import sys
import threading

TRIPPED = os.path.join(sys.argv[1], "tripped")


def trip(what):
    with open(TRIPPED, "a") as f:
        f.write(what + "\n")


class Tripwire:
    def __eq__(self, other):
        trip("__eq__")
        return False

    def __hash__(self):
        trip("__hash__")
        return 1

    def __lt__(self, other):
        trip("__lt__")
        return False

    def __len__(self):
        trip("__len__")
        return 1

    def __iter__(self):
        trip("__iter__")
        return iter([1])

    def __getitem__(self, key):
        trip("__getitem__")
        return 1

    def __contains__(self, item):
        trip("__contains__")
        return False

    def __repr__(self):
        trip("__repr__")
        return "Tripwire()"

    def __str__(self):
        trip("__str__")
        return "tripwire"

    def __format__(self, spec):
        trip("__format__")
        return "tripwire"

    def __bool__(self):
        trip("__bool__")
        return True

    def __int__(self):
        trip("__int__")
        return 1

    def __index__(self):
        trip("__index__")
        return 1

    def __float__(self):
        trip("__float__")
        return 1.0

    def __dir__(self):
        trip("__dir__")
        return ["x"]

    def __add__(self, other):
        trip("__add__")
        return 1

    def __getattr__(self, name):
        trip(f"__getattr__ {name}")
        raise AttributeError(name)

    def __call__(self, *args):
        trip("__call__")


def tripping(base, names):
    def wrap(name):
        original = getattr(base, name)

        def method(self, *args, **kwargs):
            trip(f"{type(self).__name__}.{name}")
            return original(self, *args, **kwargs)
        return method
    return {name: wrap(name) for name in names}


class Label(str):
    locals().update(tripping(str, "__len__ __eq__ __hash__ __getitem__ __iter__ __contains__ __add__ __str__ "
                                  "__format__ upper split encode join replace startswith".split()))


class Tags(list):
    locals().update(tripping(list, "__iter__ __len__ __contains__ __getitem__ __eq__ count index copy".split()))


class Config(dict):
    locals().update(tripping(dict, "__getitem__ __iter__ __len__ __contains__ __eq__ get keys items values "
                                   "copy".split()))


class LazySettings:
    """Django-style: set up on first use, `__class__` included."""

    def __init__(self):
        self.__dict__["_wrapped"] = None

    def _setup(self):
        trip("LazySettings set up")
        self.__dict__["_wrapped"] = {"DEBUG": False}

    def _target(self):
        if self.__dict__["_wrapped"] is None:
            self._setup()
        return self.__dict__["_wrapped"]

    @property
    def __class__(self):
        return type(self._target())

    def __getattr__(self, name):
        return getattr(self._target(), name)

    def __repr__(self):
        return "<LazySettings [Unevaluated]>" if self.__dict__["_wrapped"] is None else "<LazySettings>"


HELD = threading.Lock()
HELD.acquire()  # never released


class Meta(type):
    @property
    def __module__(cls):
        HELD.acquire()
        return "never"


class Widget(metaclass=Meta):
    pass


_server = socket.socket()
_server.bind(("127.0.0.1", 0))
_server.listen(1)  # never accepts


class Slow:
    def __repr__(self):
        socket.create_connection(_server.getsockname()).recv(1)  # never answered
        return "Slow()"


def hostile_codec(name):
    if name == "hostile":
        trip("codec search")
    return None


codecs.register(hostile_codec)

tripwire = Tripwire()
label = Label("total")
tags = Tags(["a", "b"])
config = Config(port="8080")
settings = LazySettings()
widget = Widget()
slow = Slow()


def state():
    return {"settings set up": settings.__dict__["_wrapped"] is not None, "tags": list.__repr__(tags),
            "config": dict.__repr__(config)}
