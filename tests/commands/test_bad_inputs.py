"""Every command against every bad input a newcomer gives it: one clear line on
stderr naming the command, a non-zero exit, and no traceback of quickening's own
code.  Where `python` itself has an answer (a syntax error in the program, a
missing file, a directory), `quickening run` gives python's, compared with the
native run; the report commands give the same facts in their one line."""

import os
import subprocess
import sys

import pytest

PYTHON = sys.executable

GOOD = """\
def f(x):
    return x + 1
for i in range(200):
    f(i)
print("done")
"""


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad")
    (d / "good.py").write_text(GOOD)
    (d / "empty.py").write_text("")
    (d / "syntax.py").write_text("def f(:\n    pass\n")
    (d / "binary.py").write_bytes(b"\x7fELF\x00\x01\x02\xff\xfe")
    (d / "undecodable.py").write_bytes(b"x = '\xff\xfe'\n")
    (d / "fails.py").write_text("raise ValueError('the workload broke')\n")
    (d / "plain_dir").mkdir()
    (d / "plain_dir" / "mod.py").write_text("x = 1\n")
    (d / "main_dir").mkdir()
    (d / "main_dir" / "__main__.py").write_text(
        "import sys\nprint(sys.argv, __name__, __file__, sys.path[0])\n")
    return d


def _run(args, cwd, stdin=""):
    return subprocess.run([PYTHON, "-m", "quickening", *args], capture_output=True, text=True,
                          cwd=cwd, input=stdin, timeout=300)


def _native(args, cwd, stdin=""):
    return subprocess.run([PYTHON, *args], capture_output=True, text=True, cwd=cwd,
                          input=stdin, timeout=300)


def _assert_one_clear_line(out, command):
    text = out.stdout + out.stderr
    assert out.returncode != 0, text
    assert "Traceback" not in text, text
    assert "quickening/" not in text.replace("quickening-records", ""), text
    ours = [line for line in out.stderr.splitlines() if line.startswith(f"quickening {command}")]
    assert len(ours) == 1, out.stderr
    return ours[0]


# (command, arguments, what the one line must say)
NOT_RUNNABLE = {
    "missing": ("missing.py", "can't open file"),
    "directory": ("plain_dir", "can't find '__main__' module"),
    "syntax error": ("syntax.py", "SyntaxError"),
    "binary": ("binary.py", "SyntaxError"),
    "undecodable": ("undecodable.py", "SyntaxError"),
}

PROGRAM_COMMANDS = {
    "dis": ["dis"],
    "fidelity": ["fidelity"],
    "watch": ["watch", "--quiet"],
}


@pytest.mark.parametrize("command", list(PROGRAM_COMMANDS))
@pytest.mark.parametrize("case", list(NOT_RUNNABLE))
def test_a_program_that_cannot_run(command, case, programs):
    path, says = NOT_RUNNABLE[case]
    out = _run([*PROGRAM_COMMANDS[command], path], programs)
    native = _native([path], programs)
    assert native.returncode != 0
    if command == "watch" and case in ("syntax error", "binary", "undecodable"):
        # watch runs the program natively: python says what is wrong, in its words
        assert native.stderr in out.stderr
        line = _assert_one_clear_line(out, command)
        assert "stopped before any of its code ran" in line
        assert out.returncode == native.returncode
        return
    line = _assert_one_clear_line(out, command)
    assert says in line
    assert out.returncode == native.returncode


@pytest.mark.parametrize("case", list(NOT_RUNNABLE))
def test_run_answers_as_python_does(case, programs):
    path, _ = NOT_RUNNABLE[case]
    out = _run(["run", path], programs)
    native = _native([path], programs)
    assert out.returncode == native.returncode
    assert out.stdout == native.stdout
    assert "Traceback" not in out.stderr
    if case in ("missing", "directory"):
        # python prefixes its own name; quickening its command's
        assert out.stderr.split(": ", 1)[1] == native.stderr.split(": ", 1)[1]
    else:
        assert out.stderr == native.stderr


@pytest.mark.parametrize("args", [["main_dir", "a"], ["-", "a"], ["empty.py"]],
                         ids=["directory with __main__", "program on stdin", "empty"])
def test_run_takes_what_python_takes(args, programs):
    stdin = "import sys\nprint(sys.argv, __file__, repr(sys.path[0]))\n" if args[0] == "-" else ""
    out = _run(["run", *args], programs, stdin)
    native = _native(args, programs, stdin)
    assert (out.returncode, out.stdout, out.stderr) == (native.returncode, native.stdout,
                                                        native.stderr)


def test_watch_and_dis_take_the_program_on_stdin(programs):
    watch = _run(["watch", "--quiet", "-"], programs, GOOD)
    assert watch.returncode == 0 and watch.stdout == "done\n", watch.stderr
    dis = _run(["dis", "--function", "f", "-"], programs, GOOD)
    assert dis.returncode == 0, dis.stderr
    assert dis.stdout.startswith("done\n") and "Disassembly of f (<stdin>:1)" in dis.stdout


@pytest.mark.parametrize("command", ["run", "dis", "watch"])
def test_a_missing_module(command, programs):
    out = _run([*PROGRAM_COMMANDS.get(command, [command]), "-m", "no_such_module_here"],
               programs)
    native = _native(["-m", "no_such_module_here"], programs)
    assert out.returncode == native.returncode == 1
    assert "Traceback" not in out.stderr
    assert "No module named no_such_module_here" in out.stderr


UNKNOWN_OPTION = {
    "run": ["run", "--no-such-option", "good.py"],
    "dis": ["dis", "--no-such-option", "good.py"],
    "fidelity": ["fidelity", "--no-such-option", "good.py"],
    "cpython-tests": ["cpython-tests", "--no-such-option", "test_grammar"],
    "watch": ["watch", "--no-such-option", "good.py"],
    "warmup": ["warmup", "--no-such-option", "-c", "pass"],
    "compare": ["compare", "--no-such-option", "good.py"],
    "experiment": ["experiment", "warmup", "--no-such-option"],
    "records": ["records", "--no-such-option"],
}


@pytest.mark.parametrize("command", list(UNKNOWN_OPTION))
def test_an_unknown_option(command, programs):
    out = _run(UNKNOWN_OPTION[command], programs)
    line = _assert_one_clear_line(out, command)
    assert "--no-such-option" in line
    assert out.returncode == 2
    assert out.stdout == ""     # nothing ran


FAILING_SETUPS = {
    "setup does not compile": (["-c", "f(3)", "--setup", "def f(n) return n"], "--setup"),
    "setup raises": (["-c", "f(3)", "--setup", "raise ValueError('no')"], "ValueError"),
    "statement raises": (["-c", "nosuch(3)"], "NameError"),
    "statement does not compile": (["-c", "f(3"], "SyntaxError"),
    "function not found": (["good.py::nosuch"], "nosuch"),
    "file does not compile": (["syntax.py::f"], "SyntaxError"),
    "file missing": (["missing.py::f"], "can't open file"),
    "file raises while loading": (["fails.py::f"], "ValueError"),
}


@pytest.mark.parametrize("case", list(FAILING_SETUPS))
def test_warmup_a_target_that_fails(case, programs):
    args, says = FAILING_SETUPS[case]
    out = _run(["warmup", "--repeat", "0", "-n", "2", *args], programs)
    line = _assert_one_clear_line(out, "warmup")
    assert says in line


@pytest.mark.parametrize("case", ["missing", "directory", "syntax error", "binary"])
def test_compare_a_workload_that_cannot_run(case, programs):
    path, _ = NOT_RUNNABLE[case]
    out = _run(["compare", "-N", "1", "-M", "1", "--no-record", "--no-chart", "-q", path],
               programs)
    assert out.returncode != 0
    assert "Traceback" not in out.stdout + out.stderr
    assert "qk_measure_child" not in out.stdout + out.stderr
    if case in ("missing", "directory"):
        _assert_one_clear_line(out, "compare")
    else:
        assert "not compared: failed" in out.stdout and "SyntaxError" in out.stdout


def test_compare_a_failing_workload_shows_only_its_traceback(programs):
    out = _run(["compare", "-N", "1", "-M", "1", "--no-record", "--no-chart", "-q", "fails.py"],
               programs)
    assert out.returncode == 1
    assert "not compared: failed" in out.stdout
    # the workload's own traceback, none of the child's that drove it
    assert 'fails.py", line 1, in <module>' in out.stderr
    assert "qk_measure_child" not in out.stderr and "quickening/" not in out.stderr


def test_dis_function_not_found(programs):
    out = _run(["dis", "--function", "nosuch", "good.py"], programs)
    line = _assert_one_clear_line(out, "dis")
    assert "nosuch" in line
    assert out.stdout == "done\n"     # the program ran; nothing was listed


def test_records_and_cpython_tests_name_what_is_missing(programs, tmp_path):
    rec = _run(["records", "--records", str(tmp_path), "show", "nosuch"], programs)
    assert "nosuch" in _assert_one_clear_line(rec, "records")
    cpt = _run(["cpython-tests", "test_no_such_module"], programs)
    assert "test_no_such_module" in _assert_one_clear_line(cpt, "cpython-tests")
