"""The investigation: the model drives the debugger through the command language, under a
grammar rebuilt from the live state each turn, then answers under the answer grammar.

Joins a crash session and a `Model`; knows nothing of how either works inside.
`prompt` says what the model reads, `seen` what it was shown, `conversation` holds the messages
and asks, `plan` says whether more work fits the budget, `loop` runs the turns, `strategies`
get the answer, `answer` turns a reply into a checked diagnosis, `search` tries small changes.
"""
