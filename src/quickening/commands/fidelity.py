"""`quickening fidelity`: does the interpreter specialize like CPython?

    quickening fidelity [--json FILE] [--all] script.py args...

Runs the script natively (a fresh process) and in the interpreter (another
fresh process), reads every site of the program's code objects at exit --
CPython's `_co_code_adaptive`, the interpreter's quickened streams -- joins
them by (file, qualified name, first line, offset) and reports the share of
executed sites whose form, counter and decoded cache cells agree, listing
every disagreement.  Cache cells are compared as what they resolve to in
their own process (quickening.interp.sitestate.Resolver): cached classes and
functions by qualified name, dict-keys versions as the dict they belong to,
pointers as the attribute they point to; never by version number or address.
Both children run with the cyclic garbage collector disabled (a program's own
gc.collect() calls still run): a class dies only through a collection, and
automatic collections come at allocation counts, which differ between the
interpreter and CPython, so a cached class's name would otherwise depend on
when each side happened to collect.
A site is "executed" when either side moved it from its initial state.

--json FILE writes {"sites": N, "agreeing": K, "disagreements": [{"site":
"file:qualname:firstlineno:offset", "cpython": [form, counter(, cells)],
"interpreter": [form, counter(, cells)]}, ...]} (forms carry "[Class]" when a
class is cached; cells, a dict of resolved cache fields, when the form is
specialized).  --all compares sites that neither side executed too.
"""

import json
import os
import subprocess
import sys
import tempfile

from quickening.pyargs import UsageError, note_late_options, parse_python_like

def program_file(filename, program_dir):
    """Whether code from `filename` is the program's: under its directory, but not in
    the standard library, an installed package's directory or quickening's own, which
    can lie under it too (a .venv beside the script)."""
    if not os.path.isabs(filename):
        return False
    path = os.path.realpath(filename)
    if not path.startswith(program_dir + os.sep):
        return False
    return not any(path.startswith(d) and not program_dir.startswith(d) for d in _installed_dirs())


def _installed_dirs():
    dirs = {os.path.dirname(os.path.realpath(os.__file__)),
            os.path.dirname(os.path.dirname(os.path.realpath(__file__)))}   # (quickening's)
    dirs.update(os.path.realpath(p) for p in sys.path
                if p and ("site-packages" in p or "dist-packages" in p))
    return tuple(d + os.sep for d in dirs)


# The native side runs `python script.py args...` itself (so the program's
# frames sit on nothing, as they do under `quickening run`), with this module
# as sitecustomize: it records the code objects executed and writes the sites
# at exit.  It takes its settings out of the environment, so that processes
# the program starts do not inherit them.
_NATIVE_SITECUSTOMIZE = r"""
import atexit, gc, json, os, sys, types
gc.disable()
out_path = os.environ.pop("QUICKENING_FIDELITY_OUT")
program_dir = os.environ.pop("QUICKENING_FIDELITY_DIR")
_path = os.environ.pop("QUICKENING_FIDELITY_PYTHONPATH")
if _path:
    os.environ["PYTHONPATH"] = _path
else:
    os.environ.pop("PYTHONPATH", None)
own_file = os.path.realpath(__file__)
seen = {}
def audit(event, args):
    if event == "exec" and args and isinstance(args[0], types.CodeType):
        seen[id(args[0])] = args[0]
sys.addaudithook(audit)
def dump():
    from quickening.commands.fidelity import program_file
    from quickening.interp import sitestate
    codes = dict(seen)
    for obj in gc.get_objects():
        if isinstance(obj, types.FunctionType):
            codes[id(obj.__code__)] = obj.__code__
    stack = list(codes.values())
    while stack:
        code = stack.pop()
        for const in code.co_consts:
            if isinstance(const, types.CodeType) and id(const) not in codes:
                codes[id(const)] = const
                stack.append(const)
    resolver = sitestate.resolver()
    rows = []
    for code in codes.values():
        # (not this file: a program in the temp dir has it under its own directory)
        if not program_file(code.co_filename, program_dir) or os.path.realpath(code.co_filename) == own_file:
            continue
        for offset, form, counter, cls, cells in sitestate.native_sites(code, resolver, cells=True):
            rows.append([code.co_filename, code.co_qualname, code.co_firstlineno, offset, form, counter, cls, cells])
    with open(out_path, "w") as fh:
        json.dump(rows, fh)
atexit.register(dump)
"""

_INTERP_CHILD = r"""
import gc, json, os, sys
gc.disable()
out_path, program_dir, script = sys.argv[1], sys.argv[2], sys.argv[3]
from quickening.commands import run
from quickening.pyargs import Target
import quickening.api  # noqa: F401  (the interpreter, imported in its own order)
from quickening.interp import tracebacks
# like the native `python script.py`, the program's frames sit on nothing
tracebacks.INTERNAL_CODES.add(sys._getframe().f_code)
def dump():
    from quickening.commands.fidelity import program_file
    from quickening.interp import sitestate
    from quickening.interp.codeinfo import _INFOS
    resolver = sitestate.resolver()
    rows = []
    for info in list(_INFOS.values()):
        code = info.code
        if not program_file(code.co_filename, program_dir):
            continue
        for offset, form, counter, cls, cells in sitestate.interpreted_sites(info, resolver, cells=True):
            rows.append([code.co_filename, code.co_qualname, code.co_firstlineno, offset, form, counter, cls, cells])
    with open(out_path, "w") as fh:
        json.dump(rows, fh)
# at exit, after the program's own atexit handlers (as on the native side)
import atexit
atexit.register(dump)
sys.exit(run.execute(Target("path", script, sys.argv[3:]), {}))
"""


def _run(child, script, args, program_dir, stdin_bytes):
    """Run the program natively (child None) or through the interpreter child:
    the same arguments, environment and stdin; returns (status, stdout, stderr, rows)."""
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    with tempfile.TemporaryDirectory() as site_dir:
        if child is None:
            with open(os.path.join(site_dir, "sitecustomize.py"), "w") as fh:
                fh.write(_NATIVE_SITECUSTOMIZE)
            env = dict(os.environ)
            old_path = env.get("PYTHONPATH", "")
            env["PYTHONPATH"] = site_dir + (os.pathsep + old_path if old_path else "")
            env["QUICKENING_FIDELITY_PYTHONPATH"] = old_path
            env["QUICKENING_FIDELITY_OUT"] = path
            env["QUICKENING_FIDELITY_DIR"] = program_dir
            command = [sys.executable, script, *args]
        else:
            env = None
            command = [sys.executable, "-c", child, path, program_dir, script, *args]
        try:
            proc = subprocess.run(command, capture_output=True, input=stdin_bytes, env=env)
            with open(path) as fh:
                text = fh.read()
            rows = json.loads(text) if text else []
        finally:
            os.unlink(path)
    return proc.returncode, proc.stdout, proc.stderr, rows


def _not_compared(native, interp):
    """Why the two runs' sites cannot be compared, or None: a side that failed or
    that printed something else ran different code, so its sites say nothing."""
    (nstatus, nout, nerr), (istatus, iout, ierr) = native, interp
    if nstatus != 0 or istatus != 0:
        return f"exit status native {nstatus}, interpreter {istatus}"
    for name, a, b in (("stdout", nout, iout), ("stderr", nerr, ierr)):
        if a != b:
            la, lb = a.splitlines(), b.splitlines()
            n = next((i for i, (x, y) in enumerate(zip(la, lb)) if x != y), min(len(la), len(lb)))
            return (f"the runs' {name} differs from line {n + 1} (native "
                    f"{_shown(la, n)}, interpreter {_shown(lb, n)})")
    return None


def _shown(lines, n):
    if n >= len(lines):
        return "ended"
    text = lines[n].decode("utf-8", "backslashreplace")
    return repr(text if len(text) <= 60 else text[:57] + "...")


def _read_stdin():
    """The program's stdin, read once so that both runs get the same bytes (a
    terminal gives none: each run would otherwise wait on it in turn)."""
    stream = sys.stdin
    if stream is None or stream.isatty():
        return b""
    try:
        return stream.buffer.read()
    except (OSError, ValueError, AttributeError):
        return b""


def compare(native_rows, interp_rows, include_unexecuted=False):
    """Join the two sides; return (sites, agreeing, disagreements)."""
    def table(rows):
        # (form, counter) and, for a specialized form, its decoded cache cells as
        # sitestate resolves them (versions and pointers mean nothing across processes)
        out = {}
        for r in rows:
            state = (r[4] + (f"[{r[6]}]" if r[6] else ""), r[5])
            cells = r[7] if len(r) > 7 else None
            if cells:
                state += (tuple(sorted(cells.items())),)
            out[f"{r[0]}:{r[1]}:{r[2]}:{r[3]}"] = state
        return out
    nat, itp = table(native_rows), table(interp_rows)
    from quickening.interp import quicken
    # a site neither side moved from its state at quickening
    untouched = {None, ("RESUME", 0)} | {(f, quicken.WARMUP) for f in _FAMILY_NAMES}
    sites = agreeing = 0
    disagreements = []
    for key in sorted(set(nat) | set(itp)):
        a = nat.get(key)
        b = itp.get(key)
        if not include_unexecuted and {a, b} <= untouched:
            continue
        sites += 1
        if a == b:
            agreeing += 1
        else:
            disagreements.append({"site": key, "cpython": _site_state_shown(a), "interpreter": _site_state_shown(b)})
    return sites, agreeing, disagreements


def _site_state_shown(state):
    """[form, counter] or [form, counter, {cache field: resolved}] (JSON-ready)."""
    if state is None:
        return None
    return [*state[:2], dict(state[2])] if len(state) > 2 else list(state)


_FAMILY_NAMES = ("TO_BOOL", "BINARY_OP", "BINARY_SUBSCR", "STORE_SUBSCR", "SEND", "UNPACK_SEQUENCE",
                 "STORE_ATTR", "LOAD_GLOBAL", "LOAD_SUPER_ATTR", "LOAD_ATTR", "COMPARE_OP",
                 "CONTAINS_OP", "FOR_ITER", "CALL")


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    try:
        parsed = parse_python_like(argv, flags=("--all",), valued=("--json",), prog="quickening fidelity")
    except UsageError as exc:
        print(exc, file=sys.stderr)
        return 2
    note_late_options(parsed)
    target = parsed.target
    if target.kind != "path" or target.value == "-":
        print("quickening fidelity: give a script path (sites are joined by file; "
              "-m, -c and - are not compared)", file=sys.stderr)
        return 2
    if sys.version_info[:2] != (3, 13):
        print("quickening fidelity: the interpreter runs on CPython 3.13", file=sys.stderr)
        return 2
    from quickening import program
    try:
        target = program.check(target)
    except program.ProgramError as exc:
        print(f"quickening fidelity: {exc}", file=sys.stderr)
        return exc.status
    script = os.path.abspath(target.value)
    program_dir = os.path.dirname(os.path.realpath(script))
    args = target.argv[1:]
    stdin_bytes = _read_stdin()
    nstatus, nout, nerr, native_rows = _run(None, script, args, program_dir, stdin_bytes)
    istatus, iout, ierr, interp_rows = _run(_INTERP_CHILD, script, args, program_dir, stdin_bytes)
    why = _not_compared((nstatus, nout, nerr), (istatus, iout, ierr))
    if why is not None:
        print(f"fidelity: not compared: {why}")
        for side, status, err in (("native", nstatus, nerr), ("interpreter", istatus, ierr)):
            if status != 0 and err.strip():
                # what the failing side said, so the reason is at hand
                sys.stderr.write(f"--- {side} run's stderr (last lines) ---\n")
                tail = err.decode("utf-8", "backslashreplace").splitlines()[-15:]
                sys.stderr.write("\n".join(tail) + "\n")
        if parsed.options.get("--json"):
            with open(parsed.options["--json"], "w") as fh:
                json.dump({"compared": False, "reason": why}, fh, indent=2)
        return 1
    sites, agreeing, disagreements = compare(native_rows, interp_rows, parsed.options.get("--all"))
    if sites == 0:
        print("fidelity: not compared: no site of the program's code was executed on either side")
        if parsed.options.get("--json"):
            with open(parsed.options["--json"], "w") as fh:
                json.dump({"compared": False, "reason": "no site executed"}, fh, indent=2)
        return 1
    share = 100.0 * agreeing / sites if sites else 100.0
    print(f"fidelity: {agreeing}/{sites} executed sites agree ({share:.1f}%)")
    for d in disagreements:
        print(f"  {d['site']}\n      cpython     {d['cpython']}\n      interpreter {d['interpreter']}")
    if parsed.options.get("--json"):
        with open(parsed.options["--json"], "w") as fh:
            json.dump({"compared": True, "sites": sites, "agreeing": agreeing,
                       "disagreements": disagreements}, fh, indent=2)
    return 0 if not disagreements else 1
