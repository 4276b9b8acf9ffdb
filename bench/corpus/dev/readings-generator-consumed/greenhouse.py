"""Daily summary of the greenhouse temperature sensor from the logger's CSV export."""

import csv
from pathlib import Path


def read_readings(path, sensor):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return (float(row["celsius"]) for row in rows if row["sensor"] == sensor)


def summary(readings):
    count = sum(1 for _ in readings)
    mean = sum(readings) / count
    return count, round(mean, 1), max(readings)


count, mean, hottest = summary(read_readings(Path(__file__).with_name("readings.csv"), "greenhouse"))
print(f"{count} readings, mean {mean} C, max {hottest} C")
