import glob
import json
import os
import subprocess
import sys

import pytest

from quickening.measure import builds

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")


def _find_pythons():
    return {name: builds.build(name) for name in builds.NAMES if builds.build(name)}


PYTHONS = _find_pythons()
ALL_MINORS = builds.NAMES


def python_params(names=ALL_MINORS):
    """One pytest param per CPython build (pyenv's 3.11-3.13, Debian's
    3.13/3.14/3.15).  A missing build skips with a message saying how to
    install it, and fails under CI=true (see tests/lens/conftest.py)."""
    out = []
    for m in names:
        out.append(pytest.param(PYTHONS.get(m), id=m, marks=[pytest.mark.needs_build(m)]))
    return out


def program(name):
    return os.path.join(PROGRAMS, name)


def run_watch(args, cwd=None, input=None, timeout=120, env=None):
    """Run `quickening watch ARGS` with the test interpreter (``env``: extra
    environment variables, e.g. PYTHON_JIT)."""
    cmd = [sys.executable, "-m", "quickening", "watch", *args]
    full = None
    if env:
        full = dict(os.environ)
        full.update(env)
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd,
                          input=input, timeout=timeout, env=full)


def watch_json(tmp_path, python, prog_args, interval="2", extra=()):
    out = tmp_path / "report.json"
    r = run_watch(["--python", python, "--interval", interval, "--json",
                   str(out), "--quiet", *extra, *prog_args])
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    return r, json.loads(out.read_text())
