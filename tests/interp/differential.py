"""Run the same code natively and in the interpreter, and compare what CPython gives.

`in_process(source)` runs a snippet with exec() and with quickening.api.run_code
in fresh namespaces of the same process, capturing stdout, the exception
(type and message) and the final value of the names the snippet binds.
`as_programs(path)` runs a file with `python` and with `quickening run` in
fresh processes and compares stdout, stderr and the exit status.

Both kinds also check that the interpreted side really ran in the interpreter:
no escape (interpreted code CPython executed itself, counted by
quickening.interp.escapes), and the snippet's code objects the interpreter
started are the ones CPython started natively (sys.monitoring PY_START on the
native side; the interpreted side's RESUME sites, which only the interpreter's
own execution rewrites to RESUME_CHECK).  So a snippet that silently runs
natively fails.
"""

import contextlib
import copy
import dis
import io
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import types

PYTHON = sys.executable
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_RESUME = dis.opmap["RESUME"]
# snippets that install a trace or profile function (see assert_same), or an audit
# hook (CPython runs hooks with tracing off: no PY_START of a hook's code)
_HIDES_STARTS = ("settrace", "setprofile", "monitoring", "addaudithook")


def code_tree(code):
    """Every code object compiled from one source, in a fixed order (the same
    for two compilations of the same source): (key, code) pairs."""
    out = []
    stack = [code]
    while stack:
        c = stack.pop(0)
        out.append((f"{len(out)}:{c.co_qualname}", c))
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return out


def hides_starts(codes):
    """True when the code may install a trace or profile function: CPython
    reports no PY_START while one runs (nor of the function itself), so the
    starts it reports are then only a part of those the interpreter makes."""
    return any(name in c.co_names for _, c in codes for name in _HIDES_STARTS)


def _first_resume(code):
    """Byte offset of the RESUME that starts the code object (oparg 0: not a
    resumption after a yield or an await)."""
    raw = code.co_code
    for i in range(0, len(raw), 2):
        if raw[i] == _RESUME and raw[i + 1] & 3 == 0:
            return i
    raise AssertionError(f"no RESUME in {code.co_qualname}")


@contextlib.contextmanager
def native_starts(codes):
    """Count, per code object, how often CPython started it (PY_START) while the
    block runs; yields the Counter filled in.  Local events only: other code
    runs as it would unwatched."""
    import collections
    mon = sys.monitoring
    tool = next(t for t in (3, 2, 1, 0) if mon.get_tool(t) is None)
    starts = collections.Counter()
    keys = {id(c): k for k, c in codes}
    mon.use_tool_id(tool, "differential-native-starts")
    try:
        mon.register_callback(tool, mon.events.PY_START,
                              lambda code, offset: starts.update((keys.get(id(code)),)))
        for _, c in codes:
            mon.set_local_events(tool, c, mon.events.PY_START)
        yield starts
    finally:
        for _, c in codes:
            mon.set_local_events(tool, c, 0)
        mon.register_callback(tool, mon.events.PY_START, None)
        mon.free_tool_id(tool)


def interpreted_starts(codes):
    """The code objects the interpreter has started: their first RESUME site
    was executed by the interpreter (rewritten in its quickened stream)."""
    from quickening.interp import sitestate
    started = set()
    for key, c in codes:
        info = sitestate.info_of(c)
        if info is None or info.quickened is None:
            continue
        if info.quickened.tobytes()[_first_resume(c)] != _RESUME:
            started.add(key)
    return started


def _outcome(runner, code):
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
    """The outcome of exec(); "started" lists the snippet's code objects
    CPython started (each at least once)."""
    code = compile(textwrap.dedent(source), filename, "exec")
    tree = code_tree(code)
    with native_starts(tree) as starts:
        result = _outcome(lambda c, g: exec(c, g), code)
    result["started"] = sorted(k for k, n in starts.items() if k is not None and n)
    return result


def _interpreter_entry():
    """What interpreted() runs a snippet with: api.run_code (a test replaces
    this to show that the checks catch a snippet run natively)."""
    from quickening import api
    return api.run_code


def interpreted(source, filename="<snippet>"):
    """The outcome of api.run_code(); "started" lists the snippet's code objects
    the interpreter started, "escapes" how often CPython itself started
    interpreted code meanwhile (0 in a clean run)."""
    import quickening.api  # noqa: F401  (the interpreter, imported in its own order)
    from quickening.interp import escapes
    escapes.enable()
    assert escapes._enabled, "the sys.monitoring tool id for escapes is taken"
    before = escapes.COUNTS.copy()
    code = compile(textwrap.dedent(source), filename, "exec")
    # a lambda like native()'s, so both stacks have the same caller frames
    result = _outcome(lambda c, g: _interpreter_entry()(c, g), code)
    result["started"] = sorted(interpreted_starts(code_tree(code)))
    result["escapes"] = dict(escapes.COUNTS - before)
    return result


def assert_same(source, filename="<snippet>", predicted=None):
    """Run natively and interpreted; assert identical outcomes, that nothing
    escaped to native execution, and that the interpreter started the code
    objects CPython did; return the (native) outcome.

    With `predicted` (a known difference), the interpreted outcome must instead
    be predicted(native outcome): exactly the one wrong outcome it stands for,
    and not the native one."""
    native_outcome = expected = native(source, filename)
    actual = interpreted(source, filename)
    if predicted is not None:
        expected = predicted(copy.deepcopy(native_outcome))
        assert expected != native_outcome, "the prediction is the native outcome"
    escaped = actual.pop("escapes")
    assert not escaped, f"interpreted code ran natively: {escaped}"
    assert expected["started"], "the native run started no code object of the snippet"
    if hides_starts(code_tree(compile(textwrap.dedent(source), filename, "exec"))):
        # CPython reports no PY_START while a trace or profile function runs (nor
        # of the trace function itself): every start it reported, the interpreter made
        missing = set(expected["started"]) - set(actual["started"])
        assert not missing, f"started natively, not by the interpreter: {sorted(missing)}"
        actual["started"] = expected["started"]
    assert actual == expected, "\n".join(
        f"{key} differs:\n  {'predicted' if predicted else 'native'}   {expected[key]!r}\n"
        f"  interpreted {actual[key]!r}" for key in expected if actual[key] != expected[key])
    return native_outcome


def run_program(args, cwd=None, stdin=None, env=None):
    return subprocess.run(args, cwd=cwd, input=stdin, capture_output=True, text=True,
                          env=env, timeout=300)


# sitecustomize for both runs of a program: at exit it writes (to the file named
# by the environment, which it takes out so that processes the program starts do
# not write too) the program's code objects that were started -- natively those
# CPython reported a PY_START for, interpreted those whose first RESUME the
# interpreter rewrote -- and, interpreted, the escapes.
_SITECUSTOMIZE = r"""
import atexit, json, os, sys
_out = os.environ.pop("QUICKENING_DIFFERENTIAL_OUT", None)
_dir = os.environ.pop("QUICKENING_DIFFERENTIAL_DIR", None)
_path = os.environ.pop("QUICKENING_DIFFERENTIAL_PYTHONPATH", None)
if _path:
    os.environ["PYTHONPATH"] = _path
elif _path is not None:
    os.environ.pop("PYTHONPATH", None)

def _mine(code):
    return (os.path.isabs(code.co_filename)
            and os.path.realpath(code.co_filename).startswith(_dir + os.sep))

def _where(code):
    return [code.co_filename, code.co_qualname, code.co_firstlineno]

if _out and _dir:
    _native = set()
    _mon = sys.monitoring
    _tool = 3

    def _on_start(code, offset):
        if _mine(code):
            _native.add(tuple(_where(code)))
        return _mon.DISABLE     # one report per code object is all this needs

    if _mon.get_tool(_tool) is None:
        _mon.use_tool_id(_tool, "differential-native-starts")
        _mon.register_callback(_tool, _mon.events.PY_START, _on_start)
        _mon.set_events(_tool, _mon.events.PY_START)

    def _dump():
        record = {"native_starts": sorted(_native)}
        escapes = sys.modules.get("quickening.interp.escapes")
        if escapes is not None and escapes._enabled:
            _mon.set_events(_tool, 0)     # the interpreted run: no native starts to report
            from quickening.interp.codeinfo import _INFOS
            resume = __import__("dis").opmap["RESUME"]
            started = set()
            for info in list(_INFOS.values()):
                code = info.code
                if info.quickened is None or not _mine(code):
                    continue
                raw = code.co_code
                first = next(i for i in range(0, len(raw), 2)
                             if raw[i] == resume and raw[i + 1] & 3 == 0)
                if info.quickened.tobytes()[first] != resume:
                    started.add(tuple(_where(code)))
            record = {"interpreted_starts": sorted(started), "escapes": escapes.total()}
        with open(_out, "w") as fh:
            json.dump(record, fh)
    atexit.register(_dump)
"""


def _run_recorded(args, cwd, stdin, program_dir, site_dir, record=True):
    """run_program with the sitecustomize above; the CompletedProcess gets
    .starts (a set of (file, qualname, first line), None when the process wrote
    no record: it did not get to its exit handlers, or record is false) and .escapes."""
    out = os.path.join(site_dir, "record.json")
    env = dict(os.environ)
    old_path = env.get("PYTHONPATH", "")
    env["PYTHONPATH"] = site_dir + (os.pathsep + old_path if old_path else "")
    env["QUICKENING_DIFFERENTIAL_PYTHONPATH"] = old_path
    if record:
        env["QUICKENING_DIFFERENTIAL_OUT"] = out
        env["QUICKENING_DIFFERENTIAL_DIR"] = program_dir
    proc = run_program(args, cwd=cwd, stdin=stdin, env=env)
    proc.starts = proc.escapes = None
    if os.path.exists(out):
        with open(out) as fh:
            record = json.load(fh)
        os.unlink(out)
        starts = record.get("native_starts", record.get("interpreted_starts"))
        proc.starts = {tuple(s) for s in starts}
        proc.escapes = record.get("escapes")
    return proc


# how as_programs runs the interpreted side (a test replaces it with plain python)
INTERPRETED_COMMAND = [PYTHON, "-m", "quickening", "run"]


def as_programs(path, *argv, stdin=None, extra=(), cwd=None, native_starts=True):
    """(native, interpreted) CompletedProcess for `python path argv` and `quickening run`
    (in cwd, by default the script's directory).  Each has .starts, the program's
    code objects started (natively: CPython's PY_START), and the interpreted one
    .escapes (see _run_recorded).  native_starts=False: the native run is not
    watched (.starts None): a sys.monitoring tool changes what CPython 3.13.0's
    legacy tracing reports (pdb.set_trace stops a line later)."""
    cwd = cwd or os.path.dirname(os.path.abspath(path))
    program_dir = os.path.dirname(os.path.realpath(os.path.join(cwd, path)))
    # one directory for both runs: sys.path is alike
    with tempfile.TemporaryDirectory() as site_dir:
        with open(os.path.join(site_dir, "sitecustomize.py"), "w") as fh:
            fh.write(_SITECUSTOMIZE)
        nat = _run_recorded([PYTHON, path, *argv], cwd, stdin, program_dir, site_dir,
                            record=native_starts)
        interp = _run_recorded([*INTERPRETED_COMMAND, *extra, path, *argv],
                               cwd, stdin, program_dir, site_dir)
    return nat, interp


def assert_same_program(path, *argv, stdin=None, extra=()):
    """Same output and status; nothing escaped; the interpreter started the
    program's code objects CPython started."""
    nat, interp = as_programs(path, *argv, stdin=stdin, extra=extra)
    assert interp.stdout == nat.stdout
    assert interp.stderr == nat.stderr
    assert interp.returncode == nat.returncode
    assert interp.escapes is not None, "the interpreted run did not report from the interpreter"
    assert interp.escapes == 0, f"interpreted code ran natively: {interp.escapes} starts"
    assert nat.starts, "the native run started no code object of the program"
    with open(path) as fh:
        text = fh.read()      # (once: a second read() gives "")
    hides_starts = any(name in text for name in _HIDES_STARTS)
    if hides_starts:    # (see assert_same)
        assert nat.starts <= interp.starts, (
            f"started natively only: {sorted(nat.starts - interp.starts)}")
        return nat
    assert interp.starts == nat.starts, (
        f"started natively only: {sorted(nat.starts - interp.starts)}\n"
        f"started interpreted only: {sorted(interp.starts - nat.starts)}")
    return nat
