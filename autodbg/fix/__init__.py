"""A proposed fix: which lines it replaces (`lines`), whether it is usable (`check`), and, under
`autodbg run`, whether the program runs without the crash once it is applied (`verify`)."""
