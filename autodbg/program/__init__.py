"""The program autodbg debugs: running it as `python` would (`target`), and running it again,
stopped at breakpoints, in a traced child process (`rerun` in the parent, `tracer` in the child)."""
