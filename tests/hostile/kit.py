"""Shared by the hostile-state victims: a log of every call the program's objects are asked, each
line tagged with the pid that asked (a probe is another pid; the crashed process is `start`'s), the
program's final state, and one way to crash: in the main thread, or with HOSTILE_MODE=thread in a
thread the program outlives (it goes on, prints, and exits by itself)."""

import atexit
import os
import socket
import threading

LOG = os.environ["HOSTILE_LOG"]


def log(event):
    """Append `PID EVENT` to the log. Never raises: a sandboxed probe may refuse the write."""
    try:
        with open(LOG, "a") as f:
            f.write(f"{os.getpid()} {event}\n")
    except BaseException:
        pass


def state_at_exit(describe):
    """Log `state DESCRIBE()` when the program exits, after any crash handling."""
    atexit.register(lambda: log("state " + describe()))


def crash_in(crash):
    """Crash with CRASH(); the last line of the log is `state exited` once the program has exited."""
    state_at_exit(lambda: "exited")  # registered first, so it runs last
    log("start")
    if os.environ.get("HOSTILE_MODE") == "thread":
        worker = threading.Thread(target=crash, name="victim")
        worker.start()
        worker.join()
        log("main goes on")
        print("main goes on", flush=True)
    else:
        crash()


# A server that never accepts: a connect lands in its backlog, and a read waits forever.
_server = socket.socket()
_server.bind(("127.0.0.1", 0))
_server.listen(1)


def block_on_socket():
    socket.create_connection(_server.getsockname()).recv(1)


# A lock the program holds and never releases.
HELD = threading.Lock()
HELD.acquire()


def block_on_lock():
    HELD.acquire()
