"""`experiment jit`: stops plainly (exit 1) without a JIT; with one, checks
each run's state and its loops' executors.

On Debian's 3.14 build (JIT built in, off unless PYTHON_JIT=1) the real
protocol runs, shortened; the stand-in (a wrapper interpreter whose
sitecustomize provides a `sys._jit` that reports a wrong state) exercises
the mismatch report.
"""

import json
import stat
import sys

import pytest

from quickening.measure import cli_experiment

from measure_helpers import build_params, build_path


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


@pytest.mark.parametrize("build", build_params(["3.11", "3.12", "3.13", "debian-3.13"]))
def test_no_jit_says_so_and_stops(build, records_dir, cli):
    python = build_path(build)
    status, out, err = cli(cli_experiment, ["jit", "--python", python])
    assert status == 1
    assert "this build has no JIT (sys._jit is absent)" in out
    assert "stops" in out
    assert not records_dir.exists() or not list(records_dir.glob("*.json"))
    assert "runs" not in err     # no measuring started


@pytest.mark.parametrize("build", build_params(["3.14"]))
def test_on_a_jit_build_each_run_reports_its_state_and_executors(build, records_dir, cli):
    python = build_path(build)
    status, out, err = cli(cli_experiment, ["jit", "--python", python, "-N", "2", "-M", "1",
                                            "--loop", "dict", "--loop", "list_walk", "-q"])
    assert status == 0, err
    assert "experiment jit" in out and "JIT: enabled" in out
    (path,) = records_dir.glob("*-jit-*.json")
    rec = json.loads(path.read_text())
    assert [w["workload"] for w in rec["summary"]["workloads"]] == ["loop:dict", "loop:list_walk"]
    assert len(rec["runs"]) == 8
    for r in rec["runs"]:
        jit = r["interpreter"]["jit"]
        assert jit["available"] is True
        assert jit["enabled"] is (r["side"] == "B")
        assert r["interpreter"]["env"]["PYTHON_JIT"] == ("1" if r["side"] == "B" else "0")
        assert r["load_average"] is not None
        # read inside the run: with the JIT on its hot loop has an executor, off none
        made = [l for l in r["tier2_loops"] if l["executor"]]
        assert bool(made) is (r["side"] == "B"), r["tier2_loops"]
        assert all(l["valid"] and l["uops"] > 0 for l in made)
    assert rec["summary"]["notes"] == []
    assert [c[-4:] for c in rec["charts"]] == [".png", ".svg"]
    # the seed's published figures beside this machine's
    assert "+10.7%" in out and "+36.7%" in out and "3.14.7" in out
    assert "tier 2, checked inside each run" in out


def test_a_run_whose_jit_state_disagrees_is_reported(tmp_path, records_dir, cli):
    python = fake_jit_python(tmp_path, "True")      # claims enabled even with PYTHON_JIT=0
    status, out, err = cli(cli_experiment, ["jit", "--python", python, "-N", "1", "-M", "1",
                                            "--loop", "dict", "--no-chart", "-q"])
    assert status == 0, err
    assert "JIT enabled=True although PYTHON_JIT=0" in out
