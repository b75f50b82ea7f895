import glob
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")


def _find_pythons():
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    found = {}
    for minor in ("3.11", "3.12", "3.13"):
        cands = sorted(glob.glob(os.path.join(root, "versions", minor + ".*", "bin", "python")))
        cands = [c for c in cands if os.access(c, os.X_OK)]
        if cands:
            found[minor] = cands[-1]
    return found


PYTHONS = _find_pythons()
ALL_MINORS = ("3.11", "3.12", "3.13")


def python_params():
    """One pytest param per CPython minor; a missing one is skipped (the CI
    machine has all three)."""
    out = []
    for m in ALL_MINORS:
        marks = []
        if m not in PYTHONS:
            marks.append(pytest.mark.skip(reason="CPython %s not installed under pyenv" % m))
        out.append(pytest.param(PYTHONS.get(m), id=m, marks=marks))
    return out


def program(name):
    return os.path.join(PROGRAMS, name)


def run_watch(args, cwd=None, input=None, timeout=120):
    """Run `quickening watch ARGS` with the test interpreter."""
    cmd = [sys.executable, "-m", "quickening", "watch", *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd,
                          input=input, timeout=timeout)


def watch_json(tmp_path, python, prog_args, interval="2", extra=()):
    out = tmp_path / "report.json"
    r = run_watch(["--python", python, "--interval", interval, "--json",
                   str(out), "--quiet", *extra, *prog_args])
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    return r, json.loads(out.read_text())
