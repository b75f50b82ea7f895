"""Ctrl-C in interpreted code -- loops, generators driven from native code,
coroutines, `with` blocks -- shows a traceback of the program's frames only,
every time, as CPython does.  The program says when it is in its loop; SIGINT
then comes at a varying moment, many times over, to the native run and to the
interpreted one alike; every report must have CPython's shape: the
traceback header, only the program's own frames, `KeyboardInterrupt`, death by
SIGINT."""

import os
import random
import signal
import subprocess
import sys
import time

import pytest

PYTHON = sys.executable

PROGRAM = """\
class Guard:
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        return False

def numbers(n):
    for i in range(n):
        with Guard():
            yield i

async def twice(x):
    return x * 2

def drive(coro):
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value

def main():
    print("ready", flush=True)
    t = 0
    while True:
        t += sum(numbers(300))
        t += max(v for v in numbers(50))
        t = sorted(numbers(30), key=lambda v: -v)[0]
        t += drive(twice(t))

main()
"""

REPEATS = 12


def _interrupted(command, cwd, delay):
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=lambda: signal.signal(signal.SIGINT,
                                                                        signal.SIG_DFL))
    try:
        assert proc.stdout.readline() == "ready\n"
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, err


def _shape_problems(returncode, err, program):
    lines = err.splitlines()
    problems = []
    if returncode != -signal.SIGINT:
        problems.append(f"exit {returncode}")
    if not lines or lines[0] != "Traceback (most recent call last):":
        problems.append("no traceback header")
    if not lines or lines[-1] != "KeyboardInterrupt":
        problems.append("does not end in KeyboardInterrupt")
    frames = [line for line in lines if line.startswith("  File ")]
    if not frames:
        problems.append("no frame")
    others = [line for line in frames if not line.startswith(f'  File "{program}"')]
    if others:
        problems.append("frames not the program's: " + "; ".join(others))
    return problems


@pytest.mark.parametrize("side", ["native", "interpreted"])
def test_ctrl_c_shows_only_the_programs_frames_every_time(side, tmp_path):
    path = tmp_path / "loop.py"
    path.write_text(PROGRAM)
    command = ([PYTHON, str(path)] if side == "native"
               else [PYTHON, "-m", "quickening", "run", str(path)])
    rng = random.Random(21)
    failures = []
    for _ in range(REPEATS):
        returncode, err = _interrupted(command, tmp_path, rng.random() * 0.05)
        problems = _shape_problems(returncode, err, str(path))
        if problems:
            failures.append((problems, err[-1500:]))
    assert not failures, failures
