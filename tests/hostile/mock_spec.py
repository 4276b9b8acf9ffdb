"""unittest.mock.Mock(spec=dict) in the frame: it passes isinstance(x, dict) and records every use."""

from unittest.mock import Mock

from kit import crash_in, state_at_exit


def crash():
    config = Mock(spec=dict)
    state_at_exit(lambda: f"mock calls {config.mock_calls!r} children {sorted(config._mock_children)!r}")
    return config.get("port") + 1


crash_in(crash)
