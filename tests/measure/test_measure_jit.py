"""`experiment jit`: stops plainly without a JIT; with one, checks each run's state.

No installed interpreter here has a JIT, so the JIT path is exercised with a
stand-in: a wrapper interpreter whose sitecustomize provides a `sys._jit`
that reports the state PYTHON_JIT asks for (or, to test the check, a wrong
one).  The experiment must read that state inside every run.
"""

import json
import stat
import sys

import pytest

from quickening.measure import cli_experiment

from measure_helpers import installed_python


def fake_jit_python(tmp_path, enabled_expr):
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import os, sys, types\n"
        "if not hasattr(sys, '_jit'):\n"
        "    sys._jit = types.SimpleNamespace(is_available=lambda: True,\n"
        f"                                     is_enabled=lambda: {enabled_expr})\n")
    wrapper = tmp_path / "python-with-jit"
    wrapper.write_text(f"#!/bin/sh\nPYTHONPATH={site} exec {sys.executable} \"$@\"\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return wrapper


@pytest.mark.parametrize("version", ["3.11", "3.12", "3.13"])
def test_no_jit_says_so_and_stops(version, records_dir, cli):
    python = installed_python(version)
    if python is None:
        pytest.skip(f"CPython {version} is not installed")
    status, out, err = cli(cli_experiment, ["jit", "--python", python])
    assert status == 0
    assert "this build has no JIT (sys._jit is absent)" in out
    assert "stops" in out
    assert not records_dir.exists() or not list(records_dir.glob("*.json"))
    assert "runs" not in err     # no measuring started


def test_with_a_jit_each_run_reports_its_state(tmp_path, records_dir, cli):
    python = fake_jit_python(tmp_path, "os.environ.get('PYTHON_JIT') == '1'")
    status, out, err = cli(cli_experiment, ["jit", "--python", python, "-N", "2", "-M", "1",
                                            "--loop", "dict", "--loop", "calls", "-q"])
    assert status == 0, err
    assert "experiment jit" in out and "JIT: enabled" in out
    (path,) = records_dir.glob("*-jit-*.json")
    rec = json.loads(path.read_text())
    assert [w["workload"] for w in rec["summary"]["workloads"]] == ["loop:dict", "loop:calls"]
    assert len(rec["runs"]) == 8
    for r in rec["runs"]:
        jit = r["interpreter"]["jit"]
        assert jit["available"] is True
        assert jit["enabled"] is (r["side"] == "B")
        assert r["interpreter"]["env"]["PYTHON_JIT"] == ("1" if r["side"] == "B" else "0")
    assert rec["summary"]["notes"] == []
    assert [c[-4:] for c in rec["charts"]] == [".png", ".svg"]


def test_a_run_whose_jit_state_disagrees_is_reported(tmp_path, records_dir, cli):
    python = fake_jit_python(tmp_path, "True")      # claims enabled even with PYTHON_JIT=0
    status, out, err = cli(cli_experiment, ["jit", "--python", python, "-N", "1", "-M", "1",
                                            "--loop", "dict", "--no-chart", "-q"])
    assert status == 0, err
    assert "JIT enabled=True although PYTHON_JIT=0" in out
