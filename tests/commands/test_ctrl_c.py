"""Ctrl-C in interpreted code -- loops, generators, coroutines, `with` blocks,
call chains, comprehensions -- shows the traceback CPython shows, every time.

Each program says when it is in its hot region (a "ready" line); SIGINT then
comes after a varying delay, several times over, to `python PROG` and to
`quickening run PROG` alike, and the two must agree exactly: the whole of
stderr (every frame's file, line, function, source line and carets), stdout
and death by SIGINT.  Nothing is normalised: both sides run the same file
from the same directory, so nothing has to differ.

Each hot region has one place where CPython can raise natively, so that the
native report is the same every time: a loop whose only eval-breaker check
is its back edge (a one-line body of simple operations), or a call that
blocks (time.sleep, Event.wait, a read from a pipe).  Where CPython would
check more often (a loop calling a builtin checks after each call too), the
place would depend on timing and the reports could not be compared.
"""

import random
import signal
import subprocess
import sys
import time

import pytest

PYTHON = sys.executable

PROGRAMS = {
    "loop": """\
def main():
    t = 0
    print("ready", flush=True)
    while True: t += 1

main()
""",
    # the generator's own loop, the generator consumed by a for and by native code
    "generator": """\
def spin():
    yield 0
    print("ready", flush=True)
    i = 0
    while True: i += 1

def main():
    for n in spin():
        pass

main()
""",
    "generator_in_native_code": """\
def spin():
    yield 0
    print("ready", flush=True)
    i = 0
    while True: i = i + 1

def main():
    return sum(spin())

main()
""",
    # asyncio.run's SIGINT handler cancels the task: CancelledError at the await,
    # then KeyboardInterrupt from asyncio.run
    "coroutine_asyncio_run": """\
import asyncio

async def spin():
    print("ready", flush=True)
    while True: await asyncio.sleep(0)

async def main():
    await spin()

asyncio.run(main())
""",
    "coroutine_send": """\
async def spin():
    print("ready", flush=True)
    t = 0
    while True: t += 1

def main():
    spin().send(None)

main()
""",
    # the KeyboardInterrupt goes through a Python __exit__ (which prints)
    "with_block": """\
class Guard:
    def __enter__(self):
        return self
    def __exit__(self, kind, value, tb):
        print("exit", kind.__name__, flush=True)
        return False

def main():
    t = 0
    with Guard():
        print("ready", flush=True)
        while True: t += 1

main()
""",
    "with_block_blocked": """\
import time

class Guard:
    def __enter__(self):
        return self
    def __exit__(self, kind, value, tb):
        print("exit", kind.__name__, flush=True)

def main():
    with Guard():
        print("ready", flush=True)
        time.sleep(60)

main()
""",
    "call_chain": """\
def c(n):
    print("ready", flush=True)
    while True: n += 1

def b(n):
    return c(n) + 1

def a():
    return b(0) * 2

a()
""",
    "call_chain_blocked": """\
import threading

def c(event):
    print("ready", flush=True)
    event.wait()

def b(event):
    return c(event) + 1

def a():
    return b(threading.Event())

a()
""",
    "comprehension": """\
import itertools

def main():
    print("ready", flush=True)
    return [n for n in itertools.count() if n < 0]

main()
""",
    # a for loop, warm (its lines are read one by one), then blocked reading the next
    # (bytes: a text stream decodes in Python code, a second place to raise)
    "for_blocked_in_read": """\
import sys

def main():
    total = 0
    for line in sys.stdin.buffer:
        total += len(line)
        if line == b"last\\n":
            print("ready", flush=True)

main()
""",
}

REPEATS = 3
# lines fed to for_blocked_in_read before it blocks (enough for its loop to be
# warm: the interpreter fuses a loop after 16 turns)
FED_LINES = "line\n" * 200 + "last\n"


def _default_sigint():
    # the shell that started the tests may ignore SIGINT (a background job does),
    # and a child inherits that: `python` then leaves SIGINT ignored, and neither
    # side could be interrupted.  Both children get the default disposition back,
    # as from an interactive shell.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupted(command, cwd, delay):
    proc = subprocess.Popen(command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint)
    try:
        proc.stdin.write(FED_LINES)
        proc.stdin.flush()      # (kept open: a program reading it blocks)
        ready = proc.stdout.readline()
        assert ready == "ready\n", (ready, proc.stderr.read() if proc.poll() is not None else "")
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        # (stdin stays open until the program has died: at end of file first, the
        # program reading it would finish before the interrupt is seen; what it
        # writes is far less than a pipe holds)
        proc.wait(timeout=120)
        out, err = proc.stdout.read(), proc.stderr.read()
    finally:
        proc.stdin.close()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, out, err


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_ctrl_c_shows_cpythons_traceback_every_time(name, tmp_path):
    path = tmp_path / f"{name}.py"
    path.write_text(PROGRAMS[name])
    native = [PYTHON, str(path)]
    interpreted = [PYTHON, "-m", "quickening", "run", str(path)]
    rng = random.Random(name)
    expected = _interrupted(native, tmp_path, 0.05)
    assert expected[0] == -signal.SIGINT and expected[2].endswith("KeyboardInterrupt\n"), expected
    reports = []
    for repeat in range(REPEATS):
        delay = rng.random() * 0.2
        if repeat:      # (the native report is the same each time: the program's design)
            reports.append((delay, "native", _interrupted(native, tmp_path, delay)))
        reports.append((delay, "interpreted", _interrupted(interpreted, tmp_path, delay)))
    differing = [(delay, side, got) for delay, side, got in reports if got != expected]
    assert not differing, (f"native report:\n{expected[2]}\nstdout {expected[1]!r}, status "
                           f"{expected[0]}\ndiffering:\n" + "\n".join(
                               f"{side} after {delay:.3f}s: status {got[0]}, stdout {got[1]!r}\n"
                               f"{got[2]}" for delay, side, got in differing))

