"""Hostile commands (from a model or a person) through `autodbg run -i`, and hostile model-written
fixes through the fix verification path: each one is contained.

Every command runs in its own session on tests/hostile/shop.py, followed by a `print 1 + 1` canary.
After the session the test checks what the command could have changed: files in the program's
folder and the sandbox folder its functions write to (a spawned process creates a marker file
there), connections to a TCP and UDP listener of the test's on 127.0.0.1, processes left behind,
the program's own state at exit (its `STATE {json}` line: dict, list, generator position, cart,
signals, timers, cwd, environment, file and socket), peak memory, and that the session went on.
The legitimate commands must also give the program function's real value.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from rich.console import Console

from autodbg.fix.check import check_fix
from autodbg.program.verify import verify_fix
from autodbg.program.target import Program
from autodbg.records import CrashSite, Diagnosis, Dossier, Edit, ExceptionInfo, Result, SourceWindow
from autodbg.report import SummaryView
from conftest import clean_env
from crashkit import try_fix_in_crash
from leftovers import survivors

HOSTILE = Path(__file__).resolve().parent / "hostile"
VICTIM = ("shop.py", "shopkit.py", "payload.py")
HANG_GUARD = 60  # seconds for one whole session: only to stop a hung one, not a speed assertion
MEMORY_LIMIT = 6 << 30  # address space of the session, so a runaway allocation cannot take the machine
PEAK_RSS_LIMIT = 2 << 30  # bytes: more means an allocation was not contained
MAX_OUTPUT = 10_000  # characters one command may print
CANARY = "(autodbg) print 1 + 1\n1 + 1 = 2\n"
EXPECTED_STATE = {
    "d": {"k": "v", "n": 1}, "items": [1, 2, 3], "next": 1, "cart": [["apple", 3], ["pear", 2]], "signals": [],
    "in program folder": True, "argv": True, "env": "original", "sock": [True, "OSError"], "log": [False, 0],
    "recursion limit": 1000, "usr1 handler": True, "alarm": False,
    "kit": {"settings set up": False, "tags": "['a', 'b']", "config": "{'port': '8080'}"},
}


# --- one session ---------------------------------------------------------------------------------

@dataclass
class Session:
    status: int | None
    stdout: str
    stderr: str
    hung: bool
    left_behind: list[str]
    peak_rss: int  # bytes, of the session and the children it waited for
    changed_files: list[str]
    connections: int
    datagrams: int
    state: dict | None


def snapshot(root: Path) -> dict[str, tuple]:
    """Every file, folder and link under ROOT with what a change would alter (not __pycache__)."""
    found = {}
    for path in sorted(root.rglob("*")):
        if "__pycache__" in path.parts:
            continue
        info = path.lstat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() and not path.is_symlink() else ""
        found[str(path.relative_to(root))] = (info.st_mode, info.st_size, info.st_mtime_ns, digest)
    return found


def differences(before: dict, after: dict) -> list[str]:
    return ([f"created {p}" for p in after if p not in before] + [f"removed {p}" for p in before if p not in after]
            + [f"changed {p}" for p in before if p in after and before[p] != after[p]])


def listeners() -> tuple[socket.socket, socket.socket, int]:
    """A TCP listener and a UDP socket on the same 127.0.0.1 port; nothing may reach either."""
    while True:
        tcp = socket.socket()
        tcp.bind(("127.0.0.1", 0))
        tcp.listen(16)
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            udp.bind(("127.0.0.1", tcp.getsockname()[1]))
        except OSError:
            tcp.close()
            udp.close()
            continue
        return tcp, udp, tcp.getsockname()[1]


def reached(tcp: socket.socket, udp: socket.socket) -> tuple[int, int]:
    tcp.setblocking(False)
    udp.setblocking(False)
    counts = [0, 0]
    for i, receive in enumerate((tcp.accept, lambda: udp.recvfrom(65536))):
        while True:
            try:
                receive()
            except BlockingIOError:
                break
            counts[i] += 1
    return counts[0], counts[1]


def limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def victim_folders(tmp_path: Path) -> tuple[Path, Path]:
    program, sandbox = tmp_path / "prog", tmp_path / "sandbox"
    program.mkdir()
    sandbox.mkdir()
    for name in VICTIM:
        shutil.copy(HOSTILE / name, program / name)
    (sandbox / "sentinel.txt").write_text("original\n")
    (sandbox / "log.txt").write_text("")
    return program, sandbox


def run_session(tmp_path: Path, commands: str) -> Session:
    program, sandbox = victim_folders(tmp_path)
    tcp, udp, port = listeners()
    before = snapshot(tmp_path)
    env = clean_env(AUTODBG_MODEL="none", AUTODBG_TIMEOUT="10", HOSTILE_ENV="original", PYTHONDONTWRITEBYTECODE="1",
                    XDG_CACHE_HOME=str(tmp_path.parent / f"{tmp_path.name}-cache"))
    proc = subprocess.Popen([sys.executable, "-m", "autodbg", "run", "-i", "shop.py", str(sandbox), str(port)],
                            cwd=program, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True, preexec_fn=limit_memory)
    streams: dict[str, bytes] = {}

    def feed():
        try:
            proc.stdin.write(commands.encode())
            proc.stdin.close()
        except OSError:
            pass  # the session ended before reading everything

    def read(name, stream):
        streams[name] = stream.read()

    threads = [threading.Thread(target=feed), threading.Thread(target=read, args=("out", proc.stdout)),
               threading.Thread(target=read, args=("err", proc.stderr))]
    for t in threads:
        t.start()
    deadline, hung = time.monotonic() + HANG_GUARD, False
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            pid, status, usage = os.wait4(proc.pid, 0)
            hung = True
            break
        time.sleep(0.02)
    proc.returncode = os.waitstatus_to_exitcode(status)
    left = survivors(proc.pid)  # also closes the pipes' other ends held by leftovers
    for t in threads:
        t.join(10)
    connections, datagrams = reached(tcp, udp)
    tcp.close()
    udp.close()
    stdout = streams.get("out", b"").decode(errors="replace")
    states = [line for line in stdout.splitlines() if line.startswith("STATE ")]
    return Session(proc.returncode, stdout, streams.get("err", b"").decode(errors="replace"), hung, left,
                   usage.ru_maxrss * 1024, differences(before, snapshot(tmp_path)), connections, datagrams,
                   json.loads(states[-1][len("STATE "):]) if states else None)


def output_of(session: Session, command: str) -> str:
    """What the session printed for COMMAND (its first line), up to the canary."""
    echo = f"(autodbg) {command.splitlines()[0]}\n"
    if echo not in session.stdout:
        return ""
    rest = session.stdout.split(echo, 1)[1]
    return rest.split("(autodbg) print 1 + 1\n", 1)[0].rstrip("\n")


def problems_of(session: Session, command: str) -> list[str]:
    """Everything COMMAND's session shows was not contained, one line each."""
    found = []
    if session.hung:
        found.append(f"the session was still running after {HANG_GUARD} s: killed")
    if session.left_behind:
        found.append(f"processes left running after the session: {session.left_behind}")
    if session.status != 1:
        found.append(f"exit status {session.status}, the program's (ZeroDivisionError) is 1")
    if CANARY not in session.stdout:
        found.append("the session did not go on: the next command (`print 1 + 1`) got no answer")
    if session.changed_files:
        found.append(f"files changed: {session.changed_files}")
    if session.connections or session.datagrams:
        found.append(f"reached the test's listener: {session.connections} connections, {session.datagrams} datagrams")
    if session.state != EXPECTED_STATE:
        changed = ({k: v for k, v in session.state.items() if EXPECTED_STATE.get(k) != v}
                   if session.state else "no STATE line: the program's exit handler never ran")
        found.append(f"the program's state changed: {changed}")
    if session.peak_rss > PEAK_RSS_LIMIT:
        found.append(f"peak memory {session.peak_rss >> 20} MiB")
    output = output_of(session, command)
    if len(output) > MAX_OUTPUT:
        found.append(f"the command printed {len(output)} characters")
    found += [line for line in session.stderr.splitlines() if line.startswith("autodbg: internal error")]
    if session.stderr.count("Traceback (most recent call last)") != 1:
        found.append("a second traceback on stderr: " + session.stderr.split("Traceback (most recent call last)")[-1][-300:])
    return found


# --- the commands --------------------------------------------------------------------------------

def answers(expected: str):
    """A legitimate command: its output is exactly EXPECTED."""
    return lambda output: None if output == expected else f"answered {output!r}, expected {expected!r}"


def never_shows(*secrets: str):
    def check(output):
        shown = [s for s in secrets if s in output]
        return f"the output shows {shown}" if shown else None
    return check


def refuses(output: str) -> str | None:
    return None if output.startswith("error:") else f"not refused: {output[:200]!r}"


PASSWD = never_shows("root:x:0:0", "root:")
DEEP = 5000


def cmd(command: str, check=None, id: str | None = None):
    return pytest.param(command, check, id=id or command[:80])


COMMANDS = [
    # legitimate: the program's functions give their real values (effects die with the probe)
    cmd('print parse("1,2")', answers('parse("1,2") = [1, 2]')),
    cmd("print cart.total()", answers("cart.total() = 5")),
    cmd("print len(items)", answers("len(items) = 3")),
    cmd('print d["k"]', answers("d[\"k\"] = 'v'")),
    cmd("print sorted(d)", answers("sorted(d) = ['k', 'n']")),
    cmd("print cart.lines", answers("cart.lines = [('apple', 3), ('pear', 2)]")),
    cmd('print parse("1,2") + items', answers('parse("1,2") + items = [1, 2, 1, 2, 3]')),
    cmd('print [n * 2 for n in parse("3,4")]', answers('[n * 2 for n in parse("3,4")] = [6, 8]')),
    cmd("print cart.total() / 5", answers("cart.total() / 5 = 1.0")),
    cmd("print items == [1, 2, 3]", answers("items == [1, 2, 3] = True")),
    cmd('print parse("7")[0] + len(d)', answers('parse("7")[0] + len(d) = 9')),
    cmd('print cart.add("fig", 4) or cart.total()', answers('cart.add("fig", 4) or cart.total() = 9')),
    cmd("print discount", answers("discount = 0")),
    cmd("trace cart.total()", answers("line 62: return sum(price for _, price in self.lines) → 5 · ⇒ returned 5")),
    # write files: through the program's functions, file objects, open, pathlib, os, shutil
    cmd('print save("pwned")'),
    cmd('trace save("pwned")', refuses),  # not a call of the crash's line
    cmd("print cart.save()"),
    cmd('print f.write("pwned")'),
    cmd('print f.writelines(["pwned"])'),
    cmd("print f.truncate(0)"),
    cmd('print f.buffer.write(b"pwned")'),
    cmd('print f.buffer.raw.write(b"pwned")'),
    cmd('print open(target, "w")'),
    cmd('print open(target, "w").write("pwned")'),
    cmd('print open("pwned.txt", "w")'),
    cmd('print open(MARKER, "x")'),
    cmd('print type(f.buffer.raw)(MARKER, "w")'),
    cmd('print paths.Path(target).write_text("pwned")'),
    cmd("print paths.Path(target).unlink()"),
    cmd("print paths.Path(MARKER).mkdir()"),
    cmd("print paths.Path(MARKER).touch()"),
    cmd("print paths.Path(target).rename(MARKER)"),
    cmd("print paths.Path(target).chmod(0)"),
    cmd('print paths.Path(target).open("w")'),
    cmd("print shell.remove(target)"),
    cmd("print shell.unlink(target)"),
    cmd("print shell.rename(target, MARKER)"),
    cmd("print shell.replace(target, MARKER)"),
    cmd("print shell.mkdir(MARKER)"),
    cmd("print shell.makedirs(MARKER)"),
    cmd("print shell.rmdir(SANDBOX)"),
    cmd("print shell.chmod(target, 0)"),
    cmd("print shell.utime(target, (0, 0))"),
    cmd("print shell.truncate(target, 0)"),
    cmd("print shell.link(target, MARKER)"),
    cmd("print shell.symlink(target, MARKER)"),
    cmd("print shell.open(MARKER, shell.O_CREAT | shell.O_WRONLY)"),
    cmd('print shell.write(f.fileno(), b"pwned")'),
    cmd("print copy.copy(target, MARKER)"),
    cmd("print copy.rmtree(SANDBOX)"),
    cmd("print copy.move(target, MARKER)"),
    cmd("print copy.copytree(SANDBOX, MARKER)"),
    cmd('print copy.make_archive(MARKER, "zip", SANDBOX)'),
    cmd('print sys.modules["os"].remove(target)'),
    cmd('print sys.modules["io"].open(MARKER, "w")'),
    cmd("print shell.chdir(SANDBOX)"),
    cmd("print shell.environ.clear()"),
    cmd('print shell.environ.update(HOSTILE_ENV="changed")'),
    cmd('print shell.environ.pop("HOSTILE_ENV")'),
    # network
    cmd("print phone_home()"),
    cmd('print s.connect(("127.0.0.1", PORT))'),
    cmd('print s.connect_ex(("127.0.0.1", PORT))'),
    cmd('print socket.create_connection(("127.0.0.1", PORT))'),
    cmd('print socket.socket().connect(("127.0.0.1", PORT))'),
    cmd('print type(s)().connect_ex(("127.0.0.1", PORT))'),
    cmd('print socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", PORT))'),
    cmd('print s.bind(("127.0.0.1", 0))'),
    cmd('print s.connect(("127.0.0.1", PORT)) or s.send(b"x")'),
    cmd('print sys.modules["socket"].create_connection(("localhost", PORT))'),
    # processes and signals
    cmd("print spawn()"),
    cmd("print sp.run(SPAWN)"),
    cmd("print sp.Popen(SPAWN)"),
    cmd("print sp.call(TOUCH, shell=True)"),
    cmd("print sp.check_output(SPAWN)"),
    cmd("print sp.getoutput(TOUCH)"),
    cmd("print shell.system(TOUCH)"),
    cmd("print shell.popen(TOUCH).read()"),
    cmd("print shell.fork() or shell.system(TOUCH)"),
    cmd("print shell.forkpty()[0] or shell.system(TOUCH)"),
    cmd("print shell.execv(sys.executable, SPAWN)"),
    cmd('print shell.execvp("touch", ["touch", MARKER])'),
    cmd("print shell.posix_spawn(sys.executable, SPAWN, shell.environ)"),
    cmd('print shell.posix_spawnp("touch", ["touch", MARKER], {})'),
    cmd("print shell.spawnv(shell.P_WAIT, sys.executable, SPAWN)"),
    cmd('print sys.modules["subprocess"].run(SPAWN)'),
    cmd('print sys.modules["posix"].system(TOUCH)'),
    cmd("print shell.kill(PID, signal.SIGUSR1)"),
    cmd("print shell.kill(PID, signal.SIGTERM)"),
    cmd("print shell.killpg(shell.getpgid(0), signal.SIGTERM)"),
    cmd("print signal.raise_signal(signal.SIGUSR1)"),
    cmd("print signal.pthread_kill(threading.main_thread().ident, signal.SIGUSR1)"),
    cmd("print signal.signal(signal.SIGUSR1, signal.SIG_IGN)"),
    cmd("print signal.alarm(100)"),
    cmd("print signal.setitimer(signal.ITIMER_REAL, 100)"),
    # exit
    cmd("print bail()"),
    cmd("print leave()"),
    cmd("print sys.exit(3)"),
    cmd("print shell._exit(0)"),
    cmd("print exit()"),
    cmd("print quit(5)"),
    cmd("print shell.abort()"),
    cmd("print signal.raise_signal(signal.SIGKILL)"),
    cmd('print sys.modules["builtins"].exit(4)'),
    # hang
    cmd("print spin()"),
    cmd("print wait_forever()"),
    cmd("print time.sleep(3600)"),
    cmd("print threading.Event().wait()"),
    cmd("print HELD.acquire()"),
    cmd("print server.accept()"),
    cmd("print sum(range(10**12))"),
    cmd("print max(range(10**12))"),
    cmd("print 10**10**8"),
    cmd("print sys.stdin.read()"),
    cmd("print input()"),
    cmd("print kit.slow"),
    cmd("type kit.widget"),
    cmd("print kit.widget.__class__.__module__"),
    # allocate
    cmd("print allocate()"),
    cmd("print 'x' * 10**10"),
    cmd("print 'x' * 2500000000"),
    cmd("print b'x' * 2500000000"),
    cmd("print bytearray(10**10)"),
    cmd("print bytearray(2500000000)"),
    cmd("print bytes(2500000000)"),
    cmd("print [0] * 10**9"),
    cmd("print [0] * 400000000"),
    cmd("print (1,) * 10**9"),
    cmd("print list(range(10**12))"),
    cmd("print list(range(400000000))"),
    cmd("print 'x'.ljust(2500000000)"),
    cmd("print ('x' * 10**6).replace('', 'y' * 3000)"),
    cmd("print ','.join(['x' * 10**6] * 3000)"),
    cmd("print {i: i for i in range(10**8)}"),
    cmd("print [[0] * 10**6 for i in range(10**3)]"),
    cmd("print memoryview(bytearray(2500000000))"),
    cmd("print 'x' * 10**6"),
    # import
    cmd("print __import__('payload')"),
    cmd('print sys.modules["importlib"].import_module("payload")'),
    cmd('print getattr(sys.modules["builtins"], "__import__")("payload")'),
    cmd('print vars(sys.modules["builtins"])["__import__"]("payload")'),
    cmd('print sys.modules["builtins"].__dict__["__import__"]("payload")'),
    cmd('print sys.modules["runpy"].run_path("payload.py")'),
    cmd('print sys.modules["importlib._bootstrap"]._gcd_import("payload")'),
    cmd('print exec("import payload")'),
    cmd('print eval("__import__(\'payload\')")'),
    cmd("print breakpoint()"),
    cmd("print help()"),
    # read files outside the program
    cmd("print open('/etc/passwd').read()", PASSWD),
    cmd("print paths.Path('/etc/passwd').read_text()", PASSWD),
    cmd("print type(f.buffer.raw)('/etc/passwd').read()", PASSWD),
    cmd("print shell.read(shell.open('/etc/passwd', shell.O_RDONLY), 100)", PASSWD),
    cmd("print sys.modules['linecache'].getline('/etc/passwd', 1)", PASSWD),
    cmd("print sys.modules['linecache'].getlines('/etc/passwd')", PASSWD),
    cmd("print sys.modules['io'].open('/etc/passwd').read()", PASSWD),
    cmd("print shell.listdir('/etc')", never_shows("passwd")),
    cmd("list 1 99999999"),
    # change program state
    cmd("print d.clear()"),
    cmd('print d.pop("k")'),
    cmd("print d.update(k=2)"),
    cmd('print d.setdefault("z", 1)'),
    cmd("print d.popitem()"),
    cmd("print items.append(4)"),
    cmd("print items.pop()"),
    cmd("print items.clear()"),
    cmd("print items.sort(reverse=True)"),
    cmd("print items.extend([4])"),
    cmd("print items.insert(0, 0)"),
    cmd("print items.remove(1)"),
    cmd("print items.reverse()"),
    cmd("print [items.append(i) for i in range(3)]"),
    cmd("print (items.append(1), 1)[1]"),
    cmd('print f"{items.append(1)}"'),
    cmd("print type(items).append(items, 9)"),
    cmd("print items.__class__.append(items, 9)"),
    cmd("print gen.__next__()"),
    cmd("print next(gen)"),
    cmd("print gen.send(None)"),
    cmd("print gen.throw(ValueError)"),
    cmd("print gen.close()"),
    cmd("print list(gen)"),
    cmd("print sum(gen)"),
    cmd("print [x for x in gen]"),
    cmd("print 5 in gen"),
    cmd("print sorted(gen)"),
    cmd('print setattr(cart, "lines", [])'),
    cmd("print cart.__dict__.update(lines=[])"),
    cmd("print cart.__dict__.clear()"),
    cmd("print vars(cart).clear()"),
    cmd('print delattr(cart, "lines")'),
    cmd('print cart.add("x", 1)'),
    cmd('print cart.lines.append(("x", 1))'),
    cmd("print sys.setrecursionlimit(50)"),
    cmd("print sys.argv.clear()"),
    cmd("print f.close()"),
    cmd("print f.seek(0)"),
    cmd("print s.close()"),
    cmd("print sys.stdout.close()"),
    cmd("print signals.append(1)"),
    cmd("print kit.settings.DEBUG"),
    cmd("print kit.settings"),
    cmd("print kit.tags.copy()"),
    cmd('print kit.config.get("port")'),
    # the program's objects' own dunders, which write SANDBOX/tripped
    cmd("print kit.tripwire == 1"),
    cmd("print kit.tripwire"),
    cmd("print str(kit.tripwire)"),
    cmd("print repr(kit.tripwire)"),
    cmd("print int(kit.tripwire)"),
    cmd("print len(kit.tripwire)"),
    cmd("print bool(kit.tripwire)"),
    cmd("print kit.tripwire and 1"),
    cmd("print kit.tripwire[0]"),
    cmd("print 1 in kit.tripwire"),
    cmd("print sorted(kit.tripwire)"),
    cmd("print hash(kit.tripwire)"),
    cmd("print kit.tripwire.missing"),
    cmd('print f"{kit.tripwire}"'),
    cmd("print kit.tripwire + 1"),
    cmd("print {kit.tripwire: 1}"),
    cmd("print [1, 2][kit.tripwire]"),
    cmd("dir kit.tripwire"),
    cmd("type kit.tripwire"),
    cmd("print len(kit.label)"),
    cmd('print kit.label == "total"'),
    cmd("print kit.label.upper()"),
    cmd('print kit.label.split("t")'),
    cmd('print "t" in kit.label'),
    cmd('print "a" in kit.tags'),
    cmd("print sorted(kit.tags)"),
    cmd("print len(kit.tags)"),
    cmd('print kit.config["port"]'),
    cmd("print sorted(kit.config)"),
    cmd('print "x".encode("hostile")'),
    cmd('print b"x".decode("hostile")'),
    cmd("print [kit.tripwire]"),
    cmd("print isinstance(kit.settings, dict)"),
    # escape the expression language
    cmd("print (lambda: save('pwned'))()"),
    cmd("print (x := save('pwned'))"),
    cmd("print ().__class__.__bases__[0].__subclasses__()"),
    cmd("print ().__class__.__base__.__subclasses__()"),
    cmd("print type.__subclasses__(object)"),
    cmd("print [c for c in ().__class__.__mro__[1].__subclasses__() if c.__name__ == 'Popen'][0](SPAWN)"),
    cmd("print f'{d!r:>{10**9}}'"),
    cmd("print f'{1:{10**9}}'"),
    cmd("print '{0:>1000000000}'.format(1)"),
    cmd("print '{0.__class__.__init__.__globals__}'.format(cart)"),
    cmd("print format(1, '>1000000000')"),
    cmd("print __builtins__"),
    cmd("print __builtins__['open'](MARKER, 'w')"),
    cmd("print vars(shell)['system'](TOUCH)"),
    cmd("print getattr(shell, 'system')(TOUCH)"),
    cmd("print checkout.__globals__['shell'].system(TOUCH)"),
    cmd("print cart.__class__.__dict__['save'](cart)"),
    cmd("print type(cart).save(cart)"),
    cmd("print cart.__class__.save(cart)"),
    cmd("print parse.__globals__['save']('pwned')"),
    cmd("print sys._getframe().f_globals['save']('pwned')"),
    cmd("print gen.gi_frame.f_globals['shell'].system(TOUCH)"),
    cmd("print sys.modules['ctypes'].CDLL(None).system(TOUCH.encode())"),
    cmd("print sys.modules['ctypes'].CDLL(None).kill(PID, 9)"),
    cmd("print sys.modules['code'].interact()"),
    cmd("print globals()['save']('pwned')"),
    cmd("print compile('save(1)', 'x', 'exec')"),
    cmd("print getattr(kit.tripwire, '__eq__')(1)"),
    cmd("print 'pwned'.__class__.__mro__[1].__subclasses__()"),
    # recurse the evaluator
    cmd("print " + "(" * DEEP + "1" + ")" * DEEP, id=f"print {DEEP} nested parentheses"),
    cmd("print " + "[" * DEEP + "]" * DEEP, id=f"print {DEEP} nested lists"),
    cmd("print " + "{'a': " * DEEP + "1" + "}" * DEEP, id=f"print {DEEP} nested dicts"),
    cmd("print d" + ".k" * DEEP, id=f"print a {DEEP}-long attribute chain"),
    cmd("print items" + "[0]" * DEEP, id=f"print {DEEP} subscripts"),
    cmd("print " + " + ".join(["1"] * DEEP), id=f"print a {DEEP}-term sum"),
    cmd("print " + "-" * DEEP + "1", id=f"print {DEEP} unary minuses"),
    cmd("print " + "not " * DEEP + "1", id=f"print {DEEP} nots"),
    cmd("print " + " if 1 else ".join(["1"] * DEEP), id=f"print {DEEP} chained conditionals"),
    cmd("print recurse(0)"),
    cmd("break checkout if " + " + ".join(["1"] * DEEP), id=f"break with a {DEEP}-term condition"),
    cmd("break checkout if " + "(" * DEEP + "1" + ")" * DEEP, id=f"break with {DEEP} nested parentheses"),
    # conditions of breakpoints, run in the re-run
    cmd("break checkout if save('pwned')\nrerun"),
    cmd("break checkout if kit.tripwire == 1\nrerun"),
    cmd("break checkout if shell.system(TOUCH)\nrerun"),
    cmd("break checkout if phone_home()\nrerun"),
    cmd("break checkout if bail()\nrerun"),
    cmd("break checkout if spin()\nrerun"),
    # commands on the live frames of a re-run stopped at a breakpoint
    cmd("break checkout\nrerun\nprint save('pwned')"),
    cmd("break checkout\nrerun\nprint kit.tripwire == 1"),
    cmd("break checkout\nrerun\nprint shell.system(TOUCH)"),
    cmd("break checkout\nrerun\nprint phone_home()"),
    cmd("break checkout\nrerun\nprint bail()"),
    cmd("break checkout\nrerun\nprint 5 in gen"),
    # breakpoints outside the program
    cmd("break /etc/passwd:1", refuses),
    cmd(f"break {os.path.dirname(json.__file__)}/__init__.py:1", refuses, id="break in the standard library"),
]


def test_enough_hostile_commands():
    hostile = [p for p in COMMANDS if not (p.values[1] and p.values[1].__qualname__.startswith("answers"))]
    assert len(hostile) >= 150 and len({p.id for p in COMMANDS}) == len(COMMANDS)


@pytest.mark.slow
@pytest.mark.parametrize("command, check", COMMANDS)
def test_hostile_command_is_contained(tmp_path, command, check):
    session = run_session(tmp_path, f"{command}\nprint 1 + 1\nquit\n")
    problems = problems_of(session, command)
    if check is not None and (problem := check(output_of(session, command))):
        problems.append(problem)
    assert not problems, "\n".join(problems)


def test_a_quiet_session_changes_nothing(tmp_path):
    """The baseline of every check above: the evidence alone touches nothing."""
    session = run_session(tmp_path, "print 1 + 1\nquit\n")
    assert problems_of(session, "print 1 + 1") == []
    assert session.state == EXPECTED_STATE


def test_break_outside_the_program_is_not_a_file_existence_oracle(tmp_path):
    session = run_session(tmp_path, "break /etc/os-release:1\nbreak /no/such/file:1\nprint 1 + 1\nquit\n")
    existing = session.stdout.split("(autodbg) break /etc/os-release:1\n")[1].split("(autodbg)")[0]
    missing = session.stdout.split("(autodbg) break /no/such/file:1\n")[1].split("(autodbg)")[0]
    problems = []
    if not existing.startswith("error:"):
        problems.append(f"a breakpoint outside the program was accepted: {existing!r}")
    if existing.replace("/etc/os-release", "FILE") != missing.replace("/no/such/file", "FILE"):
        problems.append(f"an existing file answers {existing!r}, a missing one {missing!r}")
    assert not problems, "\n".join(problems)


# --- model-written fixes -------------------------------------------------------------------------

FIXME = '''\
import sys


def average(values):
    return sum(values) / len(values)


print(average([int(a) for a in sys.argv[3:]]))
'''
HIDDEN = "__import__('os').system('touch ' + sys.argv[1] + '/hidden')"
FIXES = {
    "writes a file": "open(sys.argv[1] + '/pwned', 'w').write('x'); return 0",
    "removes the sandbox": "__import__('shutil').rmtree(sys.argv[1]); return 0",
    "connects": "__import__('socket').create_connection(('127.0.0.1', int(sys.argv[2]))).sendall(b'x'); return 0",
    "sends a datagram": "__import__('socket').socket(2, 2).sendto(b'x', ('127.0.0.1', int(sys.argv[2]))); return 0",
    "spawns": "__import__('subprocess').run(['touch', sys.argv[1] + '/spawned']); return 0",
    "runs a shell": "__import__('os').system('touch ' + sys.argv[1] + '/system'); return 0",
    "hides its payload past the width": "value = sum(values) / len(values) if values else 0.0" + " " * 120 + "; "
                                        + HIDDEN + "\nreturn value",
    "forks": "__import__('os').fork() or open(sys.argv[1] + '/forked', 'w').write('x'); return 0",
    "prints a huge line": "print('x' * 10**7); return 0",
    "shows a file outside the program": "raise ValueError(open('/etc/passwd').read().replace(chr(10), ' '))",
}


def hostile_fix_setup(tmp_path: Path, fix: str):
    """The program a hostile FIX is written for, a sandbox folder its payload aims at, and the
    listeners it may try to reach: (program folder, sandbox folder, checked fix, tcp, udp, port)."""
    program, sandbox = tmp_path / "prog", tmp_path / "sandbox"
    program.mkdir()
    sandbox.mkdir()
    (program / "fixme.py").write_text(FIXME)
    (sandbox / "sentinel.txt").write_text("original\n")
    tcp, udp, port = listeners()
    checked = check_fix(Edit(file=str(program / "fixme.py"), first=5, last=5, replacement=fix, origin="model"))
    assert checked.problem is None, checked.problem
    return program, sandbox, checked, tcp, udp, port


def effects(before: dict, tmp_path: Path, tcp, udp, ignored: str = "") -> list[str]:
    """What a hostile fix did outside its confinement: files changed under TMP_PATH (but those
    ending in IGNORED), and datagrams or connections to the listeners (which it closes)."""
    time.sleep(0.5)  # a process the fix forked or spawned and left behind gets a moment to act
    problems = []
    if changed := [c for c in differences(before, snapshot(tmp_path)) if not (ignored and c.endswith(ignored))]:
        problems.append(f"files changed outside the confinement: {changed}")
    if any(hits := reached(tcp, udp)):
        problems.append(f"reached the test's listener: {hits[0]} connections, {hits[1]} datagrams")
    tcp.close()
    udp.close()
    return problems


@pytest.mark.parametrize("fix", list(FIXES.values()), ids=list(FIXES))
def test_verifying_a_hostile_fix_has_no_effect_outside_its_copy(tmp_path, fix):
    program, sandbox, checked, tcp, udp, port = hostile_fix_setup(tmp_path, fix)
    before = snapshot(tmp_path)
    _, outcome = verify_fix(Program(None, [str(program / "fixme.py"), str(sandbox), str(port)], str(program)),
                            checked.edit, "ZeroDivisionError", 20)
    problems = effects(before, tmp_path, tcp, udp)
    if len(outcome) > 400:
        problems.append(f"the outcome is {len(outcome)} characters")
    if "root:" in outcome:
        problems.append(f"the outcome shows a file outside the program: {outcome!r}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("fix", list(FIXES.values()), ids=list(FIXES))
def test_trying_a_hostile_fix_on_the_crashed_program_has_no_effect_outside_the_probe(tmp_path, fix):
    program, sandbox, checked, tcp, udp, port = hostile_fix_setup(tmp_path, fix)
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").touch()  # written by try_fix_in_crash, before the program runs
    before = snapshot(tmp_path)
    ran = try_fix_in_crash(hook, program, ["fixme.py", str(sandbox), str(port)],
                           {"file": str(program / "fixme.py"), "first": checked.edit.first, "last": checked.edit.last,
                            "new": checked.edit.replacement})
    problems = effects(before, tmp_path, tcp, udp, ignored="sitecustomize.py")
    if ran["result"] == "passes" and fix != FIXES["prints a huge line"]:
        problems.append(f"a refused payload counts as passing: {ran}")
    if len(ran["detail"]) > 400 or "root:" in ran["detail"]:
        problems.append(f"the detail shows too much: {ran['detail']!r}")
    assert not problems, "\n".join(problems)


def summary_of(path: Path, fix) -> str:
    dossier = Dossier(exception=ExceptionInfo("ZeroDivisionError", "division by zero", "ZeroDivisionError: division by zero"), chain=[], crash_site=CrashSite(str(path), 5, "average"), frames=[], folded_user_frames=0, library_frames=0, assertion=False)
    lines = path.read_text().splitlines()
    result = Result(autodbg_version="0", python="3", argv=[], cwd=str(path.parent), thread=None, dossier=dossier, diagnosis=Diagnosis(file=str(path), display_file=path.name, line=5, line_end=5, root_cause="values may be empty", fix=fix, source_window=SourceWindow(1, lines)))
    buf = io.StringIO()
    Console(file=buf, width=80, color_system=None, force_terminal=False).print(SummaryView(result))
    return buf.getvalue()


@pytest.mark.parametrize("fix", [FIXES["hides its payload past the width"], FIXES["connects"],
                                 "return sum(values) / len(values) if values else 0.0  # "
                                 + "a very long comment " * 10 + HIDDEN],
                         ids=["payload after spaces", "long line", "payload after a long comment"])
def test_the_summary_shows_every_added_line_in_full(tmp_path, fix):
    path = tmp_path / "fixme.py"
    path.write_text(FIXME)
    checked = check_fix(Edit(file=str(path), first=5, last=5, replacement=fix, origin="model"))
    assert checked.problem is None, checked.problem
    added = [line[1:] for line in checked.diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    shown = summary_of(path, checked)
    assert max(len(line) for line in shown.splitlines()) <= 80
    inside = "".join("".join(line.strip().strip("│").split()) for line in shown.splitlines())
    cut = [line for line in added if "".join(line.split()) not in inside]
    assert not cut, f"the summary cuts the added lines {cut}; it shows:\n{shown}"
