"""Differential fuzzing of the interpreter with generated programs.

A program is built from a seed: pysource-codegen writes a random module that
only uses the names name_0 .. name_5; a prelude binds those names to values
drawn (by the same seed) from a pool of ints, strings, containers, builtins,
exception classes and a "universal" object whose every dunder is written in
Python (so the interpreter's trampolines run behind CPython's C slots).
Every top-level statement is wrapped in try/except that prints the exception
(type, message, context, traceback lines in the program); every expression
statement prints the repr of its value. So a program keeps going after an
error and its output shows each step.

The compiled program runs twice in forked children of the current process
(so both share the string hash seed and start from the same heap): once with
exec() and once with quickening.api.run_code(). Each child has a time limit
(generated code can loop forever) and a memory limit. The outcomes compared
are the printed output, an uncaught exception, and the repr of each final
global; addresses (0x...) are masked and sets are printed sorted. A program
that times out natively is skipped; one that only times out interpreted is a
difference.

`minimize(source)` reduces a failing program by deleting and simplifying
statements and expressions while the same kind of difference remains.
"""

import ast
import io
import json
import os
import random
import re
import resource
import select
import signal
import sys
import time
import warnings

FILENAME = "<fuzz>"
NAMES = [f"name_{i}" for i in range(6)]
NATIVE_LIMIT = 1.0          # seconds; a program slower than this natively is skipped
INTERP_LIMIT = 60.0         # seconds; at least this much for the interpreted run
INTERP_FACTOR = 300         # ... or this many times the native run time
MEMORY_LIMIT = 4 << 30      # bytes of address space per child
OUTPUT_CAP = 200_000        # characters of output kept per run

# ---------------------------------------------------------------------------
# The prelude: helpers (run in the interpreter too) and the name bindings.

PRELUDE = '''\
import traceback as _fz_tb


def _fz_repr(v, d=0):
    if d > 4:
        return '...'
    t = type(v)
    try:
        if t is list or t is tuple:
            return t.__name__ + '[' + ', '.join([_fz_repr(x, d + 1) for x in v]) + ']'
        if t is set or t is frozenset:
            return t.__name__ + '{' + ', '.join(sorted([_fz_repr(x, d + 1) for x in v])) + '}'
        if t is dict:
            return '{' + ', '.join([_fz_repr(k, d + 1) + ': ' + _fz_repr(x, d + 1)
                                    for k, x in v.items()]) + '}'
        r = repr(v)
    except BaseException as e:
        r = '<repr failed: ' + type(e).__name__ + '>'
    return r[:2000]


def _fz_show(v):
    print('=', _fz_repr(v))


def _fz_report(e):
    tb = [(f.lineno, f.name) for f in _fz_tb.extract_tb(e.__traceback__)
          if f.filename == '<fuzz>']
    try:
        msg = str(e)[:500]
    except BaseException as e2:
        msg = '<str failed: ' + type(e2).__name__ + '>'
    ctx = type(e.__context__).__name__ if e.__context__ is not None else None
    cause = type(e.__cause__).__name__ if e.__cause__ is not None else None
    print('!', type(e).__name__, msg, tb, ctx, cause)
    subs = getattr(e, 'exceptions', None)
    if type(subs) is tuple:
        print('!!', _fz_repr([type(x).__name__ + ': ' + str(x) for x in subs]))


def _fz_drive(a):
    """Run a generator, coroutine or async generator a few steps."""
    out = []
    if hasattr(a, 'asend'):
        a = a.__anext__()
    if hasattr(a, 'send') and hasattr(a, 'throw'):
        try:
            for _ in range(5):
                out.append(_fz_repr(a.send(None)))
        except StopIteration as e:
            out.append('stop ' + _fz_repr(e.value))
        except BaseException as e:
            out.append('raised ' + type(e).__name__ + ' ' + str(e)[:200])
        try:
            a.close()
        except BaseException as e:
            out.append('close raised ' + type(e).__name__)
        return out
    if type(a).__name__ == 'function':
        try:
            return _fz_repr(a())
        except BaseException as e:
            return 'raised ' + type(e).__name__ + ' ' + str(e)[:200]
    return _fz_repr(a)


def _fz_consume(*args, **kwargs):
    return [_fz_drive(a) for a in args] + [_fz_drive(a) for a in kwargs.values()]


class _fz_B:
    pass


class _fz_U:
    _fz_n = 0

    def __init__(self, *a, **k):
        pass

    def __repr__(self):
        return 'U'

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        return self

    def __call__(self, *a, **k):
        _fz_consume(*a, **k)
        return self

    def __bool__(self):
        _fz_U._fz_n += 1
        return _fz_U._fz_n % 3 != 0

    def __hash__(self):
        return 7

    def __iter__(self):
        return iter((1, 'a'))

    def __len__(self):
        return 2

    def __getitem__(self, k):
        return self

    def __setitem__(self, k, v):
        pass

    def __delitem__(self, k):
        pass

    def __contains__(self, k):
        return True

    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False

    async def __aenter__(self):
        return self

    async def __aexit__(self, *a):
        return False

    def __await__(self):
        return iter(())

    def __aiter__(self):
        return self

    async def __anext__(self):
        raise StopAsyncIteration

    def __index__(self):
        return 1

    def __float__(self):
        return 1.5

    def __format__(self, spec):
        return 'U' + spec

    def __mro_entries__(self, bases):
        return (_fz_B,)

    @classmethod
    def __class_getitem__(cls, k):
        return cls


for _fz_op in ('add', 'sub', 'mul', 'matmul', 'truediv', 'floordiv', 'mod', 'pow',
               'lshift', 'rshift', 'and', 'xor', 'or'):
    setattr(_fz_U, '__' + _fz_op + '__', lambda s, o, *r: s)
    setattr(_fz_U, '__r' + _fz_op + '__', lambda s, o, *r: s)
for _fz_op in ('lt', 'le', 'gt', 'ge', 'neg', 'pos', 'invert', 'abs'):
    setattr(_fz_U, '__' + _fz_op + '__', lambda s, *o: s)
'''

POOL = [
    "0", "1", "-3", "7", "2.5", "-0.0", "1j", "'ab'", "''", "'x{}y'", "b'xy'",
    "[1, 2]", "[]", "(1, (2, 'c'))", "()", "{'a': 1, 2: 'b'}", "{}", "{1, 2}",
    "frozenset({3})", "None", "True", "False", "range(3)", "...",
    "_fz_U()", "_fz_U()", "_fz_U()", "_fz_U", "_fz_consume", "_fz_consume",
    "ValueError", "Exception", "TypeError('t')", "int", "str", "list", "tuple",
    "dict", "object", "type", "len", "print", "iter([1, 2, 3])", "lambda *a, **k: a",
    "(x * 2 for x in range(3))", "isinstance", "repr", "sorted", "slice(1, 2)",
]

# ---------------------------------------------------------------------------
# Program construction.


class _Instrument(ast.NodeTransformer):
    """Expression statements print their value (docstrings stay as they are)."""

    def visit_Expr(self, node):
        self.generic_visit(node)
        if isinstance(node.value, ast.Constant):
            return node
        call = ast.Call(ast.Name("_fz_show", ast.Load()), [node.value], [])
        return ast.copy_location(ast.Expr(call), node)


def _guard(stmt):
    handler = ast.ExceptHandler(
        ast.Name("BaseException", ast.Load()), "_fz_e",
        [ast.Expr(ast.Call(ast.Name("_fz_report", ast.Load()),
                           [ast.Name("_fz_e", ast.Load())], []))])
    return ast.Try([stmt], [handler], [], [])


class _DropModuleGlobals(ast.NodeTransformer):
    """`global` at module level is a no-op, but an error after the prelude
    has bound the name: drop it (function and class bodies keep theirs)."""

    def visit_FunctionDef(self, node):
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_Global(self, node):
        return None

    def generic_visit(self, node):
        super().generic_visit(node)
        for field in ("body", "orelse", "finalbody"):
            value = getattr(node, field, None)
            if isinstance(value, list) and not value and not isinstance(node, ast.Module):
                if field == "body" or isinstance(node, ast.Try) and not node.handlers:
                    value.append(ast.Pass())
        return node


def instrument(source):
    """The program text for a generated module: instrumented and guarded."""
    tree = ast.parse(source)
    tree = _DropModuleGlobals().visit(tree)
    tree = _Instrument().visit(tree)
    body = []
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
            body.append(stmt)
        else:
            body.append(_guard(stmt))
    tree.body = body or [ast.Pass()]
    ast.fix_missing_locations(tree)
    return ast.unparse(tree)


def bindings(seed):
    rng = random.Random(seed)
    return "".join(f"{n} = {rng.choice(POOL)}\n" for n in NAMES)


def generated_module(seed):
    from pysource_codegen import generate
    rng = random.Random(seed * 7919 + 1)
    depth = rng.choice((3, 4, 4, 5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return generate(seed, depth_limit=depth, node_limit=rng.choice((150, 300, 500)))


def make_program(seed):
    """The full program for a seed, or None when it does not compile."""
    try:
        src = PRELUDE + bindings(seed) + "\n" + instrument(generated_module(seed)) + "\n"
    except (SyntaxError, ValueError, RecursionError):
        return None
    return src if compiles(src) else None


def compiles(src):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(src, FILENAME, "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True

# ---------------------------------------------------------------------------
# Running one program natively and interpreted, each in a forked child.

_ADDR = re.compile(r"0x[0-9a-fA-F]+")


def normalize(text):
    return _ADDR.sub("0x?", text)


def _global_reprs(namespace):
    show = namespace.get("_fz_repr")
    out = {}
    for k, v in namespace.items():
        if k == "__builtins__" or k.startswith("_fz"):
            continue
        try:
            r = show(v) if callable(show) else repr(v)
        except BaseException as e:
            r = f"<repr failed: {type(e).__name__}>"
        out[k] = normalize(str(r))
    return out


def _child(mode, code):
    """In the forked child: run, and return the outcome as a dict."""
    try:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    except (ValueError, OSError):
        pass
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    sys.stderr = io.StringIO()
    out = io.StringIO()
    sys.stdout = out
    namespace = {"__name__": "__fuzz__"}
    uncaught = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if mode == "native":
                exec(code, namespace)
            else:
                from quickening import api
                api.run_code(code, namespace)
        except BaseException as e:  # the outcome is what we compare
            try:
                msg = str(e)
            except BaseException:
                msg = "<str failed>"
            uncaught = f"{type(e).__name__}: {msg}"
    sys.stdout = sys.__stdout__
    # An unawaited coroutine warns when it is collected: that moment is not
    # part of the language, so those warnings are not compared.
    shown = [normalize(f"{w.category.__name__}: {w.message} at {w.filename}:{w.lineno}")
             for w in caught if "never awaited" not in str(w.message)]
    namespace.pop("__warningregistry__", None)
    return {
        "stdout": normalize(out.getvalue()[:OUTPUT_CAP]),
        "uncaught": normalize(uncaught) if uncaught is not None else None,
        "warnings": shown,
        "globals": _global_reprs(namespace),
    }


def run_forked(mode, code, limit):
    """Run code in a forked child; return (outcome dict, seconds).

    The outcome is {"timeout": True} when the limit passed, and
    {"crash": status} when the child died without reporting."""
    r, w = os.pipe()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:  # child
        os.close(r)
        status = 0
        try:
            try:
                result = _child(mode, code)
                data = json.dumps(result).encode()
            except BaseException as e:
                data = json.dumps({"harness_error": f"{type(e).__name__}: {e}"}).encode()
            view = memoryview(data)
            while view:
                n = os.write(w, view)
                view = view[n:]
        except BaseException:
            status = 3
        finally:
            os._exit(status)
    os.close(w)
    chunks = []
    deadline = start + limit
    timed_out = False
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([r], [], [], left)
            if ready:
                chunk = os.read(r, 1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
    finally:
        os.close(r)
        if timed_out:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        _, status = os.waitpid(pid, 0)
    elapsed = time.monotonic() - start
    if timed_out:
        return {"timeout": True}, elapsed
    data = b"".join(chunks)
    if not data:
        return {"crash": status}, elapsed
    return json.loads(data), elapsed


class Skip(Exception):
    """The program cannot be compared (does not compile, or too slow natively)."""


def compile_program(src):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compile(src, FILENAME, "exec")


def run_both(src, native_limit=NATIVE_LIMIT):
    """(native outcome, interpreted outcome); raises Skip."""
    try:
        code = compile_program(src)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        raise Skip(f"does not compile: {e}")
    # Import the interpreter before forking, so each child starts warm.
    import quickening.api  # noqa: F401
    sys.stdout.flush()
    native, t = run_forked("native", code, native_limit)
    if "timeout" in native:
        raise Skip("native run timed out")
    if "crash" in native or "harness_error" in native:
        raise Skip(f"native run failed: {native}")
    interp, _ = run_forked("interp", code, max(INTERP_LIMIT, INTERP_FACTOR * t))
    return native, interp


def difference(native, interp):
    """None when the outcomes agree, else (kind, text describing the first difference)."""
    if native == interp:
        return None
    for kind in ("timeout", "crash", "harness_error"):
        if kind in interp:
            return kind, f"interpreted: {interp}"
    if native["uncaught"] != interp["uncaught"]:
        return "uncaught", f"native: {native['uncaught']}\ninterpreted: {interp['uncaught']}"
    if native["stdout"] != interp["stdout"]:
        a = native["stdout"].splitlines()
        b = interp["stdout"].splitlines()
        i = 0
        while i < min(len(a), len(b)) and a[i] == b[i]:
            i += 1
        na = a[i] if i < len(a) else "<end of output>"
        nb = b[i] if i < len(b) else "<end of output>"
        return "stdout", f"output line {i + 1}\nnative:      {na}\ninterpreted: {nb}"
    if native["warnings"] != interp["warnings"]:
        return "warnings", f"native: {native['warnings']}\ninterpreted: {interp['warnings']}"
    names = sorted(set(native["globals"]) | set(interp["globals"]))
    for k in names:
        a = native["globals"].get(k, "<unbound>")
        b = interp["globals"].get(k, "<unbound>")
        if a != b:
            return "globals", f"global {k}\nnative:      {a}\ninterpreted: {b}"
    return "other", "outcomes differ"


def check_source(src):
    """None, or (kind, description) for a program that behaves differently."""
    native, interp = run_both(src)
    return difference(native, interp)


def check_seed(seed):
    """(program source, None or (kind, description)); raises Skip."""
    src = make_program(seed)
    if src is None:
        raise Skip("generated program does not compile")
    return src, check_source(src)

# ---------------------------------------------------------------------------
# Minimizing a failing program.


def _stmt_lists(tree):
    """Every (node, field) holding a list of statements."""
    out = []
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            value = getattr(node, field, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                out.append((node, field))
    return out


def _candidates(src):
    """Smaller variants of a program, most promising first."""
    tree = ast.parse(src)
    lists = _stmt_lists(tree)
    # 1. Delete chunks of statements (big chunks first).
    for li, (node, field) in enumerate(lists):
        n = len(getattr(node, field))
        size = n
        while size >= 1:
            for start in range(0, n, size):
                t = ast.parse(src)
                tnode, tfield = _stmt_lists(t)[li]
                body = getattr(tnode, tfield)
                del body[start:start + size]
                if not body:
                    body.append(ast.Pass())
                yield t
            size //= 2
    # 2. Replace a compound statement by one of its bodies.
    for li, (node, field) in enumerate(lists):
        for si, stmt in enumerate(getattr(node, field)):
            for sub in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(stmt, sub, None)
                if not isinstance(inner, list) or not inner:
                    continue
                t = ast.parse(src)
                tnode, tfield = _stmt_lists(t)[li]
                tstmt = getattr(tnode, tfield)[si]
                new = getattr(tstmt, sub)
                if sub == "handlers":
                    new = [s for h in new for s in h.body]
                getattr(tnode, tfield)[si:si + 1] = new
                yield t
    # 3. Replace an expression by one of its subexpressions, or by a constant.
    exprs = [n for n in ast.walk(tree) if isinstance(n, ast.expr)]
    for ei in range(len(exprs)):
        t = ast.parse(src)
        texprs = [n for n in ast.walk(t) if isinstance(n, ast.expr)]
        if ei >= len(texprs):
            break
        target = texprs[ei]
        subs = [c for c in ast.iter_child_nodes(target) if isinstance(c, ast.expr)]
        for rep in subs + [ast.Constant(0), ast.Constant(None)]:
            t2 = ast.parse(src)
            t2exprs = [n for n in ast.walk(t2) if isinstance(n, ast.expr)]
            old = t2exprs[ei]
            rep2 = [c for c in ast.iter_child_nodes(old) if isinstance(c, ast.expr)]
            if rep2 and rep in subs:
                rep = rep2[subs.index(rep)]
            if _replace(t2, old, rep):
                yield t2


def _replace(tree, old, new):
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is old:
                if type(new) is type(old) and ast.dump(new) == ast.dump(old):
                    return False
                setattr(parent, field, ast.copy_location(new, old))
                return True
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if item is old:
                        value[i] = ast.copy_location(new, old)
                        return True
    return False


def minimize(src, still_fails, deadline=None, log=None):
    """Greedily shrink src while still_fails(candidate) holds."""
    improved = True
    while improved:
        improved = False
        for tree in _candidates(src):
            if deadline is not None and time.monotonic() > deadline:
                return src
            try:
                ast.fix_missing_locations(tree)
                cand = ast.unparse(tree) + "\n"
            except Exception:
                continue
            if len(cand) >= len(src) or not compiles(cand):
                continue
            if still_fails(cand):
                src = cand
                improved = True
                if log:
                    log(f"  minimized to {len(src)} chars")
                break
    return src


def same_kind(kind):
    """A predicate for minimize(): the program still differs in the same way."""
    def still_fails(src):
        try:
            diff = check_source(src)
        except Skip:
            return False
        return diff is not None and diff[0] == kind
    return still_fails
