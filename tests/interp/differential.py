"""Run the same code natively and in the interpreter, and compare what CPython gives.

`in_process(source)` runs a snippet with exec() and with quickening.api.run_code
in fresh namespaces of the same process, capturing stdout, the exception
(type and message) and the final value of the names the snippet binds.
`as_programs(path)` runs a file with `python` and with `quickening run` in
fresh processes and compares stdout, stderr and the exit status.
"""

import contextlib
import io
import os
import subprocess
import sys
import textwrap

PYTHON = sys.executable
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _outcome(runner, source, filename):
    code = compile(textwrap.dedent(source), filename, "exec")
    namespace = {"__name__": "__snippet__"}
    out = io.StringIO()
    exc = None
    with contextlib.redirect_stdout(out):
        try:
            runner(code, namespace)
        except BaseException as e:  # the outcome is what we compare
            exc = (type(e).__name__, str(e))
    names = {k: _stable_repr(v) for k, v in namespace.items()
             if not k.startswith("__") and not callable(v) and not isinstance(v, type(sys))}
    return {"stdout": out.getvalue(), "exception": exc, "names": names}


def _stable_repr(value):
    text = repr(value)
    if " at 0x" in text or "object at" in text:
        return f"<{type(value).__name__}>"
    return text


def native(source, filename="<snippet>"):
    return _outcome(lambda c, g: exec(c, g), source, filename)


def interpreted(source, filename="<snippet>"):
    from quickening import api
    # a lambda like native()'s, so both stacks have the same caller frames
    return _outcome(lambda c, g: api.run_code(c, g), source, filename)


def assert_same(source, filename="<snippet>"):
    """Run natively and interpreted; assert identical outcomes; return the outcome."""
    expected = native(source, filename)
    actual = interpreted(source, filename)
    assert actual == expected
    return expected


def run_program(args, cwd=None, stdin=None, env=None):
    return subprocess.run(args, cwd=cwd, input=stdin, capture_output=True, text=True,
                          env=env, timeout=300)


def as_programs(path, *argv, stdin=None, extra=(), cwd=None):
    """(native, interpreted) CompletedProcess for `python path argv` and `quickening run`
    (in cwd, by default the script's directory)."""
    cwd = cwd or os.path.dirname(os.path.abspath(path))
    nat = run_program([PYTHON, path, *argv], cwd=cwd, stdin=stdin)
    interp = run_program([PYTHON, "-m", "quickening", "run", *extra, path, *argv], cwd=cwd, stdin=stdin)
    return nat, interp


def assert_same_program(path, *argv, stdin=None, extra=()):
    nat, interp = as_programs(path, *argv, stdin=stdin, extra=extra)
    assert interp.stdout == nat.stdout
    assert interp.stderr == nat.stderr
    assert interp.returncode == nat.returncode
    return nat
