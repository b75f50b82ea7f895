"""`fidelity` gives a verdict only on two runs that did the same thing: both
children get the same stdin, arguments and environment, and a side that failed
or printed something else makes it say "not compared" and exit non-zero."""

import json
import os
import subprocess
import sys

PYTHON = sys.executable

READS_STDIN = """\
import sys
words = sys.stdin.read().split()
def shout(w):
    return w.upper() + "!"
for _ in range(50):
    for w in words:
        shout(w)
print(len(words), sys.argv[1:])
"""


def _fidelity(args, cwd, stdin=""):
    return subprocess.run([PYTHON, "-m", "quickening", "fidelity", *args], capture_output=True,
                          text=True, cwd=cwd, input=stdin, timeout=300)


def test_both_runs_read_the_same_stdin_and_arguments(tmp_path):
    (tmp_path / "prog.py").write_text(READS_STDIN)
    report = tmp_path / "f.json"
    out = _fidelity(["--json", str(report), "prog.py", "x", "y"], tmp_path, "alpha beta gamma\n")
    assert out.returncode == 0, out.stdout + out.stderr
    data = json.loads(report.read_text())
    assert data["compared"] is True
    # the loop over the words ran on both sides: its sites were seen, and agree
    shout = [d for d in data["disagreements"] if ":shout:" in d["site"]]
    assert shout == [] and data["agreeing"] == data["sites"] > 0


def test_a_side_that_prints_something_else_is_not_compared(tmp_path):
    # the interpreter's own modules are in sys.modules under it, not natively
    (tmp_path / "prog.py").write_text(
        "import sys\nprint(sys.modules.get('quickening') is not None)\n"
        "def f(x): return x + 1\nfor i in range(100): f(i)\n")
    out = _fidelity(["prog.py"], tmp_path)
    assert out.returncode == 1
    assert out.stdout.startswith("fidelity: not compared: the runs' stdout differs"), out.stdout
    assert "agree" not in out.stdout


def test_a_failing_program_is_not_compared(tmp_path):
    (tmp_path / "prog.py").write_text(
        "def f(x): return x + 1\nfor i in range(100): f(i)\nraise SystemExit(3)\n")
    report = tmp_path / "f.json"
    out = _fidelity(["--json", str(report), "prog.py"], tmp_path)
    assert out.returncode == 1
    assert out.stdout.startswith("fidelity: not compared: exit status native 3"), out.stdout
    assert json.loads(report.read_text())["compared"] is False


def test_nothing_executed_is_not_a_verdict(tmp_path):
    (tmp_path / "empty.py").write_text("")
    out = _fidelity(["empty.py"], tmp_path)
    assert out.returncode == 1
    assert "not compared" in out.stdout and "100" not in out.stdout


SEES_ITS_WORLD = """\
import os, sys
def pairs(d):
    return sorted(d.items())
for _ in range(30):
    pairs(os.environ)
print(pairs(os.environ))
print(sys.argv, sys.path[0], __file__, __name__, os.getcwd())
print(repr(sys.stdin.read()))
"""


def test_both_runs_see_the_same_environment(tmp_path):
    """Everything the program can see of how it was started prints the same on both
    sides (environment, argv, sys.path[0], __file__, cwd, stdin), or fidelity would
    say "not compared": the native side's sitecustomize leaves no trace."""
    (tmp_path / "prog.py").write_text(SEES_ITS_WORLD)
    env = dict(os.environ, QK_SEEN_BY_BOTH="yes", PYTHONPATH=str(tmp_path / "lib"))
    out = subprocess.run([PYTHON, "-m", "quickening", "fidelity", "prog.py", "-x", "two words"],
                         capture_output=True, text=True, cwd=tmp_path, input="some\ninput\n",
                         env=env, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.startswith("fidelity: ") and "agree" in out.stdout


def test_compare_shows_no_ratio_for_outputs_that_differ(tmp_path):
    """compare: outputs that differ are "not compared", and no B/A ratio stands
    beside that verdict ("B 4.4% slower" would read as a claim)."""
    (tmp_path / "differs.py").write_text("import os\nfor i in range(100): pass\n"
                                         "print(os.getpid())\n")
    out = subprocess.run([PYTHON, "-m", "quickening", "compare", "-N", "1", "-M", "1",
                          "--no-record", "--no-chart", "-q", "differs.py"], capture_output=True,
                         text=True, cwd=tmp_path, timeout=300)
    assert out.returncode == 1
    row = next(line for line in out.stdout.splitlines() if line.startswith("  differs.py  "))
    assert row.endswith("not compared: outputs differ"), out.stdout
    assert "slower" not in row and "faster" not in row and "×" not in row, row
