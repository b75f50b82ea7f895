"""Interleaving order, the output check and failures, with a stand-in runner;
and the environment of real runs: B's variables reach B's processes only."""

import json


from quickening.measure import cli_compare, compare, engine, machine, records
from quickening.measure.runner import Side, run_side

from measure_helpers import HOST, FakeRunner


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
    assert by["w"]["verdict"] == "not compared: outputs differ"
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


def test_ctrl_c_keeps_what_was_measured():
    class Interrupting(FakeRunner):
        def __call__(self, side, spec, **kw):
            if len(self.calls) == 5:
                raise KeyboardInterrupt
            return super().__call__(side, spec, **kw)

    fake = Interrupting(times={"A": 1.0, "B": 2.0})
    rec = compare.run(new_record(), sides(), [("w", {"path": "w"})], repeats=1, pairs=11,
                      runner=fake)
    assert rec["interrupted"] is True
    (w,) = rec["summary"]["workloads"]
    # unequal sizes: three runs of A, two of B
    assert (w["a"]["n"], w["b"]["n"]) == (3, 2)
    assert w["verdict"] == "no claim: fewer than 3 runs per side"
    assert "interrupted" in compare.render_text(rec)


ENV_PROBE = """\
import os, sys
def workload():
    return os.environ.get("QK_TEST_SIDE"), sys._xoptions.get("qk_flag")
"""


def test_env_var_for_b_reaches_b_and_not_a(workload, records_dir, cli, monkeypatch):
    # even a value inherited from the user's shell must not reach A
    monkeypatch.setenv("QK_TEST_SIDE", "from-the-shell")
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
    assert rec["sides"][0]["unset"] == ["QK_TEST_SIDE"]
    assert "unset QK_TEST_SIDE" in out


def test_env_dependent_output_is_caught(workload, records_dir, cli):
    path = workload(ENV_PROBE)
    status, out, err = cli(cli_compare, ["--b-env", "QK_TEST_SIDE=1", "-M", "1", "-N", "3",
                                         "--no-chart", "-q", path])
    assert status == 1, err
    assert "not compared: outputs differ" in out


def test_script_mode_runs_the_file_and_digests_its_output(workload):
    path = workload("total = sum(range(1000))\nprint(total)\n", "script.py")
    run = run_side(Side("A", HOST), {"path": str(path), "mode": "auto"}, repeats=3)
    assert run["error"] is None and run["mode"] == "script"
    assert len(run["times"]) == 3 and run["best"] == min(run["times"])
    assert len(set(run["digests"])) == 1


def test_script_sees_its_own_argv_and_may_exit(workload):
    path = workload("import sys\nprint(sys.argv)\nsys.exit(0)\nprint('not reached')\n",
                    "exits.py")
    run = run_side(Side("A", HOST), {"path": str(path)}, repeats=2)
    assert run["error"] is None and run["mode"] == "script"
    bad = workload("import sys\nsys.exit(3)\n", "fails.py")
    assert run_side(Side("A", HOST), {"path": str(bad)}, repeats=1)["error"] == "SystemExit: 3"


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
