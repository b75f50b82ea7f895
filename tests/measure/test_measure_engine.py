"""Interleaving order, the output check and failures, with a stand-in runner;
and the environment of real runs: B's variables reach B's processes only."""

import json

import pytest

from quickening.measure import cli_compare, compare, engine, machine, records
from quickening.measure.runner import Side, run_side

from conftest import HOST


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


def sides():
    return [Side("A", HOST), Side("B", HOST)]


def new_record():
    return records.new_record("compare", "compare", ["test"], {"repeats": 2, "pairs": 3},
                              machine.describe_machine())


def test_runs_are_interleaved_a_b_per_workload_per_pair():
    fake = FakeRunner()
    compare.run(new_record(), sides(), [("w1", {"path": "w1"}), ("w2", {"path": "w2"})],
                repeats=2, pairs=3, runner=fake)
    assert fake.calls == [("w1", "A"), ("w1", "B"), ("w2", "A"), ("w2", "B")] * 3


def test_schedule_matches_rounds():
    groups = [engine.Group("g", [engine.Config(x, Side(x, HOST), {}) for x in "ABC"])]
    assert [lab for _, _, lab in engine.schedule(groups, 2)] == list("ABCABC")


def test_summary_and_verdict_from_runs():
    fake = FakeRunner(times={"A": 1.0, "B": 1.2})
    rec = compare.run(new_record(), sides(), [("w", {"path": "w"})], repeats=2, pairs=3,
                      runner=fake)
    (w,) = rec["summary"]["workloads"]
    assert w["verdict"] == "B slower"
    assert w["a"]["n"] == w["b"]["n"] == 3
    assert len(rec["runs"]) == 6
    assert [r["config"] for r in rec["runs"]] == ["A", "B"] * 3
    assert "B slower" in compare.render_text(rec)


def test_outputs_that_differ_stop_the_workload_and_count_no_time():
    fake = FakeRunner(digests={"A": "x", "B": "y"})
    rec = compare.run(new_record(), sides(), [("w", {"path": "w"}), ("v", {"path": "v"})],
                      repeats=1, pairs=4, runner=fake)
    by = {w["workload"]: w for w in rec["summary"]["workloads"]}
    assert by["w"]["verdict"] == "no claim: outputs differ"
    # the first pair found the difference; no further runs of w happened
    assert sum(1 for c in fake.calls if c[0] == "w") == 2
    assert "different output" in compare.render_text(rec)


def test_a_failed_run_stops_that_workload_only():
    fake = FakeRunner(fail=("w", "B"))
    rec = compare.run(new_record(), sides(), [("w", {"path": "w"}), ("v", {"path": "v"})],
                      repeats=1, pairs=3, runner=fake)
    by = {w["workload"]: w for w in rec["summary"]["workloads"]}
    assert by["w"]["status"].startswith("failed: B: boom")
    assert by["v"]["status"] == "ok" and by["v"]["a"]["n"] == 3


ENV_PROBE = """\
import os, sys
def workload():
    return os.environ.get("QK_TEST_SIDE"), sys._xoptions.get("qk_flag")
"""


def test_env_var_for_b_reaches_b_and_not_a(workload, records_dir, cli, monkeypatch):
    monkeypatch.delenv("QK_TEST_SIDE", raising=False)
    path = workload(ENV_PROBE)
    status, out, err = cli(cli_compare, ["--b-env", "QK_TEST_SIDE=b-only", "--a-arg", "-Xqk_flag=a",
                                         "-M", "1", "-N", "2", "--no-chart", "--ignore-output",
                                         "-q", path])
    assert status == 0, err
    (rec_path,) = records_dir.glob("*.json")
    rec = json.loads(rec_path.read_text())
    runs = rec["runs"]
    assert [r["side"] for r in runs] == ["A", "B", "A", "B"]
    for r in runs:
        seen = r["interpreter"]["env"]["QK_TEST_SIDE"]
        xopt = r["interpreter"]["xoptions"].get("qk_flag")
        if r["side"] == "B":
            assert seen == "b-only" and xopt is None
        else:
            assert seen is None and xopt == "a"
    assert rec["sides"][1]["env"] == {"QK_TEST_SIDE": "b-only"}


def test_env_dependent_output_is_caught(workload, records_dir, cli):
    path = workload(ENV_PROBE)
    status, out, err = cli(cli_compare, ["--b-env", "QK_TEST_SIDE=1", "-M", "1", "-N", "3",
                                         "--no-chart", "-q", path])
    assert status == 0, err
    assert "no claim: outputs differ" in out


def test_script_mode_runs_the_file_and_digests_its_output(workload):
    path = workload("total = sum(range(1000))\nprint(total)\n", "script.py")
    run = run_side(Side("A", HOST), {"path": str(path), "mode": "auto"}, repeats=3)
    assert run["error"] is None and run["mode"] == "script"
    assert len(run["times"]) == 3 and run["best"] == min(run["times"])
    assert len(set(run["digests"])) == 1


def test_workload_error_is_reported(workload):
    path = workload("def workload():\n    raise ValueError('bad input')\n")
    run = run_side(Side("A", HOST), {"path": str(path), "mode": "auto"}, repeats=2)
    assert run["error"] == "ValueError: bad input"
    assert "Traceback" in run["traceback"]


def test_run_records_interpreter_facts(workload):
    path = workload("def workload():\n    return 1\n")
    run = run_side(Side("A", HOST, {"PYTHON_JIT": "0"}), {"path": str(path)}, repeats=1,
                   env_keys=["PYTHON_JIT"])
    info = run["interpreter"]
    assert info["version_info"][:2] == [3, 13]
    assert info["env"] == {"PYTHON_JIT": "0"}
    assert set(info["jit"]) >= {"has_sys_jit", "available", "enabled", "configured"}
    assert "configure_flags" in info["build"]
