"""Snippets run with exec() and with the interpreter in one process; outcomes compared."""

import pytest

from tests.interp.differential import assert_same

SNIPPETS = {
    "frames": """
import sys, inspect, traceback
def who():
    f = sys._getframe()
    return f.f_code.co_name, f.f_back.f_code.co_name, f.f_lineno, inspect.currentframe().f_code.co_name
def caller():
    return who()
r = caller()
stack = [fs.name for fs in traceback.extract_stack(sys._getframe())][-2:]
""",
    "super_and_class_cell": """
class A:
    def f(self): return 'A'
class B(A):
    def f(self): return 'B' + super().f()
    def g(self): s = super(); return s.f()
r = B().f(), B().g()
""",
    "exec_eval_defaults": """
def f():
    a = 3
    return eval('a * 2'), locals(), dir()
r = f()
exec('q = 5')
""",
    "generator_protocol": """
def g():
    x = yield 1
    try:
        yield x
    except KeyError as e:
        yield repr(e)
it = g()
r = [next(it), it.send('s'), it.throw(KeyError('k'))]
it.close()
""",
    "except_star_nested": """
log = []
try:
    try:
        raise ExceptionGroup('eg', [ValueError(1), OSError(2)])
    except* ValueError as e:
        log.append(repr(e))
        raise KeyError('new')
except BaseException as e:
    log.append((type(e).__name__, repr(getattr(e, 'exceptions', None))))
""",
    "comprehension_scopes": """
x = 10
r = [x for x in range(3)], x, [[y * z for y in range(2)] for z in range(2)], {(lambda: w)() for w in 'ab'} == {'a', 'b'}
""",
    "unpack_errors": """
out = []
for v in [(1,), (1, 2, 3), 5, [1, 2, 3, 4]]:
    try:
        a, b = v
    except (TypeError, ValueError) as e:
        out.append(str(e))
    try:
        a, *b, c, d = v
    except (TypeError, ValueError) as e:
        out.append(str(e))
""",
    "star_call_errors": """
out = []
def f(a, b=1): return a
for args in [lambda: f(*1), lambda: f(**1), lambda: f(1, **{'a': 2}), lambda: f(*[1], **{'b': 1, 'c': 2})]:
    try:
        args()
    except TypeError as e:
        out.append(str(e))
""",
    "with_and_context": """
import contextlib
log = []
@contextlib.contextmanager
def cm(tag):
    log.append('enter ' + tag)
    try:
        yield tag
    finally:
        log.append('exit ' + tag)
with cm('a') as a, cm('b') as b:
    log.append(a + b)
with contextlib.suppress(ZeroDivisionError):
    1 / 0
""",
    "asend_athrow_close_ignored": """
import types
@types.coroutine
def _aw(v):
    return (yield v)
async def ag1():
    try:
        await _aw(1)
    except GeneratorExit:
        await _aw(2)
    yield
async def ag2():
    try:
        yield
    except KeyError:
        try:
            await _aw(3)
        except GeneratorExit:
            await _aw(4)
async def ag3():
    try:
        await _aw(5)
    except GeneratorExit:
        log.append('exit')
        raise
    yield
log = []
for make, first in ((ag1, None), (ag2, KeyError), (ag3, None)):
    agen = make()
    if first is None:
        step = agen.asend(None)
    else:
        try:
            agen.asend(None).send(None)
        except StopIteration:
            log.append('stop')
        step = agen.athrow(first)
    log.append(step.send(None))
    try:
        log.append(step.close())
    except RuntimeError as e:
        log.append(str(e))
    log.append(step.close())
""",
    "generator_handler_done_shows_callers_exception": """
import sys
log = []
def gen():
    try:
        try:
            yield
        except ValueError:
            log.append(type(sys.exception()).__name__)
            raise TypeError()
    except Exception as exc:
        log.append((type(sys.exception()).__name__, type(exc.__context__).__name__))
    log.append(type(sys.exception()).__name__)
    yield
    log.append(sys.exception())
    yield 'done'
g = gen()
next(g)
try:
    raise ValueError
except Exception as exc:
    g.throw(exc)
log.append(next(g))
""",
    "generator_objects_code_flags": """
def outer():
    async def co(): pass
    def gen(): yield 1
    async def agen(): yield 1
    return co, gen, agen
co, gen, agen = outer()
c = co()
r = [c.cr_code.co_flags == co.__code__.co_flags, gen().gi_code.co_flags == gen.__code__.co_flags,
     agen().ag_code.co_flags == agen.__code__.co_flags, c.cr_code.co_name]
c.close()
""",
    "getframe_past_the_interpreted_frames": """
import sys
def f():
    return [sys._getframe(i).f_code.co_name for i in range(5)]
r = list(map(lambda x: f(), [1]))
""",
    "frames_seen_through_throw_and_close_of_yield_from": """
import sys
def names():
    out, frame = [], sys._getframe(1)
    while frame and not frame.f_code.co_name.startswith('call_'):
        out.append((frame.f_code.co_name, frame.f_lineno))
        frame = frame.f_back
    return out
log = []
def f():
    try:
        yield
    except Exception:
        log.append(names())
    try:
        yield
    finally:
        log.append(names())
def g():
    yield from f()
def call_throw():
    gen = g()
    gen.send(None)
    gen.throw(RuntimeError)
    gen.close()
call_throw()
""",
    "finished_frames_and_chained_errors_hold_no_references": """
import sys
class I:
    def __aiter__(self): return self
    def __anext__(self): return ()
held = I()
def run(coro):
    try:
        coro.send(None)
    except BaseException as e:
        return e
async def foo():
    async for i in held:
        pass
before = sys.getrefcount(held)
err = run(foo())
r = [type(err).__name__, sys.getrefcount(held) - before, err.__cause__.__traceback__]
def g():
    x = held
    yield 1
    raise ValueError
gen = g()
next(gen)
try:
    next(gen)
except ValueError:
    pass
r.append(sys.getrefcount(held) - before)
del before  # (a call from the interpreter holds one more reference meanwhile)
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet_same_as_native(name):
    assert_same(SNIPPETS[name], filename=f"<{name}>")
