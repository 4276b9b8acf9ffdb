"""A local whose `__class__` property blocks: it asks a server that never answers."""

from kit import block_on_socket, crash_in, log


class Remote:
    @property
    def __class__(self):
        log("Remote.__class__ blocks")
        block_on_socket()
        return Remote


def crash():
    remote = Remote()
    retries = {}
    return remote, retries["left"]


crash_in(crash)
