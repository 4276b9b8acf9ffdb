"""How many requests did the shop get in each hour of the afternoon, and how many of them failed?
Reads the day's access log, whose lines are in time order, and finds each hour's first and last
request by binary search."""

from pathlib import Path


def seconds(hhmmss):
    h, m, s = map(int, hhmmss.split(":"))
    return h * 3600 + m * 60 + s


def read_log(path):
    """(times in seconds since midnight, HTTP statuses), in log order."""
    times, statuses = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                clock, _method, _path, status = line.split()
                times.append(seconds(clock))
                statuses.append(int(status))
    return times, statuses


def first_at_or_after(times, t):
    """Index of the first entry of the sorted list TIMES that is >= T (len(times) if none)."""
    lo, hi = 0, len(times)
    while lo <= hi:
        mid = (lo + hi) // 2
        if times[mid] < t:
            lo = mid + 1
        else:
            hi = mid
    return lo


def hour_slice(times, hour):
    return slice(first_at_or_after(times, hour * 3600), first_at_or_after(times, (hour + 1) * 3600))


times, statuses = read_log(Path(__file__).with_name("access.log"))
busiest = None
for hour in range(12, 18):
    in_hour = statuses[hour_slice(times, hour)]
    failed = sum(1 for status in in_hour if status >= 400)
    print(f"{hour:02d}:00-{hour + 1:02d}:00  {len(in_hour):3d} requests, {failed} failed")
    if busiest is None or len(in_hour) > busiest[1]:
        busiest = (hour, len(in_hour))
print(f"busiest afternoon hour: {busiest[0]:02d}:00 with {busiest[1]} requests")
