"""Print shipping labels for the picked orders on the warehouse label printer. The printer is
often busy for a moment; a label that still cannot be printed after a few tries goes on the list
for the manual desk."""

import csv
import time
from pathlib import Path

MAX_ATTEMPTS = 3
WAIT = 0.01  # seconds, times the attempt number


class PrinterBusy(Exception):
    pass


class LabelPrinter:
    """Stands in for the network label printer. It refuses labels over its weight class limit
    with a "busy" status, which is how the cheap ones report any error."""

    MAX_KG = 30

    def __init__(self):
        self.printed = []

    def send(self, label):
        if label["weight_kg"] > self.MAX_KG:
            raise PrinterBusy("status 0x12")
        self.printed.append(label["order"])


def print_label(printer, label):
    """True when LABEL was printed, False when it is left for the manual desk."""
    while True:
        attempts = 0
        try:
            printer.send(label)
            return True
        except PrinterBusy:
            attempts += 1
            if attempts == MAX_ATTEMPTS:
                return False
            time.sleep(WAIT * attempts)


def read_labels(path):
    with open(path, newline="", encoding="utf-8") as f:
        return [{"order": int(row["order"]), "to": f"{row['name']}, {row['street']}, {row['city']}",
                 "weight_kg": float(row["weight_kg"])} for row in csv.DictReader(f)]


printer = LabelPrinter()
manual = [label["order"] for label in read_labels(Path(__file__).with_name("picked.csv"))
          if not print_label(printer, label)]
print(f"printed {len(printer.printed)} labels")
print(f"for the manual desk: {', '.join(map(str, manual)) or 'none'}")
