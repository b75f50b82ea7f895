"""Differential fuzzing of the interpreter with generated programs.

Two generators turn a seed into a program:

- "codegen": pysource-codegen writes a random module that only uses the names
  name_0 .. name_5; a prelude binds those names to values drawn (by the same
  seed) from a pool of ints, strings, containers, builtins, exception classes
  and a "universal" object whose every dunder is written in Python (so the
  interpreter's trampolines run behind CPython's C slots).
- "writer": our own generator (Writer), whose programs bind their names and
  end their loops, so that functions, closures, generators, classes,
  exceptions, pattern matching, coroutines and the FEATURES snippets
  (argument binding errors, generator and async generator protocols,
  descriptors, frames, asyncio, ...) actually run.

Every top-level statement is wrapped in try/except that prints the exception
(type, message, context, cause, and the line, function and columns of each
traceback entry in the program); every expression statement prints the repr of
its value. So a program keeps going after an error and its output shows each
step.

The compiled program runs twice in forked children of the current process
(so both share the string hash seed): once with exec() and once with
quickening.api.run_code(). Each child has a time limit (generated code can
loop forever), a memory limit, and the cyclic GC off (its timing depends on
allocation counts). The outcomes compared are the printed output, an uncaught
exception, the warnings (category, message, file and line), and the repr of
each final global; object addresses ("at 0x...") are masked and sets are
printed sorted. A program that times out natively is skipped; one that only
times out interpreted is a difference.

`minimize(source, still_fails)` shrinks a failing program by deleting and
simplifying statements and expressions while the difference remains.
"""

import ast
import gc
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

try:
    from . import differential
except ImportError:     # (scripts/fuzz.py puts this directory on sys.path)
    import differential

FILENAME = "<fuzz>"
NAMES = [f"name_{i}" for i in range(6)]
NATIVE_LIMIT = 1.0          # seconds; a program slower than this natively is skipped
INTERP_LIMIT = 60.0         # seconds; at least this much for the interpreted run
INTERP_FACTOR = 300         # ... or this many times the native run time
MEMORY_LIMIT = 4 << 30      # bytes of address space per child
OUTPUT_CAP = 200_000        # characters of output kept per run

# ---------------------------------------------------------------------------
# The prelude: helpers (run in the interpreter too) and the name bindings.

HELPERS = '''\
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
    tb = [(f.lineno, f.name) if f.colno is None else (f.lineno, f.name, f.colno, f.end_colno)
          for f in _fz_tb.extract_tb(e.__traceback__) if f.filename == '<fuzz>']
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
'''

PRELUDE = HELPERS + '''

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


class _FzLoopLimit(BaseException):
    pass


def _fz_turn(loop, _turns={}):
    turns = _turns[loop] = _turns.get(loop, 0) + 1
    if turns > 1000:
        raise _FzLoopLimit(loop)


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
        value = node.value
        if isinstance(value, ast.Constant) or (
                isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                and value.func.id == "print"):
            return node
        call = ast.Call(ast.Name("_fz_show", ast.Load()), [node.value], [])
        return ast.copy_location(ast.Expr(call), node)


class _BoundLoops(ast.NodeTransformer):
    """Each `while` loop goes round at most 1000 times (_fz_turn), then raises
    _FzLoopLimit (a BaseException: the program's `except Exception` lets it by;
    the statement's guard reports it).  Generated loops often cannot end
    (`while name_3: pass` over a true name): unbounded, such a program is skipped
    on the native side's time limit and compares nothing."""

    def __init__(self):
        self.loops = 0

    def visit_While(self, node):
        self.generic_visit(node)
        turn = ast.Expr(ast.Call(ast.Name("_fz_turn", ast.Load()),
                                 [ast.Constant(self.loops)], []))
        self.loops += 1
        node.body.insert(0, ast.copy_location(turn, node))
        return node


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
        body = getattr(node, "body", None)
        if isinstance(body, list) and not body and not isinstance(node, ast.Module):
            body.append(ast.Pass())
        if isinstance(node, (ast.Try, ast.TryStar)) and not node.handlers and not node.finalbody:
            node.finalbody.append(ast.Pass())
        return node


def instrument(source):
    """The program text for a generated module: instrumented and guarded."""
    tree = ast.parse(source)
    tree = _DropModuleGlobals().visit(tree)
    tree = _Instrument().visit(tree)
    tree = _BoundLoops().visit(tree)
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
# Our own generator: programs whose names are bound and whose loops end, so
# that functions, closures, generators, classes, exceptions, pattern matching
# and coroutines actually run (pysource-codegen's programs mostly stop at the
# first unbound name of each statement).

WRITER_PRELUDE = '''\
import contextlib as _fz_contextlib


class E0(Exception):
    pass


class E1(E0):
    def __init__(self, *args):
        super().__init__(*args)
        self.extra = len(args)


class CM:
    def __init__(self, tag, swallow=False):
        self.tag = tag
        self.swallow = swallow

    def __enter__(self):
        print('enter', self.tag)
        return self.tag

    def __exit__(self, t, v, tb):
        print('exit', self.tag, t.__name__ if t else None, v)
        return self.swallow


class ACM:
    def __init__(self, tag):
        self.tag = tag

    async def __aenter__(self):
        print('aenter', self.tag)
        await Step(self.tag)
        return self.tag

    async def __aexit__(self, t, v, tb):
        print('aexit', self.tag, t.__name__ if t else None)
        return False


class Step:
    """An awaitable that yields once to the driver."""

    def __init__(self, value):
        self.value = value

    def __await__(self):
        got = yield self.value
        return got


@_fz_contextlib.contextmanager
def gcm(tag):
    print('gcm in', tag)
    try:
        yield tag * 2
    except E0 as e:
        print('gcm caught', repr(e))
    finally:
        print('gcm out', tag)


def drive(coro, limit=50):
    """Run a coroutine by hand, sending back each value it yields."""
    sent = None
    trail = []
    for _ in range(limit):
        try:
            got = coro.send(sent)
        except StopIteration as e:
            trail.append(('done', e.value))
            return trail
        trail.append(got)
        sent = len(trail)
    coro.close()
    return trail


def arange(n):
    async def agen():
        for i in range(n):
            await Step(i)
            yield i * 10
    return agen()


def rec(n):
    return 0 if n <= 0 else n + rec(n - 1)


i0, i1, i2 = 3, -2, 7
s0, s1 = 'abc', 'Xy'
l0, l1 = [3, 1, 2], [5, -1]
d0 = {'a': 1, 'b': 2}
'''

_STRS = ["'a'", "'b'", "'abc'", "''", "'x y'", "'Q'", "'a,b'"]
_CMPS = ["<", "<=", ">", ">=", "==", "!="]
_BINOPS = ["+", "-", "*", "//", "%", "&", "|", "^"]


_GLOBALS = ("i0", "i1", "i2", "s0", "s1", "l0", "l1", "d0")


class _Env:
    def __init__(self, ints, strs, lists, dicts, depth=0, loop=False, func=False,
                 gen=False, coro=False, comp=False, klass=False, star=False):
        self.ints, self.strs, self.lists, self.dicts = ints, strs, lists, dicts
        self.depth, self.loop, self.func, self.gen, self.coro = depth, loop, func, gen, coro
        self.comp, self.klass, self.star = comp, klass, star

    def copy(self, **kw):
        e = _Env(list(self.ints), list(self.strs), list(self.lists), list(self.dicts),
                 self.depth, self.loop, self.func, self.gen, self.coro, self.comp, self.klass,
                 self.star)
        for k, v in kw.items():
            setattr(e, k, v)
        return e


# Feature snippets: $I, $S, $L, $B are replaced by fresh int, str, list and
# bool expressions, $N1..$N4 by fresh names.
FEATURES = [
    # argument binding errors
    '''
def $N1(a, b=2, /, c=3, *, d=4):
    return (a, b, c, d)
for $N2 in [(), ($I,), ($I, $I, $I, $I)]:
    try:
        print($N1(*$N2))
    except TypeError as $N3:
        print($N3)
for $N4 in [{'d': $I}, {'a': 1}, {'e': 1}, {'c': $I, 'd': 0}]:
    try:
        print($N1(1, **$N4))
    except TypeError as $N3:
        print($N3)
try:
    print($N1(1, c=1, **{'c': 2}))
except TypeError as $N3:
    print($N3)
''',
    # unpacking
    '''
for $N1 in ($L, [$I], [$I, $I, $I], $S):
    try:
        $N2, $N3 = $N1
        print($N2, $N3)
    except ValueError as $N4:
        print($N4)
    try:
        $N2, *$N3, $N4 = $N1
        print($N2, $N3, $N4)
    except ValueError as $N4:
        print($N4)
''',
    # generator protocol
    '''
def $N1():
    try:
        x = yield $I
        print('got', x)
        y = yield x
        print('got', y)
        yield from [$I, $I]
    except ValueError as e:
        print('gen caught', e)
        yield 'after'
    finally:
        print('gen finally')
    return 'ret'
def $N2():
    r = yield from $N1()
    print('delegate got', r)
    return r
for $N3 in ($N1, $N2):
    $N4 = $N3()
    print(next($N4), $N4.send($I))
    try:
        print($N4.throw(ValueError('boom')))
        print($N4.throw(KeyError('k')))
    except (KeyError, StopIteration) as e:
        print('outer', repr(e))
    $N4.close()
    print(list($N4), $N4.gi_frame is None)
    $N4 = $N3()
    print(list($N4))
''',
    # yield from a hand-written iterator, with and without send/throw/close
    '''
class $N1:
    def __init__(self, n):
        self.n = n
    def __iter__(self):
        return self
    def __next__(self):
        self.n -= 1
        if self.n < 0:
            raise StopIteration('done')
        return self.n
class $N2($N1):
    def send(self, v):
        print('send', v)
        return self.__next__()
    def throw(self, *args):
        print('throw', [type(a).__name__ for a in args])
        if self.n > $I % 3:
            return 'recovered'
        raise args[0]
    def close(self):
        print('close', self.n)
def $N3(it):
    r = yield from it
    print('result', r)
    return r
for $N4 in ($N1($I % 4 + 1), $N2($I % 4 + 1), $N2(3)):
    g = $N3($N4)
    try:
        print(next(g), g.send(None), g.send($I))
        print(g.throw(ValueError('t')))
        g.close()
    except (StopIteration, ValueError, AttributeError, RuntimeError) as e:
        print(type(e).__name__, e)
''',
    # asyncio
    '''
import asyncio
async def $N1(n, log):
    for i in range(n):
        await asyncio.sleep(0)
        log.append((n, i))
    if n == $I % 3:
        raise ValueError(n)
    return n
async def $N2():
    log = []
    print(await asyncio.gather($N1(1, log), $N1(2, log), $N1(0, log), return_exceptions=True), log)
    t = asyncio.create_task(asyncio.sleep(10))
    await asyncio.sleep(0)
    t.cancel()
    try:
        await t
    except asyncio.CancelledError:
        print('cancelled')
    try:
        async with asyncio.TaskGroup() as tg:
            for k in range(3):
                tg.create_task($N1(k, log))
    except* ValueError as eg:
        print('group', eg.exceptions)
    try:
        await asyncio.wait_for(asyncio.sleep(10), 0.001)
    except TimeoutError as e:
        print('timeout', repr(e))
    return len(log)
print(asyncio.run($N2()))
''',
    # exception state across yields
    '''
import sys
def $N1():
    try:
        raise KeyError($I)
    except KeyError:
        yield sys.exception()
        yield sys.exc_info()[0]
    try:
        yield 'in try'
    finally:
        yield ('in finally', sys.exception())
    with CM($S):
        try:
            yield 'in with'
        except ValueError as e:
            yield ('with caught', e)
    return 'end'
try:
    raise TypeError('outer')
except TypeError:
    $N2 = $N1()
    print(repr(next($N2)), next($N2), sys.exception())
print(next($N2), sys.exception())
print(next($N2), next($N2), next($N2))
print($N2.throw(ValueError($I)))
try:
    next($N2)
except StopIteration as e:
    print('stop', e.value)
''',
    # protocol errors from dunders
    '''
class $N1:
    def __bool__(self):
        return $I
    def __len__(self):
        return -1
    def __iter__(self):
        return $I
    def __eq__(self, o):
        return NotImplemented
    def __index__(self):
        return 'x'
    @property
    def prop(self):
        raise AttributeError('from prop')
    def __getattr__(self, n):
        return 'getattr ' + n
for $N2 in (lambda: bool($N1()), lambda: len($N1()), lambda: iter($N1()), lambda: $N1() == $N1(),
            lambda: $N1() != 3, lambda: [1][$N1()], lambda: $N1().prop, lambda: not $N1(), lambda: list($N1()),
            lambda: [x for x in $N1()], lambda: (lambda *a: a)(*$N1())):
    try:
        print($N2())
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)
''',
    # mutation during iteration
    '''
$N1 = {'a': 1, 'b': $I}
try:
    for k in $N1:
        $N1[k + 'x'] = 1
except RuntimeError as e:
    print(e)
$N2 = [1, 2, 3, $I]
for x in $N2:
    if x % 2:
        $N2.remove(x)
print($N2, $N1)
$N3 = {1, 2}
try:
    for x in $N3:
        $N3.add(x + 10)
except RuntimeError as e:
    print(e)
''',
    # comprehensions capturing loop variables
    '''
def $N1(n):
    fs = [lambda: x * n for x in range(3)]
    gs = [[lambda: (x, y) for y in range(2)] for x in range(2)]
    hs = {x: (lambda x=x: x + n) for x in range($I % 4)}
    return [f() for f in fs], [g() for row in gs for g in row], {k: h() for k, h in hs.items()}, [x for x in range(3) for x in range(x)]
print($N1($I))
class $N2:
    v = $I
    items = [lambda: v for _ in range(2)]
    try:
        print([f() for f in items])
    except NameError as e:
        print('class scope', e)
''',
    # super in odd places
    '''
class $N1:
    def m(self):
        return 'base'
    @classmethod
    def c(cls):
        return 'cbase ' + cls.__name__
class $N2($N1):
    def m(self):
        def inner():
            return super().m()
        try:
            r = inner()
        except RuntimeError as e:
            r = str(e)
        return r, super().m(), super($N2, self).m(), [super().m() for _ in range(1)]
    @classmethod
    def c(cls):
        return super().c() + '!'
    @staticmethod
    def s():
        try:
            return super().m()
        except RuntimeError as e:
            return str(e)
print($N2().m(), $N2.c(), $N2.s())
''',
    # bytes and str formatting corners
    '''
print(b'%d-%s' % ($I, b'x'), '%(a)s %(b)r' % {'a': $S, 'b': $S}, '{0}{1!r:>5}{0}'.format($I, $S), 'ß'.upper(), 'ǅ'.lower(),
      '\\u00e9'.encode(), b'caf\\xc3\\xa9'.decode(), ascii('é'), repr('\\x00\\n'), str(b'b'), f'{$S!a}', '%c' % 65, '%x %o %e' % ($I % 100, 8, 1.5))
try:
    print('%d' % 'x')
except TypeError as e:
    print(e)
try:
    print('{'.format(1))
except ValueError as e:
    print(e)
''',
    # library machinery over interpreted code
    '''
import dataclasses
import enum
import functools
import collections
import abc
import copy
@dataclasses.dataclass(order=True)
class $N1:
    a: int
    b: str = 'd'
    c: list = dataclasses.field(default_factory=list)
    def __post_init__(self):
        self.c.append(self.a)
class $N2(enum.Enum):
    RED = 1
    GREEN = $I % 5 + 2
    def describe(self):
        return self.name.lower()
class $N3(enum.IntFlag):
    A = 1
    B = 2
$N4 = collections.namedtuple('$N4', 'x y', defaults=[$I])
@functools.lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
@functools.singledispatch
def kind(x):
    return 'object'
@kind.register
def _(x: int):
    return 'int'
@kind.register(list)
def _(x):
    return 'list'
class Base(abc.ABC):
    @abc.abstractmethod
    def run(self):
        ...
try:
    Base()
except TypeError as e:
    print(e)
p = $N1($I, $S)
print(p, p < $N1($I), dataclasses.asdict(p), dataclasses.replace(p, b='z'), $N1.__init__.__qualname__)
print(list($N2), $N2(1).describe(), $N2['RED'], $N3.A | $N3.B, repr($N3(3)), $N2.RED in $N2)
print($N4(1), $N4(1, 2)._replace(y=5), $N4._fields, fib(30), fib.cache_info().hits > 0, kind(1), kind([]), kind('s'))
print(functools.partial(max, $I)(1, 2), copy.deepcopy([p, {'k': p}]), copy.copy(p) == p)
try:
    $N2(99)
except ValueError as e:
    print(e)
''',
    # dict and str subclasses, __missing__, format_map, numeric interplay
    '''
import fractions
import decimal
class $N1(dict):
    def __missing__(self, k):
        return k * 2
class $N2(str):
    def __add__(self, o):
        return $N2(str.__add__(self, o).upper())
class $N3(int):
    def __add__(self, o):
        return $N3(super().__add__(o) * 10)
    def __repr__(self):
        return 'N3(' + super().__repr__() + ')'
d = $N1(a=1)
print(d['a'], d['zz'], '{a}-{q}'.format_map(d), $N2('ab') + 'cd', $N3(2) + 3, 3 + $N3(2), sum([$N3(1), $N3(2)]))
print(fractions.Fraction($I, 3) + 1, decimal.Decimal('1.10') * $I, round(fractions.Fraction(7, 2)), divmod(decimal.Decimal(7), 2))
class $N4:
    def __radd__(self, o):
        return ('radd', o)
    def __rmul__(self, o):
        return ('rmul', o)
print(1 + $N4(), fractions.Fraction(1, 2) * $N4(), [1] * 2, sum([$N4()], 0) if False else 0)
''',
    # pattern matching corners
    '''
import collections
class $N1:
    __match_args__ = ('a',)
    def __init__(self, a):
        self.a = a
class $N2:
    pass
class $N3(collections.abc.Mapping):
    def __getitem__(self, k):
        if k == 'x':
            return $I
        raise KeyError(k)
    def __iter__(self):
        return iter(['x'])
    def __len__(self):
        return 1
for $N4 in ($N1($I), $N2(), $N3(), 'ab', b'ab', [1, 2], (1, 2, 3), {'x': 1, 'y': 2}, True, 1.0, 5, [[1], [2, 3]]):
    try:
        match $N4:
            case $N2(z):
                print('bad', z)
            case bool(b) if b:
                print('bool', b)
            case int(0 | 1 | 5 as n):
                print('int', n)
            case $N1(a) | $N1(a=[a]):
                print('n1', a)
            case {'x': v} if not isinstance($N4, dict):
                print('mapping', v)
            case {'x': v, **rest}:
                print('dict', v, rest)
            case [first, *others] if len(others) > 1:
                print('seq', first, others)
            case [[x], [y, *z]]:
                print('nested', x, y, z)
            case str() | bytes():
                print('text', $N4)
            case _:
                print('rest', type($N4).__name__)
    except TypeError as e:
        print('TypeError', e)
''',
    # except* corners
    '''
def $N1(excs):
    try:
        raise ExceptionGroup('g', excs)
    except* ValueError as eg:
        print('V', [str(x) for x in eg.exceptions])
        if len(eg.exceptions) > 1:
            raise TypeError('from V')
    except* (KeyError, IndexError) as eg:
        print('KI', repr(eg))
        raise
    except* ZeroDivisionError:
        print('Z')
        raise RuntimeError('new')
for $N2 in ([ValueError($I)], [ValueError(1), ValueError(2)], [KeyError($S), ValueError(3)], [ZeroDivisionError()],
            [ExceptionGroup('inner', [IndexError(0), ValueError(9)])], [OSError('o')]):
    try:
        $N1($N2)
    except BaseException as e:
        print(type(e).__name__, repr(e), repr(e.__context__)[:80], repr(e.__cause__))
try:
    try:
        raise ValueError('naked')
    except* ValueError as eg:
        print('naked', repr(eg))
except BaseException as e:
    print('escaped', e)
''',
    # StopIteration inside a generator
    '''
def $N1(n):
    yield n
    if n > $I:
        next(iter([]))
    yield n + 1
try:
    print(list($N1($I)))
except RuntimeError as e:
    print(repr(e), repr(e.__cause__))
''',
    # descriptors, __set_name__, __init_subclass__, properties, __class__
    '''
class $N1:
    def __set_name__(self, owner, name):
        self.name = name
    def __get__(self, obj, typ=None):
        return (self.name, obj is None, typ.__name__)
class $N2:
    attr = $N1()
    def __init_subclass__(cls, **kw):
        print('subclass', cls.__name__, kw)
        super().__init_subclass__()
    def __getattr__(self, n):
        return n * 2
    @property
    def p(self):
        return self._p
    @p.setter
    def p(self, v):
        self._p = v * $I
    @p.deleter
    def p(self):
        print('deleting')
        del self._p
    def who(self):
        return __class__.__name__, type(self).__name__
    @staticmethod
    def st(x):
        return x + 1
    @classmethod
    def cm(cls):
        return cls.__name__
class $N3($N2, flag=$I):
    def who(self):
        return ('sub',) + super().who()
    @classmethod
    def cm(cls):
        return 'sub-' + super().cm()
$N4 = $N3()
$N4.p = $I
print($N4.p, $N4.attr, $N2.attr, $N4.missing, $N4.who(), $N4.st(1), $N3.cm())
del $N4.p
print($N4._p)
''',
    # operators, reflected, in-place, NotImplemented, hashing
    '''
class $N1:
    def __init__(self, v):
        self.v = v
    def __add__(self, o):
        return $N1(self.v + o) if isinstance(o, int) else NotImplemented
    def __radd__(self, o):
        return $N1(o * 10 + self.v)
    def __iadd__(self, o):
        self.v -= o
        return self
    def __eq__(self, o):
        return isinstance(o, $N1) and o.v == self.v
    def __lt__(self, o):
        return self.v < o.v
    __hash__ = None
    def __repr__(self):
        return f'N({self.v!r})'
    def __getitem__(self, k):
        return (k, self.v)
    def __contains__(self, x):
        return x == self.v
    def __call__(self, *a, **k):
        return (a, sorted(k))
    def __index__(self):
        return self.v
    def __neg__(self):
        return $N1(-self.v)
$N2 = $N1($I)
print($N2 + $I, $I + $N2, $N2 == $N1($I), $N2 != $N2, -$N2)
$N2 += 2
print($N2, $N2[1:$I:2], $N2[...], $N2[1, 2], $I in $N2, $N2(1, k=2), [10, 20, 30, 40][$N2])
for $N3 in (lambda: hash($N2), lambda: $N2 + 'a', lambda: 'a' + $N2, lambda: $N2 < 3, lambda: [1, 2, 3][$N2], lambda: $N2 * 2):
    try:
        print($N3())
    except (TypeError, IndexError) as e:
        print(type(e).__name__, e)
print(sorted([$N2, $N1(1), $N1(-1)]), max([$N1(3), $N1($I)], key=lambda n: -n.v))
''',
    # frames and stacks
    '''
import sys
import traceback
def $N1():
    f = sys._getframe()
    return (f.f_code.co_name, f.f_lineno, f.f_back.f_code.co_name, f.f_back.f_lineno, sorted(f.f_back.f_locals))
def $N2(a):
    b = a + $I
    st = [(t.name, t.lineno) for t in traceback.extract_stack() if t.filename == '<fuzz>']
    return $N1(), sorted(locals()), st[-2:]
print($N2($I))
''',
    # try/finally control flow
    '''
def $N1(n):
    out = []
    for i in range(n):
        try:
            if i == $I % 4:
                continue
            if i == $I % 5:
                break
            out.append(i)
            if i == 3:
                return out
        finally:
            out.append(-i)
    else:
        out.append('else')
    return out
print([$N1(k) for k in range(6)])
def $N2(k):
    try:
        try:
            if k:
                raise ValueError(k)
            return 'try'
        finally:
            print('inner finally', k)
    except ValueError as e:
        return 'except ' + str(e)
    finally:
        print('outer finally')
print($N2(0), $N2($I))
''',
    # chaining and notes
    '''
try:
    try:
        {}[$S]
    except KeyError as e:
        raise ValueError('v') from e
except ValueError as e:
    e.add_note('note ' + str($I))
    print(repr(e.__cause__), e.__suppress_context__, e.__notes__, repr(e.__context__))
try:
    try:
        1 / 0
    except ZeroDivisionError:
        raise TypeError('t') from None
except TypeError as e:
    print(e.__cause__, e.__suppress_context__, repr(e.__context__))
try:
    try:
        raise E1($I, $S)
    finally:
        print('fin')
except E0 as e:
    print(repr(e), e.args, e.extra, isinstance(e, E1))
''',
    # closures
    '''
$N1 = [lambda i=i: i * $I for i in range(3)]
$N2 = [lambda: i for i in range(3)]
print([f() for f in $N1], [g() for g in $N2])
def $N3():
    n = $I
    def inc(k=1):
        nonlocal n
        n += k
        return n
    def get():
        return n
    return inc, get
$N4 = $N3()
print($N4[0](), $N4[0]($I), $N4[1](), $N4[0].__code__.co_freevars, $N4[0].__closure__[0].cell_contents)
''',
    # class body scopes
    '''
class $N1:
    xs = [$I, $I]
    ys = [x * 2 for x in xs]
    zs = {y: y for y in range(3) if y}
    try:
        ws = [x for x in range(2) if xs]
    except NameError as e:
        print(e)
    def m(self):
        return self.xs, __class__.__qualname__
print($N1.ys, $N1.zs, $N1().m(), $N1.m.__qualname__)
''',
    # native callbacks
    '''
import functools
import itertools
print(functools.reduce(lambda a, b: a * 2 + b, $L, $I), list(itertools.chain($L, (x for x in $L))),
      list(itertools.accumulate($L + [1], lambda a, b: a - b)), list(zip(*[$L, $L])),
      sorted($L, key=functools.cmp_to_key(lambda a, b: (a > b) - (a < b))),
      list(itertools.islice(itertools.count($I), 3)), list(itertools.starmap(lambda a, b: a * b, [(1, $I), ($I, 2)])),
      {k: list(g) for k, g in itertools.groupby(sorted($L), key=lambda x: x % 2)})
''',
    # formatting
    '''
$N1 = abs($I) % 9
print(f'{$I:>{$N1}}|{$S!r:^10}|{$I:+#x}|{3.14159:.{$N1 % 5}f}|{$I:08b}|{$S:*<6}|{$L!s}|{$N1=}', format($I, ','), '%5.2f|%-4d|%r' % (2.5, $I, $S))
''',
    # match
    '''
class $N1:
    __match_args__ = ('a', 'b')
    def __init__(self, a, b):
        self.a, self.b = a, b
for $N2 in [$N1($I, $S), $N1(0, 1), {'k': $I, 'z': 1}, [$I, [$I, $I]], ($I,), $S, None, 3.5, $L]:
    match $N2:
        case $N1(a, b=str() as s) if a > 0:
            print('pos', a, s)
        case $N1(a=0 | 1 as z):
            print('small', z)
        case {'k': int(k), **rest}:
            print('map', k, rest)
        case [int() as a, [b, *c]]:
            print('nest', a, b, c)
        case (x,):
            print('one', x)
        case str(s) if len(s) > 1:
            print('str', s)
        case float() | None:
            print('fn', $N2)
        case [*_, 3]:
            print('ends3')
        case _:
            print('other')
''',
    # async generator protocol
    '''
async def $N1():
    try:
        yield 1
        yield 2
    finally:
        print('agen finally')
async def $N2():
    g = $N1()
    print(await g.__anext__())
    try:
        await g.athrow(ValueError('x'))
    except ValueError as e:
        print('athrow', e)
    await g.aclose()
    async with ACM($S) as t:
        return [x async for x in arange($I % 4)], t, [await Step(k) for k in range(2)]
print(drive($N2()))
''',
    # exec, eval, locals
    '''
def $N1(a):
    b = a * 2
    print(sorted(locals()), eval('a + b'), sorted(dir()))
    exec('c = a + 1')
    print('c' in locals())
    return vars().get('a')
print($N1($I), eval(str($I) + ' + 1', {}), eval('x * 2', {'x': $I}))
$N2 = {}
exec('def ff(q):\\n    return q * 3\\nres = ff(4)', $N2)
print($N2['res'], $N2['ff'](2))
''',
    # numbers
    '''
print($I ** 30, ($I * 1.5) / 7, divmod($I, 3), round(2.675, 2), float('nan') == float('nan'), 10 ** 20 // 3,
      -7 // 2, -7 % 3, 7 % -3, 2 ** -1, int('1' * 30) % 97, 0.1 + 0.2, 1e308 * 10, -0.0, $I / 4, 7 // -2.0)
for $N1 in (lambda: $I / 0, lambda: $I % 0, lambda: 2.0 ** 10000, lambda: int('z'), lambda: 1 << -1, lambda: divmod(1, 0.0)):
    try:
        print($N1())
    except (ZeroDivisionError, OverflowError, ValueError) as e:
        print(type(e).__name__, e)
''',
    # augmented assignment on attributes and items
    '''
class $N1:
    pass
$N2 = $N1()
$N2.x = $I
$N2.x += $I
$N3 = {'k': [1]}
$N3['k'] += [2]
$N3['k'][0] -= $I
$N4 = ([1],)
try:
    $N4[0] += [2]
except TypeError as e:
    print(e)
print($N2.x, $N3, $N4)
''',
    # context managers
    '''
import contextlib
with contextlib.suppress(KeyError):
    {}[$S]
    print('not reached')
with contextlib.ExitStack() as $N1:
    $N1.callback(print, 'callback', $I)
    print($N1.enter_context(CM($S)))
    print($N1.enter_context(gcm($I)))
try:
    with CM('a') as $N2, CM('b', True):
        raise E0($I)
    with CM('c'):
        raise E1($I)
except E0 as e:
    print('escaped', repr(e))
''',
    # star arguments and keywords
    '''
def $N1(*a, **k):
    return a, k
print(*$L, sep='-')
print($N1(*$L, *$S), $N1(**{'a': 1}, b=$I), [*$L, *$S], {**{'x': 1}, **{'x': $I}})
for $N2 in (lambda: $N1(**{'a': 1}, **{'a': 2}), lambda: dict(**{1: 2}), lambda: $N1(*1), lambda: $N1(**[1])):
    try:
        print($N2())
    except TypeError as e:
        print(e)
''',
    # iterators
    '''
class $N1:
    def __init__(self, n):
        self.n = n
    def __iter__(self):
        return self
    def __next__(self):
        if self.n <= 0:
            raise StopIteration
        self.n -= 1
        return self.n
class $N2:
    def __len__(self):
        return 3
    def __getitem__(self, i):
        if i >= 3:
            raise IndexError(i)
        return i * $I
print(list($N1($I % 5)), list($N2()), list(reversed($N2())), next(iter([]), 'dflt'), 2 in $N2())
$N3 = iter([1, 2, 3, 0, 4].pop, 0)
print(list($N3))
try:
    print(list(zip([1, 2], [3], strict=True)))
except ValueError as e:
    print(e)
for $N4 in $N1(3):
    if $N4 == $I:
        break
else:
    print('no break')
''',
    # boolean operators return operands
    '''
print($L or $S, $I and $L, not $L, $S and $I or $L, [] or {} or 0, $B and $S)
''',
    # walrus and comprehension scopes
    '''
def $N1():
    r = [($N2 := x * 2) for x in range($I % 4 + 1)]
    return r, $N2, [y for y in range(3) if (z := y) > 0], z
print($N1())
''',
    # function metadata
    '''
def $N1(a: int, b: 'str' = $S, *args: int, c=$I, **kw) -> list:
    def inner():
        return a
    return inner
print($N1.__name__, $N1.__qualname__, $N1.__defaults__, $N1.__kwdefaults__, $N1.__annotations__,
      $N1.__code__.co_varnames, $N1(1).__qualname__, $N1.__code__.co_argcount)
''',
    # type parameters and aliases
    '''
def $N1[T](x: T) -> T:
    return x
class $N2[T, *Ts, **P]:
    def m(self) -> T:
        return 1
type $N3[K] = dict[K, list[K]]
print($N1($I), $N1.__type_params__, $N2.__type_params__, $N3.__value__, $N3.__type_params__, $N3[int])
''',
    # annotations at module level and in classes
    '''#top
$N1: int = $I
class $N2:
    a: int
    b: str = $S
print(__annotations__.get('$N1'), $N2.__annotations__, $N2.b)
''',
    # global and nonlocal interplay
    '''#top
$N1 = $I
def $N2():
    global $N1
    $N1 += 1
    def inner():
        global $N1
        $N1 *= 2
        return $N1
    return inner()
print($N2(), $N1)
''',
    # deep recursion
    '''
def $N1(n):
    try:
        return $N1(n + 1)
    except RecursionError as e:
        return n > 500, str(e)
print($N1(0))
''',
    # exception groups
    '''
try:
    raise ExceptionGroup('eg', [ValueError($I), TypeError($S), ExceptionGroup('inner', [KeyError($I), ValueError(0)])])
except* ValueError as e:
    print('V', repr(e))
except* KeyError as e:
    print('K', repr(e))
except* TypeError as e:
    print('T', repr(e))
try:
    try:
        raise ExceptionGroup('eg', [ValueError(1), TypeError(2)])
    except* ValueError:
        raise KeyError('from handler')
except BaseException as e:
    print(repr(e), repr(e.__context__) if not isinstance(e, ExceptionGroup) else [repr(x) for x in e.exceptions])
eg = ExceptionGroup('m', [ValueError(1), TypeError(2), ValueError(3)])
print(eg.subgroup(ValueError), eg.split(TypeError))
''',
    # slicing and sequences
    '''
$N1 = list(range(10))
$N1[2:$I] = [$S]
del $N1[::3]
$N1[::-2] = $N1[::-2]
print($N1, $N1[$I:], $N1[-$I::-1], 'abcdef'[::$I or 1], (1, 2, 3)[1:], bytearray(b'xyz')[1:], memoryview(b'abc')[1:].tobytes())
try:
    $N1[::2] = [1]
except ValueError as e:
    print(e)
''',
    # dict and set operations
    '''
$N1 = {'a': 1, 'b': 2}
$N1 |= {'c': $I}
print($N1 | {'a': 0}, {1, 2, 3} - {$I}, {1, 2} ^ {2, 3}, {1, 2} <= {1, 2, 3}, frozenset($L) & {1, 3}, sorted({$S, 'q'}),
      list($N1.items()), $N1.pop('zz', 'none'), {k: v for k, v in zip('xyz', $L)})
try:
    $N1['missing']
except KeyError as e:
    print(repr(e))
''',
]


def _fill(writer, env, text):
    # The holes may sit in nested functions and comprehensions: no await, no :=.
    env = env.copy(coro=False, comp=True)
    names = {}

    def name(m):
        key = m.group(0)
        if key not in names:
            names[key] = writer.fresh("z")
        return names[key]

    text = re.sub(r"\$N\d", name, text)
    out = []
    parts = re.split(r"(\$[ISLB])", text)
    for part in parts:
        if part == "$I":
            out.append(f"({writer.int_expr(env, 1)})")
        elif part == "$S":
            out.append(f"({writer.str_expr(env, 1)})")
        elif part == "$L":
            out.append(f"({writer.list_expr(env, 1)})")
        elif part == "$B":
            out.append(f"({writer.bool_expr(env, 1)})")
        else:
            out.append(part)
    return "".join(out)


class Writer:
    """Writes one program from a seed."""

    def __init__(self, seed):
        self.r = random.Random(seed)
        self.lines = []
        self.count = 0
        self.int_funcs = []    # name, arity: (ints...) -> int
        self.gen_funcs = []    # name: (int) -> generator of ints
        self.coro_funcs = []   # name: (int) -> coroutine returning int
        self.classes = []      # class names: C(int), .val, .get(int), + , iter, len, ==
        self.excs = ["ValueError", "KeyError", "E0", "E1", "ZeroDivisionError", "IndexError"]

    # -- helpers
    def fresh(self, prefix):
        self.count += 1
        return f"{prefix}{self.count}"

    def chance(self, p):
        return self.r.random() < p

    def pick(self, seq):
        return self.r.choice(seq)

    def emit(self, ind, text):
        for line in text.split("\n"):
            self.lines.append("    " * ind + line)

    # -- expressions
    def int_expr(self, env, d=2):
        r = self.r
        if d <= 0 or self.chance(0.25):
            if env.ints and self.chance(0.7):
                return self.pick(env.ints)
            return str(r.randint(-3, 12))
        k = r.randrange(17)
        if k == 0:
            return f"({self.int_expr(env, d-1)} {self.pick(_BINOPS)} {self.int_expr(env, d-1)})"
        if k == 1:
            return f"({self.int_expr(env, d-1)} ** ({self.int_expr(env, d-1)} % 4))"
        if k == 2:
            return f"({self.pick(['-', '~', '+'])}{self.int_expr(env, d-1)})"
        if k == 3:
            return f"len({self.list_expr(env, d-1) if self.chance(0.5) else self.str_expr(env, d-1)})"
        if k == 4 and self.int_funcs:
            name, arity = self.pick(self.int_funcs)
            args = [self.int_expr(env, d-1) for _ in range(arity)]
            if arity and self.chance(0.3):
                return f"{name}(*[{', '.join(args)}])"
            return f"{name}({', '.join(args)})"
        if k == 5:
            return f"({self.int_expr(env, d-1)} if {self.bool_expr(env, d-1)} else {self.int_expr(env, d-1)})"
        if k == 6:
            v = self.fresh("v")
            lst = self.list_expr(env.copy(comp=True), d-1)
            inner = env.copy(comp=True, ints=env.ints + [v])
            return f"sum({self.int_expr(inner, d-1)} for {v} in {lst})"
        if k == 7:
            return f"{self.pick(['min', 'max'])}({self.list_expr(env, d-1)}, default={self.int_expr(env, 0)})"
        if k == 8:
            lst = self.list_expr(env, d-1)
            if self.chance(0.7):
                return f"({lst} + [0, 1, 2])[{self.int_expr(env, d-1)} % 3]"
            return f"{lst}[{self.int_expr(env, d-1)}]"
        if k == 9 and env.dicts:
            return f"{self.pick(env.dicts)}.get({self.str_expr(env, d-1)}, {self.int_expr(env, d-1)})"
        if k == 10 and self.classes:
            c = self.pick(self.classes)
            m = r.randrange(4)
            obj = f"{c}({self.int_expr(env, d-1)})"
            if m == 0:
                return f"{obj}.get({self.int_expr(env, d-1)})"
            if m == 1:
                return f"({obj} + {obj}).val"
            if m == 2:
                return f"{obj}.val"
            return f"len({obj})"
        if k == 11 and not env.comp and env.func and not env.klass:
            return f"({self.fresh('w')} := {self.int_expr(env, d-1)})"
        if k == 12:
            if self.chance(0.7):
                return f"int(str({self.int_expr(env, d-1)}) + '7')"
            return f"int({self.str_expr(env, d-1)} or '7')"
        if k == 13:
            return f"abs({self.int_expr(env, d-1)})"
        if k == 14 and env.coro and self.coro_funcs:
            return f"(await {self.pick(self.coro_funcs)}({self.int_expr(env, d-1)}))"
        if k == 15 and env.coro:
            return f"(await Step({self.int_expr(env, d-1)}) or 0)"
        if k == 16:
            return f"rec({self.int_expr(env, d-1)} % 20)"
        return self.int_expr(env, 0)

    def str_expr(self, env, d=2):
        r = self.r
        if d <= 0 or self.chance(0.3):
            if env.strs and self.chance(0.6):
                return self.pick(env.strs)
            return self.pick(_STRS)
        k = r.randrange(10)
        if k == 0:
            return f"({self.str_expr(env, d-1)} + {self.str_expr(env, d-1)})"
        if k == 1:
            conv = self.pick(["", "!r", "!s", ":>4", ":03d"])
            if conv == ":03d":
                return f"f'<{{{self.int_expr(env, d-1)}{conv}}}|{{{self.str_expr(env, d-1)}!r}}>'"
            return f"f'{{{self.str_expr(env, d-1)}{conv}}}-{{{self.int_expr(env, d-1)}}}'"
        if k == 2:
            return f"str({self.int_expr(env, d-1)})"
        if k == 3:
            return f"{self.str_expr(env, d-1)}[{self.int_expr(env, 0)}:{self.int_expr(env, 0)}]"
        if k == 4:
            return f"{self.str_expr(env, d-1)}.{self.pick(['upper', 'lower', 'strip', 'title'])}()"
        if k == 5:
            v = self.fresh("v")
            inner = env.copy(comp=True, ints=env.ints + [v])
            return f"','.join([str({self.int_expr(inner, d-1)}) for {v} in {self.list_expr(env.copy(comp=True), d-1)}])"
        if k == 6:
            return f"({self.str_expr(env, d-1)} * ({self.int_expr(env, d-1)} % 3))"
        if k == 7:
            return f"'%s:%d' % ({self.str_expr(env, d-1)}, {self.int_expr(env, d-1)})"
        if k == 8:
            return f"repr({self.list_expr(env, d-1)})"
        if k == 9 and self.classes:
            return f"repr({self.pick(self.classes)}({self.int_expr(env, d-1)}))"
        return self.str_expr(env, 0)

    def list_expr(self, env, d=2):
        r = self.r
        if d <= 0 or self.chance(0.25):
            if env.lists and self.chance(0.6):
                return self.pick(env.lists)
            return "[" + ", ".join(self.int_expr(env, 0) for _ in range(r.randint(0, 3))) + "]"
        k = r.randrange(12)
        if k == 0:
            v = self.fresh("v")
            inner = env.copy(comp=True, ints=env.ints + [v])
            cond = f" if {self.bool_expr(inner, d-1)}" if self.chance(0.5) else ""
            return f"[{self.int_expr(inner, d-1)} for {v} in {self.list_expr(env.copy(comp=True), d-1)}{cond}]"
        if k == 1:
            v = self.fresh("v")
            return f"sorted({self.list_expr(env, d-1)}, key=lambda {v}: {self.pick(['-', '', '~'])}{v}, reverse={self.pick(['True', 'False'])})"
        if k == 2:
            return f"({self.list_expr(env, d-1)} + {self.list_expr(env, d-1)})"
        if k == 3:
            return f"{self.list_expr(env, d-1)}[{self.int_expr(env, 0)}:{self.int_expr(env, 0)}:{self.pick(['1', '-1', '2', ''])}]"
        if k == 4 and self.gen_funcs:
            return f"list({self.pick(self.gen_funcs)}({self.int_expr(env, d-1)} % 5))"
        if k == 5:
            return f"[*{self.list_expr(env, d-1)}, {self.int_expr(env, d-1)}]"
        if k == 6 and self.int_funcs:
            ones = [n for n, a in self.int_funcs if a == 1]
            if ones:
                return f"list(map({self.pick(ones)}, {self.list_expr(env, d-1)}))"
        if k == 7:
            return f"list(range({self.int_expr(env, d-1)} % 6))"
        if k == 8:
            return f"list(reversed({self.list_expr(env, d-1)}))"
        if k == 9 and self.classes:
            return f"list({self.pick(self.classes)}({self.int_expr(env, d-1)}))"
        if k == 10:
            v = self.fresh("v")
            return f"list(filter(lambda {v}: {v} % 2, {self.list_expr(env, d-1)}))"
        if k == 11 and env.coro:
            v = self.fresh("v")
            return f"[{v} async for {v} in arange({self.int_expr(env.copy(comp=True), d-1)} % 4)]"
        return self.list_expr(env, 0)

    def dict_expr(self, env, d=2):
        k = self.r.randrange(4)
        if d <= 0 or k == 0:
            if env.dicts and self.chance(0.6):
                return self.pick(env.dicts)
            return "{" + ", ".join(f"{self.str_expr(env, 0)}: {self.int_expr(env, 0)}" for _ in range(self.r.randint(0, 3))) + "}"
        if k == 1:
            v = self.fresh("v")
            inner = env.copy(comp=True, ints=env.ints + [v])
            return f"{{str({v}): {self.int_expr(inner, d-1)} for {v} in {self.list_expr(env.copy(comp=True), d-1)}}}"
        if k == 2:
            return f"{{**{self.dict_expr(env, d-1)}, {self.str_expr(env, d-1)}: {self.int_expr(env, d-1)}}}"
        return f"dict(zip({self.str_expr(env, d-1)}, {self.list_expr(env, d-1)}))"

    def bool_expr(self, env, d=2):
        k = self.r.randrange(8)
        if d <= 0 or k == 0:
            return f"{self.int_expr(env, 0)} {self.pick(_CMPS)} {self.int_expr(env, 0)}"
        if k == 1:
            return f"({self.bool_expr(env, d-1)} {self.pick(['and', 'or'])} {self.bool_expr(env, d-1)})"
        if k == 2:
            return f"(not {self.bool_expr(env, d-1)})"
        if k == 3:
            return f"({self.int_expr(env, d-1)} in {self.list_expr(env.copy(comp=True), d-1)})"
        if k == 4:
            return f"({self.int_expr(env, 0)} {self.pick(_CMPS)} {self.int_expr(env, d-1)} {self.pick(_CMPS)} {self.int_expr(env, 0)})"
        if k == 5:
            return f"{self.str_expr(env, d-1)}.startswith({self.str_expr(env, 0)})"
        if k == 6:
            v = self.fresh("v")
            inner = env.copy(comp=True, ints=env.ints + [v])
            return f"{self.pick(['any', 'all'])}({self.bool_expr(inner, d-1)} for {v} in {self.list_expr(env.copy(comp=True), d-1)})"
        return f"bool({self.list_expr(env, d-1)})"

    def any_expr(self, env, d=2):
        return self.pick([self.int_expr, self.str_expr, self.list_expr, self.dict_expr,
                          self.bool_expr])(env, d)

    # -- statements
    def block(self, env, ind, n=None):
        n = n if n is not None else self.r.randint(1, 4)
        for _ in range(n):
            self.stmt(env, ind)

    def stmt(self, env, ind):
        r = self.r
        nested = env.depth >= 3
        k = r.randrange(24)
        if k <= 2:
            kind = r.randrange(4)
            if kind == 0 or not env.func:
                name = self.pick(env.ints) if env.ints and self.chance(0.5) and env.func else self.fresh("n")
                self.emit(ind, f"{name} = {self.int_expr(env)}")
                if name not in env.ints:
                    env.ints.append(name)
            elif kind == 1:
                name = self.fresh("s")
                self.emit(ind, f"{name} = {self.str_expr(env)}")
                env.strs.append(name)
            elif kind == 2:
                name = self.fresh("l")
                self.emit(ind, f"{name} = {self.list_expr(env)}")
                env.lists.append(name)
            else:
                name = self.fresh("d")
                self.emit(ind, f"{name} = {self.dict_expr(env)}")
                env.dicts.append(name)
        elif k == 3:
            self.emit(ind, f"print({', '.join(self.any_expr(env) for _ in range(r.randint(1, 3)))})")
        elif k == 4 and env.func:
            ops = ["+=", "-=", "*=", "//=", "%=", "|=", "^=", "<<="]
            ints = [n for n in env.ints if n not in _GLOBALS]
            lists = [n for n in env.lists if n not in _GLOBALS]
            if ints:
                op = self.pick(ops)
                rhs = self.int_expr(env) if op != "<<=" else f"({self.int_expr(env)} % 5)"
                self.emit(ind, f"{self.pick(ints)} {op} {rhs}")
            if lists:
                self.emit(ind, f"{self.pick(lists)} += {self.list_expr(env)}")
            if not ints and not lists:
                self.emit(ind, f"print({self.int_expr(env)})")
        elif k == 5 and env.lists:
            lst = self.pick(env.lists)
            self.emit(ind, self.pick([f"{lst}.append({self.int_expr(env)})",
                                      f"{lst}[{self.int_expr(env, 0)}] = {self.int_expr(env)}",
                                      f"del {lst}[{self.int_expr(env, 0)}]",
                                      f"{lst}.sort(key=lambda q: (q % 3, q))",
                                      f"{lst}[1:2] = {self.list_expr(env)}",
                                      f"{lst}.extend({self.pick(self.gen_funcs) + '(3)' if self.gen_funcs else '(1, 2)'})"]))
        elif k == 6 and env.dicts:
            dct = self.pick(env.dicts)
            self.emit(ind, self.pick([f"{dct}[{self.str_expr(env)}] = {self.int_expr(env)}",
                                      f"del {dct}[{self.str_expr(env, 0)}]",
                                      f"{dct}.update({self.dict_expr(env)})",
                                      f"{dct}.setdefault({self.str_expr(env, 0)}, {self.int_expr(env)})"]))
        elif k == 7 and not nested:
            self.emit(ind, f"if {self.bool_expr(env)}:")
            self.block(env.copy(depth=env.depth+1), ind+1)
            if self.chance(0.4):
                self.emit(ind, f"elif {self.bool_expr(env)}:")
                self.block(env.copy(depth=env.depth+1), ind+1)
            if self.chance(0.5):
                self.emit(ind, "else:")
                self.block(env.copy(depth=env.depth+1), ind+1)
        elif k == 8 and not nested:
            v = self.fresh("i")
            src = self.pick([self.list_expr(env), f"range({self.int_expr(env)} % 5)",
                             f"sorted({self.list_expr(env)})"])
            self.emit(ind, f"for {v} in {src}:")
            inner = env.copy(depth=env.depth+1, loop=True, ints=env.ints + [v])
            self.block(inner, ind+1)
            if self.chance(0.3):
                self.emit(ind, "else:")
                self.block(env.copy(depth=env.depth+1), ind+1, 1)
        elif k == 9 and not nested:
            c = self.fresh("c")
            self.emit(ind, f"{c} = 0")
            self.emit(ind, f"while {c} < {r.randint(0, 4)}:")
            self.emit(ind+1, f"{c} += 1")
            self.block(env.copy(depth=env.depth+1, loop=True, ints=env.ints + [c]), ind+1)
        elif k == 10 and env.loop:
            self.emit(ind, f"if {self.bool_expr(env, 1)}:")
            self.emit(ind+1, self.pick(["break", "continue"]))
        elif k == 11:
            self.emit(ind, f"raise {self.raise_expr(env)}" if self.chance(0.3)
                      else f"if {self.bool_expr(env, 1)}:\n    raise {self.raise_expr(env)}")
        elif k <= 13 and not nested:
            self.try_stmt(env, ind)
        elif k == 14 and not nested:
            tag = self.str_expr(env, 0)
            if self.chance(0.5):
                v = self.fresh("s")
                self.emit(ind, f"with CM({tag}, {self.pick(['True', 'False'])}) as {v}, gcm({self.int_expr(env, 0)}) as {v}x:")
                inner = env.copy(depth=env.depth+1, strs=env.strs + [v], ints=env.ints + [v + "x"])
            else:
                self.emit(ind, f"with CM({tag}, {self.pick(['True', 'False'])}):")
                inner = env.copy(depth=env.depth+1)
            self.block(inner, ind+1)
            if env.coro and self.chance(0.5):
                v = self.fresh("s")
                self.emit(ind, f"async with ACM({tag}) as {v}:")
                self.block(env.copy(depth=env.depth+1, strs=env.strs + [v]), ind+1)
        elif k == 15 and not nested:
            self.match_stmt(env, ind)
        elif k == 16 and env.func and not nested:
            self.closure(env, ind)
        elif k == 17 and env.gen:
            self.emit(ind, self.pick([f"yield {self.int_expr(env)}",
                                      f"yield from {self.list_expr(env)}",
                                      f"{self.fresh('n')} = yield {self.int_expr(env)}"]))
        elif k == 18:
            a, b = self.fresh("n"), self.fresh("l")
            self.emit(ind, f"{a}, *{b} = {self.list_expr(env)} + [{self.int_expr(env)}]")
            env.ints.append(a)
            env.lists.append(b)
        elif k == 19:
            self.emit(ind, f"assert {self.bool_expr(env)}, {self.str_expr(env, 1)}")
        elif k == 20 and env.coro:
            v = self.fresh("i")
            self.emit(ind, f"async for {v} in arange({self.int_expr(env)} % 4):")
            self.block(env.copy(depth=env.depth+1, loop=True, ints=env.ints + [v]), ind+1)
        elif k == 22 and env.func and not nested and self.chance(0.5):
            self.feature(env, ind)
        elif k == 21 and env.func and env.ints:
            self.emit(ind, f"del {env.ints[-1]}" if self.chance(0.2) else "pass")
            if self.chance(0.2):
                env.ints.pop()
        else:
            self.emit(ind, f"print({self.any_expr(env)})")

    def raise_expr(self, env):
        exc = self.pick(self.excs)
        arg = self.pick([self.int_expr, self.str_expr])(env, 1)
        if self.chance(0.15):
            return f"ExceptionGroup('eg', [{exc}({arg}), E1({self.int_expr(env, 0)})])"
        return f"{exc}({arg})"

    def try_stmt(self, env, ind):
        inner = env.copy(depth=env.depth+1)
        self.emit(ind, "try:")
        self.block(inner, ind+1)
        star = self.chance(0.15)
        kw = "except*" if star else "except"
        handlers = self.r.randint(0 if not star else 1, 2)
        for _ in range(handlers):
            exc = self.pick(self.excs)
            if self.chance(0.3):
                exc = f"({exc}, {self.pick(self.excs)})"
            v = self.fresh("e")
            self.emit(ind, f"{kw} {exc} as {v}:")
            self.emit(ind+1, f"print('caught', type({v}).__name__, {v}{'.exceptions' if star else '.args'})")
            if self.chance(0.3):
                self.emit(ind+1, self.pick(["raise", f"raise E0('wrapped') from {v}",
                                            "raise KeyError('in handler')"]))
            else:
                h = inner.copy(loop=False, star=True) if star else inner.copy()
                self.block(h, ind+1, 1)
        if not star and self.chance(0.3):
            handlers += 1
            self.emit(ind, "except:" if self.chance(0.3) else "except Exception as ex:")
            self.emit(ind+1, "print('bare')")
        if handlers and self.chance(0.3):
            self.emit(ind, "else:")
            self.block(inner, ind+1, 1)
        if not handlers or self.chance(0.5):
            self.emit(ind, "finally:")
            self.emit(ind+1, f"print('finally', {self.int_expr(env, 0)})")
            if env.func and not env.gen and not env.star and self.chance(0.2):
                self.emit(ind+1, f"return {self.int_expr(env, 0)}")

    def match_stmt(self, env, ind):
        subj = self.pick([self.list_expr(env), self.int_expr(env), self.dict_expr(env),
                          f"({self.int_expr(env)}, {self.str_expr(env)})",
                          f"{self.pick(self.classes)}({self.int_expr(env, 0)})" if self.classes else "None"])
        self.emit(ind, f"match {subj}:")
        pats = [
            "[]", "[x]", "[x, *rest]", "[1, _, *_]", "(a, b)", "{'a': x}", "{'b': x, **kw}",
            "0 | 1 | 2", "int(x) if x > 3", "str() as s", "[int(), int()]", "None",
        ]
        if self.classes:
            c = self.pick(self.classes)
            pats += [f"{c}(val=x)", f"{c}(x)"]
        for p in self.r.sample(pats, self.r.randint(1, 4)):
            self.emit(ind+1, f"case {p}:")
            names = [n for n in ("x", "rest", "a", "b", "kw", "s") if re.search(rf"(?<!')\b{n}\b(?!')", p)]
            self.emit(ind+2, f"print('case', {p!r}, {', '.join(names) or 'None'})")
        self.emit(ind+1, "case _:")
        self.emit(ind+2, "print('no match')")

    def closure(self, env, ind):
        outer = self.fresh("n")
        fn = self.fresh("inner")
        self.emit(ind, f"{outer} = {self.int_expr(env, 1)}")
        self.emit(ind, f"def {fn}(q):")
        self.emit(ind+1, f"nonlocal {outer}")
        self.emit(ind+1, f"{outer} += q")
        self.emit(ind+1, f"return {outer} * 2")
        self.emit(ind, f"print({fn}({self.int_expr(env, 0)}), {fn}(1), {outer})")
        env.ints.append(outer)

    # -- definitions
    def function(self):
        name = self.fresh("f")
        arity = self.r.randint(0, 3)
        params = [self.fresh("p") for _ in range(arity)]
        sig = list(params)
        if arity and self.chance(0.4):
            sig[-1] += f"={self.r.randint(0, 5)}"
        extra = []
        if self.chance(0.3):
            sig.append("*args")
            extra.append("len(args)")
        if self.chance(0.3):
            sig.append("kw0=1")
            extra.append("kw0")
        if self.chance(0.2):
            sig.append("**kws")
            extra.append("len(kws)")
        decorated = self.chance(0.2)
        if decorated:
            self.emit(0, "@_fz_trace")
        self.emit(0, f"def {name}({', '.join(sig)}):")
        env = _Env(params + extra[:0], ["s0"], ["l0"], ["d0"], func=True)
        if extra and self.chance(0.5):
            self.emit(1, f"print('extra', {', '.join(extra)})")
        if self.chance(0.3):
            self.emit(1, "global i0")
            self.emit(1, "i0 += 1")
        self.block(env, 1, self.r.randint(1, 5))
        self.emit(1, f"return {self.int_expr(env)}")
        self.int_funcs.append((name, arity))

    def generator(self):
        name = self.fresh("g")
        self.emit(0, f"def {name}(k):")
        env = _Env(["k"], ["s0"], ["l0"], [], func=True, gen=True)
        self.emit(1, "for j in range(k):")
        self.emit(2, f"yield j * {self.int_expr(env, 0)}")
        self.block(env, 1, self.r.randint(1, 4))
        if self.chance(0.5):
            self.emit(1, f"yield from {self.pick(self.gen_funcs)}(k - 1)" if self.gen_funcs
                      else "yield from range(2)")
        self.emit(1, f"return {self.int_expr(env, 1)}")
        self.gen_funcs.append(name)

    def coroutine(self):
        name = self.fresh("co")
        self.emit(0, f"async def {name}(k):")
        env = _Env(["k"], ["s0"], ["l0"], ["d0"], func=True, coro=True)
        self.block(env, 1, self.r.randint(1, 5))
        self.emit(1, f"return {self.int_expr(env)}")
        self.coro_funcs.append(name)

    def klass(self):
        name = self.fresh("K")
        base = self.pick(self.classes) if self.classes and self.chance(0.4) else None
        self.emit(0, f"class {name}({base or ''}):")
        self.emit(1, "count = 0")
        self.emit(1, "def __init__(self, val):")
        if base:
            self.emit(2, "super().__init__(val + 1)")
        else:
            self.emit(2, "self.val = val")
        self.emit(2, f"{name}.count += 1")
        self.emit(1, "def __repr__(self):")
        self.emit(2, f"return f'{name}({{self.val!r}})'")
        self.emit(1, "def __eq__(self, other):")
        self.emit(2, "return type(other) is type(self) and self.val == other.val")
        self.emit(1, "def __hash__(self):")
        self.emit(2, "return hash(self.val)")
        self.emit(1, "def __lt__(self, other):")
        self.emit(2, "return self.val < other.val")
        self.emit(1, "def __add__(self, other):")
        self.emit(2, f"return type(self)(self.val + (other.val if isinstance(other, {name}) else other))")
        self.emit(1, "def __iter__(self):")
        self.emit(2, "yield from range(self.val % 4)")
        self.emit(1, "def __len__(self):")
        self.emit(2, "return abs(self.val) % 5")
        self.emit(1, "def __bool__(self):")
        self.emit(2, "return self.val > 0")
        self.emit(1, "def get(self, k):")
        env = _Env(["k"], ["s0"], ["l0"], [], func=True)
        if base:
            self.emit(2, f"r = super().get(k) + {self.int_expr(env, 1)}")
        else:
            self.emit(2, f"r = self.val * k + {self.int_expr(env, 1)}")
        self.emit(2, "return r")
        self.emit(1, "@property")
        self.emit(1, "def double(self):")
        self.emit(2, "return self.val * 2")
        self.emit(1, "@classmethod")
        self.emit(1, "def make(cls, n):")
        self.emit(2, "return cls(n)")
        self.emit(1, "__match_args__ = ('val',)")
        self.classes.append(name)

    def program(self):
        self.emit(0, "def _fz_trace(fn):")
        self.emit(1, "import functools")
        self.emit(1, "@functools.wraps(fn)")
        self.emit(1, "def wrapper(*a, **k):")
        self.emit(2, "print('call', fn.__name__, a, k)")
        self.emit(2, "return fn(*a, **k)")
        self.emit(1, "return wrapper")
        top = _Env(["i0", "i1", "i2"], ["s0", "s1"], ["l0", "l1"], ["d0"])
        for _ in range(self.r.randint(4, 9)):
            k = self.r.randrange(6)
            if k == 0:
                self.function()
            elif k == 1:
                self.generator()
            elif k == 2:
                self.klass()
            elif k == 3:
                self.coroutine()
            else:
                self.function()
            for _ in range(self.r.randint(1, 3)):
                self.use(top)
        for _ in range(self.r.randint(2, 6)):
            self.use(top)
        return "\n".join(self.lines) + "\n"

    def feature(self, env, ind=0):
        choices = FEATURES if ind == 0 else [f for f in FEATURES if "#top" not in f]
        self.emit(ind, _fill(self, env, self.pick(choices).strip("\n")))

    def use(self, env):
        r = self.r
        k = r.randrange(9)
        if k >= 7:
            self.feature(env)
        elif k == 0 and self.coro_funcs:
            self.emit(0, f"print(drive({self.pick(self.coro_funcs)}({self.int_expr(env, 1)})))")
        elif k == 1 and self.gen_funcs:
            g = self.fresh("gen")
            self.emit(0, f"{g} = {self.pick(self.gen_funcs)}({self.int_expr(env, 1)} % 5)")
            self.emit(0, f"print(next({g}, None), {g}.send(None) if {self.bool_expr(env, 0)} else 0, list({g}))")
        elif k == 2 and self.classes:
            c = self.pick(self.classes)
            self.emit(0, f"print(sorted([{c}({self.int_expr(env, 0)}), {c}.make({self.int_expr(env, 0)}), {c}(2)]), "
                         f"{c}(1) == {c}(1), {{{c}(1), {c}(1)}}, {c}({self.int_expr(env, 0)}).double, {c}.count)")
        else:
            self.stmt(env, 0)


def writer_program(seed):
    """The full program of our own generator for a seed, or None."""
    try:
        body = Writer(seed).program()
        src = HELPERS + WRITER_PRELUDE + instrument(body) + "\n"
    except (SyntaxError, ValueError, RecursionError):
        return None
    return src if compiles(src) else None


GENERATORS = {"codegen": make_program, "writer": writer_program}


# ---------------------------------------------------------------------------
# Running one program natively and interpreted, each in a forked child.

_ADDR = re.compile(r"\bat 0x[0-9a-fA-F]+")


def normalize(text):
    """Mask object addresses ("<... at 0x7f...>"), which differ between runs."""
    return _ADDR.sub("at 0x?", text)


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
    # When the cyclic collector runs depends on how many objects were
    # allocated, which differs between the two runs; finalizers (a generator's
    # finally, __del__) then run only when the program drops the last
    # reference, or calls gc.collect() itself.
    gc.disable()
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    sys.stderr = io.StringIO()
    out = io.StringIO()
    sys.stdout = out
    namespace = {"__name__": "__fuzz__"}
    uncaught = None
    tree = differential.code_tree(code)
    escapes_before = 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if mode == "native":
                with differential.native_starts(tree) as native_starts:
                    exec(code, namespace)
            else:
                from quickening import api
                from quickening.interp import escapes, hostframes
                hostframes.install()   # as `quickening run` does
                escapes.enable()
                escapes_before = escapes.total()    # (the parent's, inherited by the fork)
                api.run_code(code, namespace)
        except BaseException as e:  # the outcome is what we compare
            try:
                msg = str(e)
            except BaseException:
                msg = "<str failed>"
            uncaught = f"{type(e).__name__}: {msg}"
    sys.stdout = sys.__stdout__
    # did it run in the interpreter: the code objects started (natively as CPython
    # reports them), and the interpreted code CPython ran itself (escapes); taken
    # before the globals' reprs run more of the program's code
    if mode == "native":
        started = {"started": sorted(k for k, n in native_starts.items() if k is not None and n),
                   "hides_starts": differential.hides_starts(tree)}
    else:
        from quickening.interp import escapes
        started = {"started": sorted(differential.interpreted_starts(tree)),
                   "escapes": escapes.total() - escapes_before}
    # An unawaited coroutine warns when it is collected: that moment is not
    # part of the language, so those warnings are not compared.
    shown = [normalize(f"{w.category.__name__}: {w.message} at {w.filename}:{w.lineno}")
             for w in caught if "never awaited" not in str(w.message)]
    namespace.pop("__warningregistry__", None)
    result = {
        "stdout": normalize(out.getvalue()[:OUTPUT_CAP]),
        "uncaught": normalize(uncaught) if uncaught is not None else None,
        "warnings": shown,
        "globals": _global_reprs(namespace),
    }
    result.update(started)
    return result


def run_forked(mode, code, limit):
    """Run code in a forked child; return (outcome dict, seconds).

    The outcome is {"timeout": True} when the limit passed, and
    {"crash": status} when the child died without reporting."""
    r, w = os.pipe()
    start = time.monotonic()
    with warnings.catch_warnings():
        # pytest-xdist workers run threads; the child only runs the program.
        warnings.simplefilter("ignore", DeprecationWarning)
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
    for kind in ("timeout", "crash", "harness_error"):
        if kind in interp:
            return kind, f"interpreted: {interp}"
    native, interp = dict(native), dict(interp)
    if interp.pop("escapes"):
        return "escapes", "interpreted code ran natively"
    started = set(native.pop("started")), set(interp.pop("started"))
    if native.pop("hides_starts"):
        started = (started[0], started[0] | started[1])    # (differential.assert_same)
    if started[0] != started[1]:
        return "started", (f"started natively only: {sorted(started[0] - started[1])}\n"
                           f"started interpreted only: {sorted(started[1] - started[0])}")
    if native == interp:
        return None
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


def program_for(generator, seed):
    """The program text of GENERATORS[generator] for seed; raises Skip."""
    src = GENERATORS[generator](seed)
    if src is None:
        raise Skip("generated program does not compile")
    return src


def check_seed(generator, seed):
    """(program source, None or (kind, description)); raises Skip."""
    src = program_for(generator, seed)
    return src, check_source(src)


def signature(diff):
    """A short key grouping differences that are probably the same bug."""
    kind, text = diff
    lines = [l for l in text.splitlines() if l.startswith("interpreted")] or [text]
    key = re.sub(r"\d+", "N", lines[0])
    key = re.sub(r"'[^']*'", "'_'", key)
    key = re.sub(r"\[\(.*?\)\]", "[tb]", key)
    return f"{kind}: {key[:160]}"

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
