"""The decoder and the warm-up tracer against CPython's own answers, in each
installed CPython."""
import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # noqa: E402
from lens_helpers import program, python_params

import quickening.lens.decode as D
from quickening.lens.warmup import (WarmupError, first_specialized,
                                    trace_function_warmup, trace_warmup)

DECODE = D.__file__


def _checked(python, script, timeout):
    """What the check program run by `python` compared with CPython (no mismatch)."""
    r = subprocess.run([python, program(script), DECODE],
                       capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["mismatch"] == []
    return out


@pytest.mark.parametrize("python", python_params())
def test_decoder_agrees_with_cpython(python):
    out = _checked(python, "decode_check.py", 120)
    assert out["checked"]["sites"] > 600
    # 3.14 stopped specializing the 300-attribute object's loads (the 40th
    # instance attribute stays LOAD_ATTR): far fewer cached type versions there
    assert out["checked"]["type_versions"] > (300 if out["version"] < [3, 14] else 30)
    assert out["checked"]["cache_info"] >= out["checked"]["sites"]
    assert out["checked"]["globals"] >= 2


def test_tables_round_trip_and_current():
    t = D.Tables.current()
    t2 = D.Tables.from_dict(json.loads(json.dumps(t.to_dict())))
    assert t2.to_dict() == t.to_dict()
    assert "LOAD_ATTR" in t.families and "JUMP_BACKWARD" not in t.families
    if sys.version_info[:2] >= (3, 13):
        assert [f for f, _ in t.cache_format["LOAD_GLOBAL"]] == [
            "counter", "module_keys_version", "builtin_keys_version", "index"]


SETUP = """
class A:
    def __init__(self):
        self.x = 1

def f(o, n):
    return o.x + n
o = A()
"""


@pytest.mark.parametrize("python", python_params())
def test_trace_warmup_matches_dis_each_execution(python):
    n = 10
    res = trace_warmup(python, "f(o, 1)", SETUP, executions=n)
    assert len(res) == n
    ref = subprocess.run([python, program("warmup_direct.py"), SETUP, "f(o, 1)", str(n)],
                         capture_output=True, text=True, timeout=60)
    assert ref.returncode == 0, ref.stderr
    ref = json.loads(ref.stdout)
    for i in range(n):
        for s in res[i]:
            assert s["opname"] == ref[i]["%s:%d" % (s["code"], s["offset"])], (i, s)
    # the documented warm-up is visible: first specialized execution of the
    # attribute load is the one dis shows first specialized
    firsts = first_specialized(res)
    (key,) = [k for k in firsts if k[0] == "f" and
              [s for s in res[-1] if (s["code"], s["offset"]) == k][0]["family"] == "LOAD_ATTR"]
    dis_first = min(i + 1 for i in range(n)
                    if ref[i]["f:%d" % key[1]] != "LOAD_ATTR"
                    and not ref[i]["f:%d" % key[1]].endswith("_ADAPTIVE"))
    assert firsts[key] == dis_first


def test_trace_warmup_timing_and_function_mode(tmp_path):
    mod = tmp_path / "m.py"
    mod.write_text("def g(a, b):\n    return a * b + 1\n")
    res = trace_function_warmup(sys.executable, str(mod), "g", ["3", "4"],
                                executions=4, repeat=3, steady=50)
    assert len(res) == 4 and len(res.time_ns) == 4 and res.steady_ns > 0
    assert any(s["specialized"] for s in res[-1])
    with pytest.raises(WarmupError):
        trace_function_warmup(sys.executable, str(mod), "nope", executions=2)
    with pytest.raises(WarmupError):
        trace_warmup(sys.executable, "1 +", executions=2)


def test_warmup_cli(tmp_path):
    cmd = [sys.executable, "-m", "quickening", "warmup", "-c", "f(o, 1)",
           "--setup", SETUP, "-n", "4", "--repeat", "2", "--steady", "20",
           "--json", str(tmp_path / "w.json")]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "INSTANCE_VALUE" in r.stdout and "steady" in r.stdout
    data = json.loads((tmp_path / "w.json").read_text())
    assert len(data["executions"]) == 4
    bad = subprocess.run([sys.executable, "-m", "quickening", "warmup", "-c", "1 +"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    bad = subprocess.run([sys.executable, "-m", "quickening", "warmup", "nofile.py::f"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "can't open" in bad.stderr


@pytest.mark.parametrize("python", python_params())
def test_lens_imports_on_each_python(python):
    """quickening.lens must stay importable on 3.11 and 3.12 (no newer syntax)."""
    src = os.path.dirname(os.path.dirname(os.path.dirname(D.__file__)))
    mods = ["decode", "agent", "analyze", "report", "html", "runner", "warmup",
            "warmup_cli", "cli", "warmup_agent"]
    code = "; ".join("import quickening.lens.%s" % m for m in mods if m != "warmup_agent")
    r = subprocess.run([python, "-c", code], env=dict(os.environ, PYTHONPATH=src),
                       capture_output=True, text=True, timeout=60)
    # rich may be missing there: only a SyntaxError would be our fault
    assert "SyntaxError" not in r.stderr, r.stderr
    for m in mods:
        path = os.path.join(os.path.dirname(D.__file__), m + ".py")
        r = subprocess.run([python, "-c", "import ast, sys; ast.parse(open(sys.argv[1]).read())", path],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, (m, r.stderr)


def test_warmup_cli_options_after_target_are_an_error(tmp_path):
    mod = tmp_path / "m.py"
    mod.write_text("def g(a):\n    return a\n")
    r = subprocess.run([sys.executable, "-m", "quickening", "warmup", "%s::g" % mod, "1", "-n", "3"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "options go before" in r.stderr


@pytest.mark.parametrize("python", python_params())
def test_code_records_rebuilt_from_the_line_table_agree_with_cpython(python):
    """The parent makes a code record's sites and loops from co_linetable
    and co_names (decode.complete_code_meta): its positions are each
    CPython's co_positions(), its names and loop heads dis's."""
    out = _checked(python, "positions_check.py", 300)
    assert out["checked"]["codes"] > 1000
    assert out["checked"]["names"] > 10000
    assert out["checked"]["loops"] > 500
