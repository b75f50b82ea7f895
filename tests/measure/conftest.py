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


def pytest_configure(config):
    config.addinivalue_line("markers", "needs_build(name): needs that CPython build")


def pytest_runtest_setup(item):
    """A missing CPython build skips (saying how to install it), or fails
    under CI=true."""
    from quickening.measure import builds
    for mark in item.iter_markers("needs_build"):
        name = mark.args[0]
        if builds.build(name) is None:
            if builds.under_ci():
                pytest.fail(builds.missing_reason(name) + " (CI=true: a missing build fails)",
                            pytrace=False)
            pytest.skip(builds.missing_reason(name))
