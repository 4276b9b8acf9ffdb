"""Add up quantities written in recipe notes, like "2 kg + 300 g", in grams."""

GRAMS = {"mg": 0.001, "g": 1, "kg": 1000}


def tokenize(text):
    tokens = []
    pos = 0
    while pos < len(text):
        char = text[pos]
        if char.isspace():
            pos += 1
        elif char.isdigit():
            start = pos
            while pos < len(text) and text[pos].isdigit():
                pos += 1
            tokens.append(("number", float(text[start:pos])))
        elif char.isalpha():
            start = pos
            while pos < len(text) and text[pos].isalpha():
                pos += 1
            tokens.append(("unit", text[start:pos]))
        elif char == "+":
            tokens.append(("plus", char))
            pos += 1
    return tokens


def total_grams(text):
    total = 0.0
    amount = None
    for kind, value in tokenize(text):
        if kind == "number":
            amount = value
        elif kind == "unit":
            total += amount * GRAMS[value]
    return total


for note in ["300 g + 2 kg", "2.5 kg + 250 g"]:
    print(f"{note} = {total_grams(note):g} g")
