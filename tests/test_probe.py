"""The probe: a sandboxed fork that runs a function and sends back its value, under a deadline the
parent enforces. Real forks, real files, a real listener on 127.0.0.1."""

from __future__ import annotations

import ctypes
import faulthandler
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import pytest

from autodbg.probe.fork import available, run_in_probe
from autodbg.probe.sandbox import Limits, layers
from conftest import clean_env, run_py

pytestmark = pytest.mark.skipif(not available(), reason="no os.fork here")

ALL_LAYERS = ("session", "network namespace", "resource limits", "inherited descriptors", "system call filter",
              "unaudited functions", "audit hook")


def machine_gives(name: str) -> bool:
    return {layer.name: layer.available for layer in layers()}[name]


def probe(function, deadline: float = 5.0, **kwargs):
    return run_in_probe(function, deadline=deadline, **kwargs)


# --- values and every way a probe can end ----------------------------------------------------------

def test_value_comes_back_with_the_layers_entered():
    outcome = probe(lambda: {"sum": sum([1, 2, 3]), "items": ["a", None, 1.5]})
    assert outcome.status == "ok"
    assert outcome.value == {"sum": 6, "items": ["a", None, 1.5]}
    assert outcome.detail == ""
    assert 0 < outcome.seconds < 5
    given = tuple(layer.name for layer in layers() if layer.available)
    assert outcome.layers == given


def test_every_layer_is_described_and_layers_is_cheap():
    layers.cache_clear()
    start = time.perf_counter()
    found = layers()
    assert time.perf_counter() - start < 0.05
    assert tuple(layer.name for layer in found) == ALL_LAYERS
    assert all(layer.detail and "\n" not in layer.detail for layer in found)


def raise_(exc: BaseException):
    raise exc


def recurse():
    return recurse()


@pytest.mark.parametrize("function, detail", [
    (lambda: raise_(ValueError("bad value")), "ValueError: bad value"),
    (lambda: raise_(SystemExit(3)), "SystemExit: 3"),
    (lambda: sys.exit(), "SystemExit"),
    (lambda: raise_(KeyboardInterrupt()), "KeyboardInterrupt"),
    (recurse, "RecursionError: maximum recursion depth exceeded"),
    (lambda: raise_(ValueError("two\nlines")), "ValueError: two lines"),
    (lambda: bytearray(64 << 30), "MemoryError"),
    (lambda: object(), "TypeError: Object of type object is not JSON serializable"),
])
def test_exceptions_are_errors_with_one_line(function, detail):
    outcome = probe(function)
    assert (outcome.status, outcome.detail) == ("error", detail)


def test_an_exception_whose_str_fails_is_still_an_error():
    class Broken(Exception):
        def __str__(self):
            raise RuntimeError("no")
    assert probe(lambda: raise_(Broken())).detail == "Broken: <unprintable>"


@pytest.mark.parametrize("function, detail", [
    (lambda: os._exit(0), "probe died: exit 0"),
    (lambda: os._exit(7), "probe died: exit 7"),
    (faulthandler._sigsegv, "probe died: signal 11 (SIGSEGV)"),
    (os.abort, "probe died: signal 6 (SIGABRT)"),
])
def test_deaths_are_classified(function, detail):
    outcome = probe(function)
    assert (outcome.status, outcome.detail) == ("died", detail)


def test_reply_size_is_capped():
    outcome = probe(lambda: "x" * 5000, limits=Limits(reply_bytes=1000))
    assert outcome.status == "error"
    assert outcome.detail.startswith("reply too large: 50")
    assert probe(lambda: "x" * 900, limits=Limits(reply_bytes=1000)).value == "x" * 900


def stubborn_loop():
    while True:
        try:
            while True:
                pass
        except BaseException:  # noqa: BLE001 — what a hostile program does
            pass


def blocking_accept():
    listener = socket.socket()
    listener.listen()  # bound by the kernel to a free port: bind itself is refused
    listener.accept()


def lock_never_released():
    lock = threading.Lock()
    lock.acquire()
    lock.acquire()


@pytest.mark.parametrize("function", [stubborn_loop, blocking_accept, lambda: time.sleep(1e9),
                                      lock_never_released, lambda: [pair := socket.socketpair(), pair[0].recv(1)]],
                         ids=["loop catching BaseException", "accept", "sleep", "lock", "recv"])
def test_deadline_is_enforced_by_the_parent(function):
    outcome = probe(function, deadline=0.5)
    assert (outcome.status, outcome.detail) == ("timed out", "timed out after 0.5 s")
    assert 0.5 <= outcome.seconds < 1.0


def test_a_probe_that_closes_its_pipe_and_keeps_running_still_times_out():
    def close_everything_and_sleep():
        os.closerange(3, 1024)
        time.sleep(1e9)
    outcome = probe(close_everything_and_sleep, deadline=0.5)
    assert outcome.status == "timed out"
    assert outcome.seconds < 1.0


def children_of_this_process() -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat_line = pathlib.Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat_line.rpartition(")")[2].split()[1]) == os.getpid():
                found.append(int(entry))
    return found


def test_no_zombie_or_child_is_left_behind():
    for function, deadline in ((lambda: 1, 5), (lambda: os._exit(1), 5), (lambda: time.sleep(100), 0.2),
                               (faulthandler._sigsegv, 5), (stubborn_loop, 0.2)):
        probe(function, deadline=deadline)
    try:
        assert os.waitpid(-1, os.WNOHANG) == (0, 0)
    except ChildProcessError:
        pass
    if os.path.isdir("/proc"):
        assert children_of_this_process() == []


def test_parent_ignoring_sigchld_still_gets_the_value():
    previous = signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    try:
        assert probe(lambda: 41 + 1).value == 42
        assert probe(lambda: os._exit(3)).detail == "probe died: exit status unknown"
    finally:
        signal.signal(signal.SIGCHLD, previous)


# --- the parent is unchanged -------------------------------------------------------------------------

def test_objects_and_generators_of_the_parent_are_unchanged():
    items = [1, 2, 3]
    numbers = iter(range(10))
    next(numbers)

    def meddle():
        items.append(4)
        items[0] = 99
        return [next(numbers), next(numbers)]
    assert probe(meddle).value == [1, 2]
    assert items == [1, 2, 3]
    assert next(numbers) == 1


def test_parent_file_offset_is_unchanged(tmp_path):
    path = tmp_path / "data.txt"
    path.write_text("0123456789")
    with open(path, "rb", buffering=0) as data:
        data.read(2)

        def read_the_rest():
            os.lseek(data.fileno(), 0, os.SEEK_SET)
            return os.read(data.fileno(), 100).decode()
        assert probe(read_the_rest).value == ""  # the descriptor is /dev/null in the probe
        assert data.tell() == 2
        assert data.read() == b"23456789"


def test_interval_timer_and_signal_handlers_of_the_parent_survive():
    fired = []

    def on_alarm(signum, frame):
        fired.append(signum)
    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, 100)
    try:
        for meddle in (lambda: signal.setitimer(signal.ITIMER_REAL, 0), lambda: signal.alarm(0)):
            outcome = probe(meddle)
            assert outcome.status == "refused", outcome
        # A handler of the probe's own (asyncio.run sets one) is allowed: it touches the probe alone.
        outcome = probe(lambda: signal.signal(signal.SIGALRM, signal.SIG_IGN) is on_alarm)
        assert outcome.status == "ok" and outcome.value is True, outcome
        assert 99 < signal.getitimer(signal.ITIMER_REAL)[0] <= 100
        assert signal.getsignal(signal.SIGALRM) is on_alarm
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert fired == []


def test_probe_from_a_thread_while_another_thread_runs():
    stop = threading.Event()
    busy = threading.Thread(target=lambda: [None for _ in iter(lambda: stop.is_set(), True)])
    busy.start()
    results = []
    caller = threading.Thread(target=lambda: results.append(probe(lambda: threading.current_thread().name)))
    try:
        caller.start()
        caller.join(10)
    finally:
        stop.set()
        busy.join()
    assert [(r.status, r.value) for r in results] == [("ok", caller.name)]


PRINTING_PARENT = '''\
import os, sys, threading, time, warnings
warnings.simplefilter("always")
from autodbg.probe.fork import run_in_probe
print("before", end=" ")  # still in the stdout buffer when the probe forks
sys.stderr.write("err-before ")
stop = threading.Event()
threading.Thread(target=stop.wait).start()  # 3.12+ warns about fork with threads

def noisy():
    print("probe out")
    print("probe err", file=sys.stderr)
    sys.__stdout__.write("dunder out")
    os.write(1, b"raw out")
    os.write(2, b"raw err")
    sys.stdout.flush()
    return "quiet"

outcome = run_in_probe(noisy, deadline=5)
stop.set()
print(outcome.status, outcome.value)
'''


def test_probe_output_never_reaches_the_parents_stdout_or_stderr(tmp_path):
    (tmp_path / "parent.py").write_text(PRINTING_PARENT)
    done = run_py([str(tmp_path / "parent.py")], cwd=tmp_path, env=clean_env())
    assert (done.returncode, done.stdout, done.stderr) == (0, "before ok quiet\n", "err-before ")


@pytest.mark.slow
def test_probe_dies_with_its_parent(tmp_path):
    script = tmp_path / "parent.py"
    script.write_text(
        "import os, threading, time, pathlib\n"
        "from autodbg.probe.fork import run_in_probe\n"
        "threading.Thread(target=run_in_probe, args=(lambda: time.sleep(1e9),), kwargs={'deadline': 100}).start()\n"
        "time.sleep(0.5)\n"
        "kids = [p for p in os.listdir('/proc') if p.isdigit() and\n"
        "        pathlib.Path(f'/proc/{p}/stat').read_text().rpartition(')')[2].split()[1] == str(os.getpid())]\n"
        "print(*kids, flush=True)\n"
        "os._exit(0)\n")
    done = run_py([str(script)], env=clean_env())
    kids = [int(pid) for pid in done.stdout.split()]
    assert len(kids) == 1, done
    time.sleep(0.5)
    still_alive = alive(kids[0])
    if still_alive:
        os.kill(kids[0], signal.SIGKILL)
    if "killed when its parent dies" not in {layer.name: layer.detail for layer in layers()}["session"]:
        pytest.skip("no PR_SET_PDEATHSIG here")
    assert not still_alive


def alive(pid: int) -> bool:
    try:
        state = pathlib.Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


# --- the sandbox: files ------------------------------------------------------------------------------

def snapshot(root: pathlib.Path) -> dict[str, tuple]:
    return {str(p.relative_to(root)): (p.is_dir(), p.stat().st_size, p.stat().st_mode,
                                       p.stat().st_mtime_ns, None if p.is_dir() else p.read_bytes())
            for p in sorted(root.rglob("*"))}


FILE_WRITES = {
    "open w": lambda d: open(d / "new.txt", "w"),
    "open a": lambda d: open(d / "kept.txt", "a"),
    "open x": lambda d: open(d / "new.txt", "x"),
    "open r+": lambda d: open(d / "kept.txt", "r+"),
    "open wb": lambda d: open(d / "kept.txt", "wb"),
    "pathlib write_text": lambda d: (d / "kept.txt").write_text("gone"),
    "os.open O_CREAT": lambda d: os.open(d / "new.txt", os.O_CREAT | os.O_RDONLY),
    "os.open O_TRUNC": lambda d: os.open(d / "kept.txt", os.O_TRUNC | os.O_RDONLY),
    "os.remove": lambda d: os.remove(d / "kept.txt"),
    "os.rename": lambda d: os.rename(d / "kept.txt", d / "moved.txt"),
    "os.replace": lambda d: os.replace(d / "kept.txt", d / "moved.txt"),
    "os.mkdir": lambda d: os.mkdir(d / "newdir"),
    "os.rmdir": lambda d: os.rmdir(d / "sub"),
    "os.chmod": lambda d: os.chmod(d / "kept.txt", 0o777),
    "os.utime": lambda d: os.utime(d / "kept.txt", (0, 0)),
    "os.truncate": lambda d: os.truncate(d / "kept.txt", 0),
    "os.symlink": lambda d: os.symlink(d / "kept.txt", d / "link"),
    "os.link": lambda d: os.link(d / "kept.txt", d / "hard"),
    "os.mkfifo": lambda d: os.mkfifo(d / "fifo"),
    "shutil.copy": lambda d: shutil.copy(d / "kept.txt", d / "copy.txt"),
    "shutil.rmtree": lambda d: shutil.rmtree(d / "sub"),
    "shutil.move": lambda d: shutil.move(str(d / "kept.txt"), str(d / "sub")),
    "tempfile": lambda d: __import__("tempfile").mkstemp(dir=d),
}


@pytest.mark.parametrize("name", FILE_WRITES)
def test_file_writes_are_refused_and_the_file_system_is_unchanged(tmp_path, name):
    (tmp_path / "kept.txt").write_text("kept")
    (tmp_path / "sub").mkdir()
    before = snapshot(tmp_path)
    outcome = probe(lambda: FILE_WRITES[name](tmp_path))
    assert outcome.status == "refused", outcome
    assert outcome.detail.startswith("refused by the sandbox: ")
    assert snapshot(tmp_path) == before


def test_reads_stay_allowed_in_the_programs_folders_only(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the program's working directory
    (tmp_path / "config.ini").write_text("[a]\nb = 1\n")
    assert probe(lambda: (tmp_path / "config.ini").read_text()).value == "[a]\nb = 1\n"
    assert probe(lambda: sorted(os.listdir(tmp_path))).value == ["config.ini"]
    assert probe(lambda: json.__file__ and open(json.__file__).read(10)).status == "ok"  # its libraries
    outside = probe(lambda: open("/etc/passwd").read())
    assert outside.status == "refused"
    assert outside.detail == "refused by the sandbox: open('/etc/passwd'): outside the program and its libraries"


def test_a_refusal_wrapped_by_program_code_is_still_refused():
    with tempfile.TemporaryDirectory(prefix="w") as folder:  # short: the detail cuts a long argument
        def save():
            try:
                open(os.path.join(folder, "out.txt"), "w")
            except OSError as exc:
                raise RuntimeError("could not save") from exc
        outcome = probe(save)
    assert outcome.status == "refused"
    assert outcome.detail == f"refused by the sandbox: open({os.path.join(folder, 'out.txt')!r}, 'w')"


def test_inherited_write_descriptor_cannot_grow_the_file(tmp_path):
    path = tmp_path / "log.txt"
    with open(path, "ab", buffering=0) as log:
        log.write(b"parent ")

        def write_through_it():
            os.write(log.fileno(), b"probe")
            log.write(b"probe")
            return "written"
        assert probe(write_through_it).status == "ok"  # into /dev/null
        log.write(b"again")
    assert path.read_bytes() == b"parent again"


def test_file_size_limit_stops_writes_below_the_audit_hook():
    if not hasattr(os, "memfd_create"):
        pytest.skip("no memfd_create: no way to get a writable regular file past the audit hook")

    def write_a_file_the_hook_never_saw():
        fd = os.memfd_create("scratch")  # a regular file, and no audit event
        try:
            os.write(fd, b"x")
        except OSError as exc:
            return exc.errno
        return "written"
    import errno
    assert probe(write_a_file_the_hook_never_saw).value == errno.EFBIG


def test_terminals_and_fifos_cannot_be_opened(tmp_path):
    master, slave = os.openpty()
    terminal = os.ttyname(slave)
    os.mkfifo(tmp_path / "fifo")
    try:
        outcome = probe(lambda: open(terminal).read(1))
        assert outcome.status == "refused"
        assert outcome.detail == f"refused by the sandbox: open({terminal!r}): a terminal, device or FIFO"
        assert probe(lambda: open(tmp_path / "fifo").read()).status == "refused"
        assert probe(lambda: open(os.devnull).read()).value == ""
    finally:
        os.close(master)
        os.close(slave)


# --- the sandbox: network ----------------------------------------------------------------------------

@pytest.fixture
def listener():
    server = socket.create_server(("127.0.0.1", 0))
    server.setblocking(False)
    yield server
    server.close()


def saw_a_connection(server: socket.socket) -> bool:
    time.sleep(0.1)
    try:
        server.accept()[0].close()
    except BlockingIOError:
        return False
    return True


@pytest.mark.parametrize("attempt", [
    lambda port: socket.create_connection(("127.0.0.1", port), timeout=1),
    lambda port: socket.socket().connect(("127.0.0.1", port)),
    lambda port: socket.socket().connect_ex(("127.0.0.1", port)),
    lambda port: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", port)),
    lambda port: __import__("urllib.request").request.urlopen(f"http://127.0.0.1:{port}/", timeout=1),
], ids=["create_connection", "connect", "connect_ex", "sendto", "urlopen"])
def test_connections_are_refused_and_the_listener_sees_none(listener, attempt):
    port = listener.getsockname()[1]  # not in the probe: there the listener's descriptor is /dev/null
    outcome = probe(lambda: attempt(port))
    assert outcome.status == "refused", outcome
    assert not saw_a_connection(listener)


def test_the_listener_does_see_a_connection_from_the_test_itself(listener):
    socket.create_connection(listener.getsockname()).close()  # the check above can fail
    assert saw_a_connection(listener)


@pytest.mark.parametrize("lookup", [
    lambda: socket.getaddrinfo("localhost", 80),
    lambda: socket.gethostbyname("localhost"),
    lambda: socket.gethostbyaddr("127.0.0.1"),
    lambda: socket.socket().bind(("127.0.0.1", 0)),
    lambda: socket.sethostname("probe"),
])
def test_name_resolution_and_bind_are_refused(lookup):
    assert probe(lookup).status == "refused"


def test_inherited_socket_cannot_send(listener):
    client = socket.create_connection(listener.getsockname())
    time.sleep(0.05)
    accepted, _ = listener.accept()
    try:
        outcome = probe(lambda: client.send(b"from the probe"))
        assert outcome.status == "error"  # the descriptor is /dev/null: not a socket
        accepted.setblocking(False)
        with pytest.raises(BlockingIOError):
            accepted.recv(100)
    finally:
        client.close()
        accepted.close()


def test_network_namespace_has_only_loopback():
    if not machine_gives("network namespace"):
        detail = {layer.name: layer.detail for layer in layers()}["network namespace"]
        assert detail.startswith("unavailable: ")
        pytest.skip(f"the kernel gives no network namespace here: {detail}")
    def interfaces():  # /proc/net/dev lists the interfaces of the reader's network namespace
        lines = pathlib.Path("/proc/net/dev").read_text().splitlines()[2:]
        return [line.split(":")[0].strip() for line in lines]
    assert len(interfaces()) > 1
    assert probe(interfaces).value == ["lo"]


# --- the sandbox: processes, ctypes, hooks --------------------------------------------------------------

@pytest.mark.parametrize("attempt", [
    lambda: subprocess.run(["true"]),
    lambda: os.system("true"),
    lambda: os.fork(),
    lambda: os.posix_spawn("/bin/true", ["true"], {}),
    lambda: os.execv("/bin/true", ["true"]),
    lambda: os.spawnv(os.P_WAIT, "/bin/true", ["true"]),
    lambda: __import__("_posixsubprocess").fork_exec(),
    lambda: __import__("resource").setrlimit(__import__("resource").RLIMIT_FSIZE, (1 << 20, 1 << 20)),
], ids=["subprocess", "system", "fork", "posix_spawn", "exec", "spawnv", "fork_exec", "setrlimit"])
def test_processes_are_refused(attempt):
    outcome = probe(attempt)
    assert outcome.status == "refused", outcome


def test_signals_to_the_parent_are_refused():
    got = []
    previous = signal.signal(signal.SIGUSR1, lambda *a: got.append(a[0]))
    try:
        parent = os.getpid()
        for attempt in (lambda: os.kill(parent, signal.SIGUSR1), lambda: os.killpg(os.getpgid(parent), signal.SIGUSR1),
                        lambda: signal.pthread_kill(threading.main_thread().ident, signal.SIGUSR1)):
            assert probe(attempt).status == "refused"
        time.sleep(0.1)
        assert got == []
    finally:
        signal.signal(signal.SIGUSR1, previous)


@pytest.mark.parametrize("attempt", [
    lambda: ctypes.CDLL(None),
    lambda: ctypes.CDLL(None, use_errno=True).getpid(),
    lambda: ctypes.memmove(ctypes.create_string_buffer(4), b"abcd", 4),
    lambda: ctypes.string_at(id(1), 8),
    lambda: ctypes.c_int.from_address(id(1)),
], ids=["dlopen", "call", "memmove", "string_at", "from_address"])
def test_ctypes_is_refused(attempt):
    outcome = probe(attempt)
    assert outcome.status == "refused", outcome


def test_a_fresh_signal_module_is_refused():
    assert probe(lambda: (sys.modules.pop("_signal"), __import__("_signal"))).status == "refused"


def test_a_further_audit_hook_is_never_added():
    def add_a_hook():
        seen = []
        sys.addaudithook(lambda event, args: seen.append(event))  # Python drops our refusal silently
        sys.audit("probe.test")
        return seen
    assert probe(add_a_hook).value == []


def test_ordinary_allocations_fit_under_the_address_space_limit():
    assert probe(lambda: len(bytearray(256 << 20))).value == 256 << 20


def test_creating_a_file_with_os_open_names_the_flags(tmp_path):
    outcome = probe(lambda: os.open(tmp_path / "new", os.O_CREAT | os.O_WRONLY))
    assert outcome.detail == f"refused by the sandbox: open({str(tmp_path / 'new')!r}, O_WRONLY|O_CREAT)"


def test_an_exception_in_the_parent_while_waiting_still_ends_the_probe():
    def interrupt(signum, frame):
        raise KeyboardInterrupt
    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.2)
    try:
        with pytest.raises(KeyboardInterrupt):
            probe(lambda: time.sleep(100), deadline=10)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert children_of_this_process() == []


def test_a_module_never_imported_before_imports_without_writing_its_bytecode(tmp_path):
    (tmp_path / "fresh_module_for_probe.py").write_text("ANSWER = 42\n")
    sys.path.insert(0, str(tmp_path))
    try:
        def import_it():
            sys.dont_write_bytecode = False  # PYTHONDONTWRITEBYTECODE may be set around the tests
            return __import__("fresh_module_for_probe").ANSWER
        assert probe(import_it).value == 42
    finally:
        sys.path.remove(str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh_module_for_probe.py"]


HOOKED_PARENT = '''\
import sys
def program_hook(event, args):
    if event in sys.argv[1:]:
        raise RuntimeError("the program refuses " + event)
sys.addaudithook(program_hook)
from autodbg.probe.fork import run_in_probe
outcome = run_in_probe(lambda: 6 * 7, deadline=5)
print(outcome.status, outcome.value, outcome.detail, "session" in outcome.layers)
'''


@pytest.mark.parametrize("refused, printed", [
    # no ctypes: no system call filter, so no program code runs
    ("ctypes.dlopen", "refused None probes off: the sandbox could not be installed (system call filter skipped: "
                      "no ctypes/prctl to load the filter with) True"),
    ("os.fork", "died None probe could not start: the program refuses os.fork False"),
])
def test_a_program_with_its_own_audit_hook(tmp_path, refused, printed):
    (tmp_path / "parent.py").write_text(HOOKED_PARENT)
    done = run_py([str(tmp_path / "parent.py"), refused], env=clean_env())
    assert (done.stdout, done.stderr) == (printed + "\n", "")


# --- the system call filter: what the audit hook cannot see -------------------------------------------

@pytest.fixture
def resolved_libc():
    """libc functions the program resolved before the crash: calling them raises no audit event."""
    if not machine_gives("system call filter"):
        detail = {layer.name: layer.detail for layer in layers()}["system call filter"]
        pytest.skip(f"no system call filter here: {detail}")
    libc = ctypes.CDLL(None, use_errno=True)
    return {name: libc[name] for name in ("unlink", "mkdir", "rename", "open", "kill", "fork", "chmod")}


def test_prepared_ctypes_calls_are_refused_by_the_kernel(tmp_path, resolved_libc):
    (tmp_path / "kept.txt").write_text("kept")
    before = snapshot(tmp_path)
    c = resolved_libc
    kept, parent = bytes(tmp_path / "kept.txt"), os.getpid()
    attempts = {
        "unlink": lambda: c["unlink"](kept),
        "mkdir": lambda: c["mkdir"](bytes(tmp_path / "new"), 0o755),
        "rename": lambda: c["rename"](kept, bytes(tmp_path / "moved")),
        "open O_CREAT": lambda: c["open"](bytes(tmp_path / "new.txt"), os.O_WRONLY | os.O_CREAT, 0o644),
        "chmod": lambda: c["chmod"](kept, 0o777),
        "kill parent": lambda: c["kill"](parent, 0),
        "fork": lambda: c["fork"](),
    }
    results = {name: probe(attempt) for name, attempt in attempts.items()}
    assert {name: (r.status, r.value) for name, r in results.items()} == {name: ("ok", -1) for name in attempts}
    assert snapshot(tmp_path) == before


def test_pty_fork_finds_neither_forkpty_nor_a_terminal():
    outcome = probe(lambda: __import__("pty").fork())
    assert (outcome.status, outcome.detail) == ("error", "OSError: out of pty devices")


def test_threads_still_start_in_the_probe_as_root():
    if os.geteuid() != 0:
        pytest.skip("RLIMIT_NPROC 0 stops threads too, except for root")

    def in_a_thread():
        found = []
        worker = threading.Thread(target=lambda: found.append(threading.get_ident()))
        worker.start()
        worker.join()
        return len(found)
    assert probe(in_a_thread).value == 1
