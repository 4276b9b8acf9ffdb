"""Objects that log every protocol method anyone asks of them (the log is a file each call
writes: __eq__ included); the failing line and the frame name them."""

from kit import crash_in, log


def note(obj, what):
    log(f"{object.__getattribute__(obj, '_name')} {what}")


class SpyMeta(type):
    def __instancecheck__(cls, obj):
        log(f"SpyMeta.__instancecheck__ {cls.__name__}")
        return type.__instancecheck__(cls, obj)

    def __subclasscheck__(cls, sub):
        log(f"SpyMeta.__subclasscheck__ {cls.__name__}")
        return type.__subclasscheck__(cls, sub)


class Spy(metaclass=SpyMeta):
    def __init__(self, name):
        object.__setattr__(self, "_name", name)

    def __getattribute__(self, attr):
        note(self, f"__getattribute__ {attr}")
        return object.__getattribute__(self, attr)

    def __getattr__(self, attr):
        note(self, f"__getattr__ {attr}")
        raise AttributeError(attr)

    def __setattr__(self, attr, value):
        note(self, f"__setattr__ {attr}")

    def __delattr__(self, attr):
        note(self, f"__delattr__ {attr}")

    @property
    def __class__(self):
        note(self, "__class__")
        return Spy

    def __eq__(self, other):
        note(self, "__eq__")
        return False

    def __ne__(self, other):
        note(self, "__ne__")
        return True

    def __lt__(self, other):
        note(self, "__lt__")
        return False

    def __hash__(self):
        note(self, "__hash__")
        return 7

    def __len__(self):
        note(self, "__len__")
        return 2

    def __length_hint__(self):
        note(self, "__length_hint__")
        return 2

    def __iter__(self):
        note(self, "__iter__")
        return iter([1, 2])

    def __reversed__(self):
        note(self, "__reversed__")
        return iter([2, 1])

    def __getitem__(self, key):
        note(self, "__getitem__")
        return 1

    def __contains__(self, item):
        note(self, "__contains__")
        return False

    def __repr__(self):
        note(self, "__repr__")
        return f"Spy({object.__getattribute__(self, '_name')})"

    def __str__(self):
        note(self, "__str__")
        return "spy"

    def __format__(self, spec):
        note(self, "__format__")
        return "spy"

    def __bool__(self):
        note(self, "__bool__")
        return True

    def __dir__(self):
        note(self, "__dir__")
        return ["weight"]

    def __index__(self):
        note(self, "__index__")
        return 1

    def __int__(self):
        note(self, "__int__")
        return 1

    def __float__(self):
        note(self, "__float__")
        return 1.0

    def __sizeof__(self):
        note(self, "__sizeof__")
        return 64

    def __reduce_ex__(self, protocol):
        note(self, "__reduce_ex__")
        raise TypeError("a Spy cannot be pickled")

    def __copy__(self):
        note(self, "__copy__")
        return self

    def __deepcopy__(self, memo):
        note(self, "__deepcopy__")
        return self

    def __call__(self, *args, **kwargs):
        note(self, "__call__")

    def __fspath__(self):
        note(self, "__fspath__")
        return "spy"

    def __add__(self, other):
        note(self, "__add__")
        return 1

    __radd__ = __add__


def spied(base, names):
    """Methods of BASE that log their call first, for a subclass of a built-in container."""
    def wrap(name):
        original = getattr(base, name)

        def method(self, *args, **kwargs):
            log(f"{type(self).__name__} {name}")
            return original(self, *args, **kwargs)
        return method
    return {name: wrap(name) for name in names}


class SpyDict(dict):
    locals().update(spied(dict, "__getitem__ __iter__ __len__ __contains__ __eq__ __hash__ __repr__ keys values "
                                "items get copy __or__".split()))


class SpyList(list):
    locals().update(spied(list, "__getitem__ __iter__ __len__ __contains__ __eq__ __repr__ __reversed__ count "
                                "index copy __add__ __mul__".split()))


class SpyStr(str):
    locals().update(spied(str, "__getitem__ __iter__ __len__ __contains__ __eq__ __hash__ __repr__ __str__ "
                               "__format__ __add__ __mod__ upper lower split strip encode startswith join "
                               "replace".split()))


def crash():
    spy = Spy("spy")
    config = SpyDict(port="8080", host="db")
    names = SpyList(["ann", "bob"])
    label = SpyStr("total")
    nested = {"inner": Spy("nested"), "listed": [Spy("listed")], Spy("key"): 1}
    zero = 0
    return spy, config["port"], names[0], label.upper(), nested["inner"], 1 / zero


crash_in(crash)
