"""A small text buffer with undo, replaying an editing session recorded by the UI tests."""

REVERSIBLE = {"delete", "replace"}

SESSION = [
    ("insert", 0, "Hello world"),
    ("replace", "world", "there"),
    ("undo",),
    ("insert", 11, "!"),
    ("delete", 0, 6),
    ("undo",),
    ("undo",),
]


class Buffer:
    def __init__(self):
        self.text = ""
        self.history = []

    def apply(self, command, *args):
        before = self.text
        getattr(self, command)(*args)
        if command in REVERSIBLE:
            self.history.append(before)

    def insert(self, position, chunk):
        self.text = self.text[:position] + chunk + self.text[position:]

    def delete(self, start, end):
        self.text = self.text[:start] + self.text[end:]

    def replace(self, old, new):
        self.text = self.text.replace(old, new)

    def undo(self):
        self.text = self.history.pop()


buffer = Buffer()
for step in SESSION:
    buffer.apply(*step)
    print(f"{step[0]:<8} {buffer.text!r}")
print(f"final text: {buffer.text!r}")
