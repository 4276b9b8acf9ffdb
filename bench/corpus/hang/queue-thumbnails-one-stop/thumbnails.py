"""Work out thumbnail sizes for the product photos with a small pool of worker threads: the main
thread queues the jobs, the workers compute and collect the results."""

import csv
import queue
import threading
from pathlib import Path

WORKERS = 3
BOX = 320  # thumbnails fit in a BOX x BOX square
STOP = None  # tells a worker there are no more jobs


def fit(width, height, box=BOX):
    scale = min(box / width, box / height, 1)
    return max(1, round(width * scale)), max(1, round(height * scale))


def worker(jobs, results, lock):
    while True:
        job = jobs.get()
        if job is STOP:
            return
        name, width, height = job
        size = fit(width, height)
        with lock:
            results[name] = size


def read_photos(path):
    with open(path, newline="", encoding="utf-8") as f:
        return [(row["file"], int(row["width"]), int(row["height"])) for row in csv.DictReader(f)]


def make_thumbnails(photos):
    jobs = queue.Queue()
    results = {}
    lock = threading.Lock()
    threads = [threading.Thread(target=worker, args=(jobs, results, lock), daemon=True)
               for _ in range(WORKERS)]
    for thread in threads:
        thread.start()
    for photo in photos:
        jobs.put(photo)
    jobs.put(STOP)
    for thread in threads:
        thread.join()
    return results


photos = read_photos(Path(__file__).with_name("photos.csv"))
sizes = make_thumbnails(photos)
for name, (width, height) in sorted(sizes.items()):
    print(f"{name}: {width}x{height}")
print(f"{len(sizes)} thumbnails with {WORKERS} workers")
