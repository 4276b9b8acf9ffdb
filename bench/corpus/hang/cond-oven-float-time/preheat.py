"""Simulate the bakery's oven preheating, in small time steps, to print when it reaches each
recipe's baking temperature, how hot it is after the preheat time on the recipe, and when to
switch it on so that it is ready at the planned baking time."""

import math

ROOM = 20.0  # degrees C
HEATER = 250.0  # the temperature the element drives the oven towards
RATE = 0.12  # per minute: how fast the oven closes the gap to HEATER
STEP = 0.1  # minutes per simulation step

RECIPES = [
    # name, baking temperature (C), preheat minutes on the recipe, planned start of baking
    ("sourdough", 230, 15, "07:30"),
    ("shortbread", 160, 10, "10:00"),
    ("roast", 200, 12, "17:45"),
]


def preheat(target, minutes, step=STEP):
    """(minute the oven first reaches TARGET or None, temperature after MINUTES)."""
    temp = ROOM
    elapsed = 0.0
    reached = None
    while elapsed != minutes:
        temp += (HEATER - temp) * RATE * step
        elapsed += step
        if reached is None and temp >= target:
            reached = elapsed
    return reached, temp


def switch_on_time(bake_at, minutes):
    """The clock time MINUTES (rounded up) before BAKE_AT, both "HH:MM"."""
    hours, mins = map(int, bake_at.split(":"))
    start = hours * 60 + mins - math.ceil(minutes)
    return f"{start // 60:02d}:{start % 60:02d}"


def plan(name, target, minutes, bake_at):
    reached, temp = preheat(target, minutes)
    when = f"after {reached:.1f} min" if reached is not None else "not within the preheat time"
    switch_on = switch_on_time(bake_at, reached if reached is not None else minutes)
    print(f"{name}: {target} C {when}; {temp:.0f} C after {minutes} min; switch on at {switch_on}")
    return reached is not None


too_cold = [recipe[0] for recipe in RECIPES if not plan(*recipe)]
print(f"{len(too_cold)} recipes need a longer preheat: {', '.join(too_cold) or 'none'}")
