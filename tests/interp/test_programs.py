"""Whole programs run by `python` and by `quickening run`: same stdout, stderr, exit status."""

import glob
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.interp.differential import PYTHON, as_programs, assert_same_program, run_program

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = sorted(glob.glob(os.path.join(HERE, "programs", "p*.py")))


@pytest.mark.parametrize("path", PROGRAMS, ids=os.path.basename)
def test_program_same_as_native(path):
    assert_same_program(path, "arg1", "--flag")


def test_stdin_is_the_programs(tmp_path):
    script = tmp_path / "echo.py"
    script.write_text("import sys\nfor line in sys.stdin:\n    print(line.upper(), end='')\n")
    assert_same_program(str(script), stdin="abc\ndef\n")


def test_programs_own_modules_shadow_the_standard_ones(tmp_path):
    """Modules next to the program named like standard ones (some the interpreter
    itself imports: ast, copy, token, inspect) are the program's, as natively."""
    prog = tmp_path / "prog"
    (prog / "inspect").mkdir(parents=True)
    (prog / "inspect" / "__init__.py").write_text("WHO = 'mine: inspect'\n")
    for name in ("ast", "copy", "token", "json"):
        (prog / f"{name}.py").write_text(f"WHO = 'mine: {name}'\n")
    script = prog / "main.py"
    script.write_text("import ast, copy, token, json, inspect, re\n"
                      "print(ast.WHO, copy.WHO, token.WHO, json.WHO, inspect.WHO)\n"
                      "print(re.sub('a', 'b', 'aaa'))\n")
    nat = run_program([PYTHON, str(script)], cwd=tmp_path)
    interp = run_program([PYTHON, "-m", "quickening", "run", str(script)], cwd=tmp_path)
    assert nat.returncode == 0, nat.stderr
    assert (interp.stdout, interp.stderr, interp.returncode) == (nat.stdout, nat.stderr, nat.returncode)


def test_dash_c_and_dash_m(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "mod.py").write_text("import sys\nprint(__name__, sys.argv[1:], __spec__.name)\n")
    (pkg / "__main__.py").write_text("print('package main', __name__)\n")
    for args in (["-c", "import sys; print(sys.argv, __name__); raise SystemExit(4)", "x"],
                 ["-m", "pkg.mod", "a", "b"], ["-m", "pkg"]):
        nat = run_program([PYTHON, *args], cwd=tmp_path)
        interp = run_program([PYTHON, "-m", "quickening", "run", *args], cwd=tmp_path)
        assert (interp.stdout, interp.stderr, interp.returncode) == (nat.stdout, nat.stderr, nat.returncode)


def test_main_module_names_like_cpythons(tmp_path):
    """__main__ starts with CPython's names in CPython's order (LOAD_GLOBAL caches a
    name's index in the dict), -c has no __file__, and once a script has run (and
    its traceback is printed) __file__ and __cached__ are gone for the atexit handlers."""
    script = tmp_path / "main.py"
    script.write_text("import atexit, sys\n"
                      "print(list(globals()), __annotations__, __cached__)\n"
                      "atexit.register(lambda: print(list(sys.modules['__main__'].__dict__)))\n"
                      "raise ValueError(__file__ == sys.argv[0])\n")
    assert_same_program(str(script))
    (tmp_path / "mod.py").write_text("print(list(globals()), __annotations__)\n")
    for args in (["-c", "print(list(globals()))"], ["-m", "mod"]):
        nat = run_program([PYTHON, *args], cwd=tmp_path)
        interp = run_program([PYTHON, "-m", "quickening", "run", *args], cwd=tmp_path)
        assert (interp.stdout, interp.stderr, interp.returncode) == (nat.stdout, nat.stderr, nat.returncode)


def test_imports_from_program_directory_are_interpreted(tmp_path):
    (tmp_path / "helper.py").write_text("def twice(x):\n    return 2 * x\n")
    (tmp_path / "main.py").write_text(
        "import helper\nprint(helper.twice(21), helper.__name__, type(helper.twice).__name__)\n")
    nat = assert_same_program(str(tmp_path / "main.py"))
    assert "42" in nat.stdout


@pytest.mark.parametrize("relative", [False, True], ids=["absolute", "relative"])
def test_syntax_error_reported_like_cpython(tmp_path, relative):
    script = tmp_path / "bad.py"
    script.write_text("x = 1\ndef f(:\n    pass\n")
    # (run from its directory, so "bad.py" is the script as the user typed it)
    nat, interp = as_programs("bad.py" if relative else str(script), cwd=str(tmp_path))
    assert interp.returncode == nat.returncode == 1
    assert interp.stderr == nat.stderr


@pytest.mark.parametrize("args", [["/no/such/file.py"], ["--bogus-option", "x.py"], []])
def test_bad_invocations_give_one_line_errors(args):
    result = run_program([PYTHON, "-m", "quickening", "run", *args])
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_unsupported_host_python_is_a_clear_error():
    other = os.path.expanduser("~/.pyenv/versions/3.12.1/bin/python")
    if not os.path.exists(other):
        pytest.skip("CPython 3.12 is not installed here")
    src = os.path.join(os.path.dirname(os.path.dirname(HERE)), "src")
    result = run_program([other, "-m", "quickening", "run", "-c", "print(1)"],
                         env={**os.environ, "PYTHONPATH": src})
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert "3.13" in result.stderr


def test_recursion_limit_like_cpython(tmp_path):
    script = tmp_path / "deep.py"
    script.write_text(
        "import sys\n"
        "def down(n):\n    return down(n + 1) if n < 100000 else n\n"
        "def depth(n=0):\n"
        "    try:\n        return depth(n + 1)\n"
        "    except RecursionError:\n        return n\n"
        "print(sys.getrecursionlimit())\n"
        "sys.setrecursionlimit(5000)\n"
        "def count(n):\n    return n if n == 0 else 1 + count(n - 1)\n"
        "print(count(4900))\n"
        "try:\n    down(0)\nexcept RecursionError as e:\n    print('RecursionError', e)\n")
    assert_same_program(str(script))


def test_keyboard_interrupt_runs_finally_and_exits_like_cpython(tmp_path):
    script = tmp_path / "sleepy.py"
    script.write_text(
        "import time, sys\n"
        "try:\n"
        "    print('ready', flush=True)\n"
        "    while True:\n        time.sleep(0.01)\n"
        "finally:\n"
        "    print('finally ran', flush=True)\n")
    outcomes = []
    for cmd in ([PYTHON, str(script)], [PYTHON, "-m", "quickening", "run", str(script)]):
        # (SIGINT as a terminal leaves it: a shell's background job inherits it ignored)
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        assert proc.stdout.readline() == "ready\n"
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        outcomes.append((out, err.strip().splitlines()[-1], proc.returncode))
    assert outcomes[1] == outcomes[0]
    assert outcomes[0][0] == "finally ran\n"
