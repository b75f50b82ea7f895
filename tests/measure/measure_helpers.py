"""Helpers shared by the measuring tests (a uniquely named module, so it never
collides with another folder's conftest)."""

import os
from pathlib import Path
import sys

PYENV = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
HOST = sys.executable


def installed_python(prefix: str):
    """Path of an installed CPython whose version starts with `prefix`, or None."""
    if PYENV.is_dir():
        for d in sorted(PYENV.iterdir(), reverse=True):
            exe = d / "bin" / "python"
            if d.name.startswith(prefix) and exe.exists():
                return str(exe)
    return None


def build_params(names):
    """pytest params (value: the interpreter's path, id: the build's name)
    for the named builds of quickening.measure.builds; a missing one skips,
    or fails under CI (conftest.py)."""
    import pytest
    from quickening.measure import builds
    return [pytest.param(name, id=name, marks=[pytest.mark.needs_build(name)])
            for name in names]


def build_path(name):
    from quickening.measure import builds
    return builds.build(name)


class FakeRunner:
    """Records the order of runs; answers with scripted times and digests."""

    def __init__(self, times=None, digests=None, fail=None):
        self.calls = []
        self.times = times or {}
        self.digests = digests or {}
        self.fail = fail

    def __call__(self, side, spec, *, repeats, loops, env_keys, timeout):
        self.calls.append((spec["path"], side.label))
        n = sum(1 for c in self.calls if c == (spec["path"], side.label))
        if self.fail == (spec["path"], side.label):
            return {"side": side.label, "times": [], "best": None, "digests": [],
                    "interpreter": None, "error": "boom"}
        t = self.times.get(side.label, 1.0) + 0.001 * n
        return {"side": side.label, "times": [t] * repeats, "best": t,
                "digests": [self.digests.get(side.label, "same")] * repeats,
                "interpreter": {"executable": side.python, "version": "3.x",
                                "jit": {"has_sys_jit": False}, "env": {}},
                "error": None}
