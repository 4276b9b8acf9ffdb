"""Stock take: compare the counts the staff wrote down with the numbers the system holds."""

SYSTEM_STOCK = {"A100": 12, "A200": 40, "B310": 7, "C020": 3}

COUNT_SHEET = """\
# sku   counted
A100    10
A200    40
B310    9
"""


def parse_count_sheet(text):
    counts = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        sku, counted = line.split()
        counts[sku] = counted
    return counts


def differences(system, counted):
    return {sku: counted.get(sku, 0) - expected for sku, expected in system.items()}


def report(system, sheet):
    for sku, difference in sorted(differences(system, parse_count_sheet(sheet)).items()):
        if difference:
            print(f"{sku}: {difference:+d}")


report(SYSTEM_STOCK, COUNT_SHEET)
