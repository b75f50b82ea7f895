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
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet_same_as_native(name):
    assert_same(SNIPPETS[name], filename=f"<{name}>")
