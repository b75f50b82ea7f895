"""The commands that report the interpreter's state: dis, fidelity, run --stats."""

import json
import os
import subprocess
import sys

import pytest

PYTHON = sys.executable

PROGRAM = """
class P:
    def __init__(self, x):
        self.x = x
def add(a, b):
    return a + b
def main():
    t = 0
    for i in range(100):
        t = add(t, i)
    t2 = 0.0
    for i in range(100):
        t2 = add(t2, 0.5)
    print(t, t2, P(3).x)
main()
"""


def _quickening(*args, cwd):
    return subprocess.run([PYTHON, "-m", "quickening", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "prog.py"
    path.write_text(PROGRAM)
    return path


def test_dis_shows_live_forms_and_decoded_counters(program):
    out = _quickening("dis", "--function", "add", str(program), cwd=program.parent)
    assert out.returncode == 0, out.stderr
    native = subprocess.run([PYTHON, str(program)], capture_output=True, text=True)
    assert out.stdout.startswith(native.stdout)
    listing = out.stdout[len(native.stdout):]
    # the live form CPython itself has after the same run
    probe = subprocess.run([PYTHON, "-c", PROGRAM + "\nimport dis\nprint([i.opname for i in "
                            "dis.get_instructions(add, adaptive=True) if i.opname.startswith('BINARY_OP')][0])"],
                           capture_output=True, text=True)
    form = probe.stdout.split()[-1]
    assert form in listing
    assert "counter 0x" in listing and "backoff" in listing


def test_fidelity_json_schema_and_agreement_on_binary_ops(program, tmp_path):
    report = tmp_path / "fidelity.json"
    out = _quickening("fidelity", "--json", str(report), str(program), cwd=program.parent)
    data = json.loads(report.read_text())
    assert set(data) >= {"sites", "agreeing", "disagreements"}
    assert data["sites"] >= data["agreeing"] > 0
    assert f"{data['agreeing']}/{data['sites']}" in out.stdout
    for d in data["disagreements"]:
        assert d["site"].count(":") >= 3
        assert set(d) == {"site", "cpython", "interpreter"}
    # BINARY_OP is implemented: its site must agree with CPython
    binop = [d for d in data["disagreements"] if ":add:" in d["site"]
             and (d["cpython"] or [""])[0].startswith("BINARY_OP")]
    assert binop == []


def test_fidelity_options_after_the_script_are_the_scripts_with_a_note(program, tmp_path):
    # as with `python script.py --json F`: the script gets them; the report says so
    report = tmp_path / "late.json"
    out = _quickening("fidelity", str(program), "--json", str(report), cwd=program.parent)
    assert "fidelity:" in out.stdout and not report.exists()
    assert "--json after the program is the program's argument" in out.stderr


def test_fidelity_of_a_program_in_the_temp_dir(program, tmp_path):
    # the native side's helper is written to a temporary directory, here inside the
    # program's: its own code is not the program's
    report = tmp_path / "fidelity.json"
    out = subprocess.run([PYTHON, "-m", "quickening", "fidelity", "--json", str(report),
                          str(program)], cwd=tmp_path, capture_output=True, text=True,
                         timeout=300, env={**os.environ, "TMPDIR": str(tmp_path)})
    data = json.loads(report.read_text())
    assert data["disagreements"] == [], out.stdout


def test_run_stats_json_lists_sites(program, tmp_path):
    report = tmp_path / "stats.json"
    out = _quickening("run", "--stats", "--stats-json", str(report), str(program), cwd=program.parent)
    assert out.returncode == 0, out.stderr
    data = json.loads(report.read_text())
    assert data["schema"] == "quickening-stats/2"
    sites = {s["site"].split(":", 1)[1]: s for s in data["sites"]}
    binop = [s for key, s in sites.items() if key.startswith("add:") and s["family"] == "BINARY_OP"][0]
    assert binop["executions"] == 200
    assert binop["successes"] >= 1 and binop["misses"] >= 1
    assert {tuple(t) for t in binop["types"]} >= {("int, int", 100)}
    # a call site records the callable's type (not its last argument's)
    calls = [s for key, s in sites.items() if key.startswith("main:") and s["family"] == "CALL"]
    assert {tuple(t) for s in calls for t in s["types"]} >= {("function", 100), ("type", 1)}
    assert "escapes" in out.stderr


def test_run_stats_with_modules_named_like_the_reports(tmp_path):
    """A program whose directory has its own json.py and rich.py (imported by the
    program, as natively) still gets its statistics: the report's modules are
    not looked up after the program ran."""
    prog = tmp_path / "prog"
    prog.mkdir()
    (prog / "json.py").write_text("MINE = True\n")
    (prog / "rich.py").write_text("MINE = True\n")
    (prog / "main.py").write_text("import json, rich\nprint(json.MINE)\n" + PROGRAM)
    report = tmp_path / "stats.json"
    # (run from elsewhere: `python -m` would put the program's directory first for
    # quickening's own imports too)
    out = _quickening("run", "--stats", "--stats-json", str(report), str(prog / "main.py"),
                      cwd=tmp_path)
    native = subprocess.run([PYTHON, str(prog / "main.py")], cwd=tmp_path, capture_output=True,
                            text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout == native.stdout
    assert json.loads(report.read_text())["schema"] == "quickening-stats/2"
    assert "executed sites" in out.stderr


def test_no_specialize_leaves_sites_generic(program):
    plain = _quickening("dis", "--function", "add", str(program), cwd=program.parent)
    generic = _quickening("dis", "--no-specialize", "--function", "add", str(program), cwd=program.parent)
    assert generic.returncode == plain.returncode == 0
    assert "BINARY_OP_" in plain.stdout
    assert "BINARY_OP_" not in generic.stdout and "BINARY_OP " in generic.stdout
    assert generic.stdout.split("Disassembly")[0] == plain.stdout.split("Disassembly")[0]
