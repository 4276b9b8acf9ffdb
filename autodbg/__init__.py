"""autodbg: a local model debugs your crashed Python program before it exits."""

__version__ = "0.1.0"
