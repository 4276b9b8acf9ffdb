"""A local whose `__repr__` blocks on a lock the program never releases."""

from kit import block_on_lock, crash_in, log


class Account:
    def __repr__(self):
        log("Account.__repr__ blocks")
        block_on_lock()
        return "Account()"


def crash():
    account = Account()
    balances = {}
    return account, balances["owner"]


crash_in(crash)
