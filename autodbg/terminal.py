"""Whether a stream is a terminal, asked safely (stdlib only: the start-up hook uses it)."""


def is_tty(stream) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError, OSError):  # a replaced or closed stream
        return False
