"""`quickening dis --generated NAME`: the fused source of a function's runs."""

import dis
import re
import subprocess
import sys

PYTHON = sys.executable

PROGRAM = """
def total(values):
    acc = 0
    for v in values:
        acc = acc + v * 3
    return acc

def once(x):
    return x - 1

for _ in range(200):
    r = total(list(range(50)))
print(r, once(r))
"""


def _dis(*args, cwd):
    return subprocess.run([PYTHON, "-m", "quickening", "dis", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def _program(tmp_path):
    path = tmp_path / "hot.py"
    path.write_text(PROGRAM)
    return path


def test_a_hot_loop_shows_a_run_holding_the_loop_operation(tmp_path):
    path = _program(tmp_path)
    out = _dis("--generated", "total", "--generated", "once", str(path), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    native = subprocess.run([PYTHON, str(path)], capture_output=True, text=True)
    assert out.stdout.startswith(native.stdout)      # the program ran as `python` runs it
    shown = out.stdout[len(native.stdout):]
    total_part, once_part = shown.split("Generated code of once")
    assert total_part.startswith("Generated code of total")
    # the multiply's instruction (offset from CPython's own dis): the run that sets
    # `at` to it (its code-unit index) computes `... * ...` in place
    ns = {}
    exec(compile(PROGRAM.split("for _ in")[0], str(path), "exec"), ns)
    multiply = [i.offset for i in dis.get_instructions(ns["total"])
                if i.opname == "BINARY_OP" and i.argrepr == "*"]
    assert len(multiply) == 1
    runs = total_part.split("\n-- run at offset ")[1:]
    holding = [r for r in runs if f"at = {multiply[0] // 2}\n" in r]
    assert holding, total_part
    assert any(re.search(r"\bt\d+ = t\d+ \* (p\d+|3)\b", r) for r in holding), holding
    # each run is named by its file, as tracebacks and pdb show it
    assert all("<fused run " in r.splitlines()[0] for r in runs)
    # called once: too few executions to be fused, and it says so
    assert "none: " in once_part and "-- run at offset" not in once_part


def test_a_name_that_matches_no_function_is_one_error_line(tmp_path):
    path = _program(tmp_path)
    out = _dis("--generated", "nosuch", str(path), cwd=tmp_path)
    assert out.returncode != 0
    assert out.stderr.count("\n") == 1 and "nosuch" in out.stderr
    assert "Traceback" not in out.stderr
