"""The version of autodbg (its own module, so that nothing has to import the package for it)."""

__version__ = "0.1.0"
