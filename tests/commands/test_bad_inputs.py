"""Every command against every bad input a newcomer gives it: one clear line on
stderr naming the command, a non-zero exit, and no traceback of quickening's own
code.  Where `python` itself has an answer (a syntax error in the program, a
missing file, a directory), `quickening run` gives python's, compared with the
native run; the report commands give the same facts in their one line.  TABLE at
the end names, for each command and each bad input, the test that checks it or
why the input does not apply (issue 21.2)."""

import json
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
    # interpreters given with --python: every start of theirs is logged, so a test
    # sees that only the version probes ran, never the program
    (d / "old_python").write_text(
        "#!/bin/sh\necho \"$@\" >> \"$(dirname \"$0\")/ran-old\"\n"
        "if [ \"$1\" = -I ] && [ \"$2\" = -c ]; then echo 3 10 4; echo cpython; exit 0; fi\n"
        "exit 1\n")
    (d / "broken_python").write_text(
        "#!/bin/sh\necho \"$@\" >> \"$(dirname \"$0\")/ran-broken\"\n"
        "echo 'fatal: this build cannot start' >&2\nexit 3\n")
    # a Python 2: it knows no -I, and answers only the version probe made without it
    (d / "py2_python").write_text(
        "#!/bin/sh\necho \"$@\" >> \"$(dirname \"$0\")/ran-py2\"\n"
        "if [ \"$1\" = -I ]; then echo 'Unknown option: -I' >&2; exit 2; fi\n"
        "if [ \"$1\" = -E ] && [ \"$3\" = -c ]; then echo 2 7 18; echo cpython; exit 0; fi\n"
        "exit 1\n")
    for name in ("old_python", "broken_python", "py2_python"):
        (d / name).chmod(0o755)
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
    if command != "watch":      # (watch runs python, which says it in its own words)
        # the line names the command given, not the one it runs the program through
        assert out.stderr.startswith(f"quickening {command}: No module named"), out.stderr


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


@pytest.mark.parametrize("command", ["run", "dis", "watch"])
def test_a_failing_program_shows_only_its_traceback(command, programs):
    """The program's own exception is python's answer, exactly: its traceback and
    status, none of quickening's frames (watch runs it natively)."""
    out = _run([*PROGRAM_COMMANDS.get(command, [command]), "fails.py"], programs)
    native = _native(["fails.py"], programs)
    assert out.returncode == native.returncode == 1
    assert out.stderr.startswith(native.stderr), out.stderr
    assert "quickening/" not in out.stderr


@pytest.mark.parametrize("command", ["dis", "watch"])
def test_an_empty_program_is_what_python_makes_of_it(command, programs):
    """An empty file is a program that does nothing (python runs it, status 0):
    dis lists its one code object, watch says nothing ran long enough to be seen.
    (run: test_run_takes_what_python_takes; fidelity refuses a verdict:
    test_no_false_verdicts.py::test_nothing_executed_is_not_a_verdict.)"""
    out = _run([*PROGRAM_COMMANDS.get(command, [command]), "empty.py"]
               if command != "watch" else ["watch", "empty.py"], programs)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    if command == "dis":
        assert out.stdout.startswith("Disassembly of <module> (")
    else:
        assert "No site of the program's own code ran" in " ".join(out.stderr.split())


# --- the table: each command against each bad input ------------------------------------
#
# A cell is a Case (run here: one line naming the command, saying `says`, a
# non-zero status and no traceback; `nothing_ran`: the --python given was started
# only to ask its version), ("test", name): a test of its own checks it (name in
# this file, or "file.py::name" beside it), or
# ("n/a", why the input does not apply to the command).

INPUTS = ("missing", "empty", "binary", "syntax error", "directory", "unknown option",
          "missing -m module", "unsupported --python", "broken --python",
          "failing setup or workload", "--function not found")


class Case:
    def __init__(self, args, says, status=None, nothing_ran=None):
        self.args, self.says, self.status, self.nothing_ran = args, says, status, nothing_ran


NO_PYTHON_OPTION = ("n/a", "runs in the interpreter, on the CPython 3.13 running quickening: "
                           "--python is an unknown option")
NO_FUNCTION_OPTION = ("n/a", "has no --function option")
WARMUP = ["warmup", "-n", "2", "--repeat", "0"]
COMPARE = ["compare", "-N", "1", "-M", "1", "--no-record", "--no-chart", "-q"]
EXPERIMENT = ["--no-record", "--no-chart", "-q"]

TABLE = {
    "run": {
        "missing": ("test", "test_run_answers_as_python_does"),
        "empty": ("test", "test_run_takes_what_python_takes"),
        "binary": ("test", "test_run_answers_as_python_does"),
        "syntax error": ("test", "test_run_answers_as_python_does"),
        "directory": ("test", "test_run_answers_as_python_does"),
        "unknown option": ("test", "test_an_unknown_option"),
        "missing -m module": ("test", "test_a_missing_module"),
        "unsupported --python": NO_PYTHON_OPTION,
        "broken --python": NO_PYTHON_OPTION,
        "failing setup or workload": ("test", "test_a_failing_program_shows_only_its_traceback"),
        "--function not found": NO_FUNCTION_OPTION,
    },
    "dis": {
        "missing": ("test", "test_a_program_that_cannot_run"),
        "empty": ("test", "test_an_empty_program_is_what_python_makes_of_it"),
        "binary": ("test", "test_a_program_that_cannot_run"),
        "syntax error": ("test", "test_a_program_that_cannot_run"),
        "directory": ("test", "test_a_program_that_cannot_run"),
        "unknown option": ("test", "test_an_unknown_option"),
        "missing -m module": ("test", "test_a_missing_module"),
        "unsupported --python": NO_PYTHON_OPTION,
        "broken --python": NO_PYTHON_OPTION,
        "failing setup or workload": ("test", "test_a_failing_program_shows_only_its_traceback"),
        "--function not found": Case(["dis", "--function", "nosuch", "-c", "def f(): pass"],
                                     "--function nosuch: no function of that name ran", 1),
    },
    "fidelity": {
        "missing": ("test", "test_a_program_that_cannot_run"),
        "empty": ("test", "test_no_false_verdicts.py::test_nothing_executed_is_not_a_verdict"),
        "binary": ("test", "test_a_program_that_cannot_run"),
        "syntax error": ("test", "test_a_program_that_cannot_run"),
        "directory": ("test", "test_a_program_that_cannot_run"),
        "unknown option": ("test", "test_an_unknown_option"),
        # sites are joined by file: a module is refused, found or not
        "missing -m module": Case(["fidelity", "-m", "no_such_module_here"],
                                  "give a script path", 2),
        "unsupported --python": NO_PYTHON_OPTION,
        "broken --python": NO_PYTHON_OPTION,
        "failing setup or workload": ("test", "test_no_false_verdicts.py::"
                                              "test_a_failing_program_is_not_compared"),
        "--function not found": NO_FUNCTION_OPTION,
    },
    "watch": {
        "missing": ("test", "test_a_program_that_cannot_run"),
        "empty": ("test", "test_an_empty_program_is_what_python_makes_of_it"),
        "binary": ("test", "test_a_program_that_cannot_run"),
        "syntax error": ("test", "test_a_program_that_cannot_run"),
        "directory": ("test", "test_a_program_that_cannot_run"),
        "unknown option": ("test", "test_an_unknown_option"),
        "missing -m module": ("test", "test_a_missing_module"),
        "unsupported --python": Case(["watch", "--python", "./old_python", "good.py"],
                                     "supports CPython 3.11 to 3.15; ./old_python is CPython "
                                     "3.10.4", 2, nothing_ran="ran-old"),
        "broken --python": Case(["watch", "--python", "./broken_python", "good.py"],
                                "./broken_python is unknown: it did not start: fatal: this "
                                "build cannot start", 2, nothing_ran="ran-broken"),
        "failing setup or workload": ("test", "test_a_failing_program_shows_only_its_traceback"),
        "--function not found": NO_FUNCTION_OPTION,
    },
    "warmup": {
        "missing": Case([*WARMUP, "missing.py::f"], "can't open file", 2),
        "empty": Case([*WARMUP, "empty.py::f"], "has no function 'f'", 2),
        "binary": Case([*WARMUP, "binary.py::f"], "SyntaxError", 2),
        "syntax error": Case([*WARMUP, "syntax.py::f"], "SyntaxError", 2),
        "directory": Case([*WARMUP, "plain_dir::f"], "is a directory", 2),
        "unknown option": ("test", "test_an_unknown_option"),
        "missing -m module": ("n/a", "times a statement or FILE::function, never a module "
                                     "(-m is an unknown option)"),
        "unsupported --python": Case([*WARMUP, "--python", "./old_python", "-c", "pass"],
                                     "supports CPython 3.11 to 3.15", 2, nothing_ran="ran-old"),
        "broken --python": Case([*WARMUP, "--python", "./broken_python", "-c", "pass"],
                                "it did not start", 2, nothing_ran="ran-broken"),
        "failing setup or workload": ("test", "test_warmup_a_target_that_fails"),
        "--function not found": Case([*WARMUP, "good.py::nosuch"], "has no function 'nosuch'",
                                     2),
    },
    "compare": {
        "missing": ("test", "test_compare_a_workload_that_cannot_run"),
        "empty": ("n/a", "an empty file is a workload that does nothing: both sides run it "
                         "and agree"),
        "binary": ("test", "test_compare_a_workload_that_cannot_run"),
        "syntax error": ("test", "test_compare_a_workload_that_cannot_run"),
        "directory": ("test", "test_compare_a_workload_that_cannot_run"),
        "unknown option": ("test", "test_an_unknown_option"),
        "missing -m module": ("n/a", "a workload is a file, pyperformance:NAME or loop:NAME"),
        "unsupported --python": Case([*COMPARE, "--b-python", "./old_python", "good.py"],
                                     "supports CPython 3.11 to 3.15", 2, nothing_ran="ran-old"),
        "broken --python": Case([*COMPARE, "--a-python", "./broken_python", "good.py"],
                                "it did not start: fatal: this build cannot start", 2,
                                nothing_ran="ran-broken"),
        "failing setup or workload": ("test", "test_compare_a_failing_workload_shows_only_"
                                              "its_traceback"),
        "--function not found": NO_FUNCTION_OPTION,
    },
    "experiment": {
        **{case: ("n/a", "runs its own snippets, not a program")
           for case in ("missing", "empty", "binary", "syntax error", "directory",
                        "missing -m module", "failing setup or workload")},
        "unknown option": ("test", "test_an_unknown_option"),
        "unsupported --python": Case(["experiment", "warmup", "--python", "./old_python",
                                      *EXPERIMENT], "supports CPython 3.11 to 3.15", 2,
                                     nothing_ran="ran-old"),
        "broken --python": Case(["experiment", "specialize", "--python", "./broken_python",
                                 *EXPERIMENT], "it did not start", 2, nothing_ran="ran-broken"),
        "--function not found": NO_FUNCTION_OPTION,
    },
    "records": {
        "missing": ("test", "test_records_and_cpython_tests_name_what_is_missing"),
        **{case: ("n/a", "reads records, runs nothing")
           for case in ("empty", "binary", "syntax error", "directory", "missing -m module",
                        "unsupported --python", "broken --python", "failing setup or workload",
                        "--function not found")},
        "unknown option": ("test", "test_an_unknown_option"),
    },
    "cpython-tests": {
        "missing": ("test", "test_records_and_cpython_tests_name_what_is_missing"),
        **{case: ("n/a", "runs the host's own Lib/test modules, named")
           for case in ("empty", "binary", "syntax error", "directory", "missing -m module",
                        "failing setup or workload", "--function not found")},
        "unknown option": ("test", "test_an_unknown_option"),
        "unsupported --python": NO_PYTHON_OPTION,
        "broken --python": NO_PYTHON_OPTION,
    },
}


def test_the_table_covers_every_command_and_input():
    from quickening import cli
    assert set(TABLE) == set(cli.COMMANDS)
    here = os.path.dirname(os.path.abspath(__file__))
    for command, cells in TABLE.items():
        assert set(cells) == set(INPUTS), command
        for case, cell in cells.items():
            if isinstance(cell, Case):
                continue
            kind, what = cell
            assert kind in ("test", "n/a") and what, (command, case)
            if kind == "n/a":
                continue
            path, _, name = what.rpartition("::")
            source = open(os.path.join(here, path) if path else __file__).read()
            assert f"def {name}(" in source, (command, case, what)


CASES = [(command, case) for command, cells in TABLE.items() for case, cell in cells.items()
         if isinstance(cell, Case)]


@pytest.mark.parametrize("command, case", CASES, ids=[f"{c}-{i}" for c, i in CASES])
def test_the_table(command, case, programs):
    cell = TABLE[command][case]
    if cell.nothing_ran:
        (programs / cell.nothing_ran).unlink(missing_ok=True)
    out = _run(cell.args, programs)
    line = _assert_one_clear_line(out, command)
    assert cell.says in line
    if cell.status is not None:
        assert out.returncode == cell.status, line
    if cell.nothing_ran:
        # started only to be asked what it is: the lens's probe or the version question
        log = programs / cell.nothing_ran
        starts = log.read_text().splitlines() if log.exists() else []
        assert starts, "the interpreter was never asked"
        assert all(_only_asked(s) for s in starts), starts
        assert out.stdout == "" or "good.py" not in out.stdout


# what each command's --help must say of the inputs it takes (it once named fewer
# than the command accepts, and an older range of --python)
HELP_SAYS = {
    "run": ["directory", "- args", "-m", "-c"],
    "dis": ["- args", "-m", "-c"],
    "watch": ["directory", "| -)", "-m", "-c"],
    "warmup": ["CPython 3.11 to 3.15"],
}


@pytest.mark.parametrize("command", list(HELP_SAYS))
def test_help_names_every_input_the_command_takes(command, programs):
    out = _run([command, "--help"], programs)
    assert out.returncode == 0
    text = " ".join(out.stdout.split())
    for words in HELP_SAYS[command]:
        assert words in text, (words, out.stdout)


def _only_asked(start):
    """A start of a --python given that only asked what it is: the lens's probe,
    or the version question (with -I, and again without it for a Python 2)."""
    return "decode.py --describe" in start or start.startswith(("-I -c", "-E -s -c"))


PY2_REFUSED = {
    "watch": ["watch", "--python", "./py2_python", "good.py"],
    "warmup": [*WARMUP, "--python", "./py2_python", "-c", "pass"],
    "compare": [*COMPARE, "--b-python", "./py2_python", "good.py"],
    "experiment": ["experiment", "specialize", "--python", "./py2_python", *EXPERIMENT],
}


@pytest.mark.parametrize("command", list(PY2_REFUSED))
def test_a_python_2_is_named_not_unknown(command, programs):
    """A Python 2 cannot run the version probe with -I: it is still named by its
    version (it once read 'is unknown: it did not start: AttributeError ...')."""
    (programs / "ran-py2").unlink(missing_ok=True)
    out = _run(PY2_REFUSED[command], programs)
    line = _assert_one_clear_line(out, command)
    assert "py2_python is CPython 2.7.18" in line, line
    starts = (programs / "ran-py2").read_text().splitlines()
    assert all(_only_asked(s) for s in starts), starts


def test_watch_on_stdin_quotes_the_program_as_from_a_file(programs, tmp_path):
    """The report's sites quote the same source text for a program piped in as
    for the same program in a file (it once showed only the attribute's name).
    (Its module-level code, found only by a tick while it runs, is often not
    seen in so short a run from stdin: docs/status.md, so the sites seen
    from stdin are compared with the file's.)"""
    (tmp_path / "good.py").write_text(GOOD)
    quoted = []
    for args, stdin in ((["-"], GOOD), ([str(tmp_path / "good.py")], "")):
        out = _run(["watch", "--quiet", "--json", str(tmp_path / "r.json"), *args],
                   programs, stdin)
        assert out.returncode == 0 and out.stdout == "done\n", out.stderr
        sites = json.loads((tmp_path / "r.json").read_text())["sites"]
        quoted.append(sorted((s["line"], s["source"]) for s in sites))
    assert quoted[0] and set(quoted[0]) <= set(quoted[1]), quoted
    assert all(text for _, text in quoted[0]), quoted
