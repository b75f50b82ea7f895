"""Fixtures for the measuring tests: interpreters present here, a records folder,
and a way to call a command's main() and capture what it prints."""

import os
from pathlib import Path
import sys

import pytest

PYENV = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"


def installed_python(prefix: str):
    """Path of an installed CPython whose version starts with `prefix`, or None."""
    if PYENV.is_dir():
        for d in sorted(PYENV.iterdir(), reverse=True):
            exe = d / "bin" / "python"
            if d.name.startswith(prefix) and exe.exists():
                return str(exe)
    return None


@pytest.fixture
def records_dir(tmp_path, monkeypatch):
    d = tmp_path / "records"
    monkeypatch.setenv("QUICKENING_RECORDS", str(d))
    return d


@pytest.fixture
def cli(capsys):
    """cli(module, argv) -> (exit status, stdout, stderr)."""
    def call(module, argv):
        status = module.main([str(a) for a in argv])
        out = capsys.readouterr()
        return status, out.out, out.err
    return call


@pytest.fixture
def workload(tmp_path):
    """workload(source, name='w.py') -> path of a small workload file."""
    def make(source, name="w.py"):
        path = tmp_path / name
        path.write_text(source)
        return path
    return make


HOST = sys.executable
