"""The victim of the hostile-model suite: `python shop.py SANDBOX PORT` crashes in checkout() with
frames that hold a file path, an open file, a socket, the os/subprocess/pathlib/shutil modules, the
program's own functions (some write SANDBOX/sentinel.txt, spawn, connect to PORT, loop, exit), a
generator, a dict and a list. At exit it prints its state as one `STATE {json}` line."""

import atexit
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time  # noqa: F401 (for commands: time.sleep)

import shopkit as kit

SANDBOX, PORT = sys.argv[1], int(sys.argv[2])
PID = os.getpid()
target = os.path.join(SANDBOX, "sentinel.txt")  # exists; the functions below write it
MARKER = os.path.join(SANDBOX, "spawned")  # any process spawned by the commands below creates it
TOUCH = f"touch {MARKER}"
SPAWN = [sys.executable, "-c", f"open({MARKER!r}, 'w').close()"]
log = open(os.path.join(SANDBOX, "log.txt"), "a")
sock = socket.socket()
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(1)  # never accepts
HELD = threading.Lock()
HELD.acquire()  # never released
d = {"k": "v", "n": 1}
items = [1, 2, 3]
signals = []


def on_usr1(signum, frame):
    signals.append("USR1")


signal.signal(signal.SIGUSR1, on_usr1)


def numbers():
    yield from range(100)


gen = numbers()
next(gen)


def parse(text):
    return [int(part) for part in text.split(",")]


class Cart:
    def __init__(self, lines):
        self.lines = lines

    def total(self):
        return sum(price for _, price in self.lines)

    def add(self, name, price):
        self.lines.append((name, price))

    def save(self):
        return save(json.dumps(self.lines))


def save(text):
    with open(target, "w") as f:
        f.write(text)
    return len(text)


def spawn():
    return subprocess.run(SPAWN).returncode


def phone_home():
    with socket.create_connection(("127.0.0.1", PORT)) as conn:
        conn.sendall(b"hello")
    return "sent"


def spin():
    while True:
        pass


def wait_forever():
    threading.Event().wait()


def recurse(n):
    return recurse(n + 1)


def bail():
    os._exit(7)


def leave():
    sys.exit(7)


def allocate():
    return bytearray(2_500_000_000)


def report_state():
    peer = None
    try:
        peer = sock.getpeername()
    except OSError as err:
        peer = err.__class__.__name__
    print("STATE " + json.dumps({
        "d": d, "items": items, "next": next(gen, "exhausted"), "cart": cart.lines, "signals": signals,
        "in program folder": os.getcwd() == os.path.dirname(os.path.abspath(__file__)),
        "argv": sys.argv[1:] == [SANDBOX, str(PORT)], "env": os.environ.get("HOSTILE_ENV"),
        "sock": [sock.fileno() >= 0, peer], "log": [log.closed, log.closed or log.tell()],
        "recursion limit": sys.getrecursionlimit(), "usr1 handler": signal.getsignal(signal.SIGUSR1) is on_usr1,
        "alarm": signal.getitimer(signal.ITIMER_REAL)[0] > 0, "kit": kit.state(),
    }, default=repr), flush=True)


atexit.register(report_state)
cart = Cart([("apple", 3), ("pear", 2)])


def checkout(cart, discount):
    f, s, sp, shell, paths, copy = log, sock, subprocess, os, pathlib, shutil  # noqa: F841 (for commands)
    return cart.total() / discount


checkout(cart, 0)
