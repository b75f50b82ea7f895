"""Fixtures for the measuring tests: a records folder, a way to call a
command's main() and capture what it prints, and small workload files."""

import pytest


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
