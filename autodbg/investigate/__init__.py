"""The investigation: the model drives the debugger through the command language, under a
grammar rebuilt from the live state each turn, then answers under the answer grammar.

Joins a debugger session and a `Model`; knows nothing of how either works inside.
`prompt` says what the model reads, `loop` runs the turns, `answer` turns its answer into a
checked diagnosis.
"""
