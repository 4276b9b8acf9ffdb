"""A class whose metaclass `__module__` property blocks on a lock the program never releases."""

from kit import block_on_lock, crash_in, log


class Meta(type):
    @property
    def __module__(cls):
        log("Meta.__module__ blocks")
        block_on_lock()
        return "never"


class Widget(metaclass=Meta):
    pass


def crash():
    kind = Widget
    widget = Widget()
    sizes = {}
    return kind, widget, sizes["width"]


crash_in(crash)
