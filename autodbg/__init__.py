"""autodbg: a local model debugs your crashed Python program before it exits.

PYTEST_DONT_REWRITE: the start-up hook imports this package before pytest loads the plugin; there
are no asserts to rewrite, and pytest must not warn about it in every run.
"""

def __getattr__(name: str):
    # The start-up hook imports this package in every interpreter: it must import nothing more.
    if name == "__version__":
        from autodbg.version import __version__
        return __version__
    raise AttributeError(f"module 'autodbg' has no attribute {name!r}")


def load_ipython_extension(ipython) -> None:
    """`%load_ext autodbg` (autodbg.entry.ipython)."""
    from autodbg.entry import ipython as extension

    extension.load(ipython)


def unload_ipython_extension(ipython) -> None:
    from autodbg.entry import ipython as extension

    extension.unload(ipython)
