"""The frames a program sees report the code object CPython's do: a function's
frame its `__code__` (libraries recognise their own frames by code object), in
sys._getframe(), a traceback's tb_frame, a generator's gi_frame, a caller's
f_back; and what is read through that code at the frame's instruction (line,
positions, locals) is the real code's.  Each snippet runs natively and
interpreted (tests/interp/differential.py)."""

import pytest

from tests.interp.differential import assert_same

SNIPPETS = {
    "getframe_code_is_the_functions": """
import sys
def f():
    return sys._getframe().f_code
def caller():
    return f(), sys._getframe(0).f_code
inner, outer = caller()
r = [inner is f.__code__, outer is caller.__code__, sys._getframe().f_code.co_name]
""",
    "f_back_code_is_the_callers": """
import sys, inspect
def f():
    return sys._getframe(1).f_code, inspect.currentframe().f_back.f_code
def g():
    return f()
a, b = g()
r = [a is g.__code__, b is g.__code__]
""",
    "traceback_frame_codes": """
def inner(d):
    return d["k"]
def outer():
    x = 5
    return inner({})
try:
    outer()
except KeyError as e:
    tb = e.__traceback__.tb_next
r = [tb.tb_frame.f_code is outer.__code__, tb.tb_next.tb_frame.f_code is inner.__code__,
     tb.tb_frame.f_lineno, tb.tb_lineno, tb.tb_frame.f_locals["x"],
     list(tb.tb_frame.f_code.co_positions())[tb.tb_lasti // 2]]
""",
    # a library hiding its own frames by code object (as a template engine does
    # with the functions it marks internal)
    "frames_recognised_by_code": """
internal = set()
def internalcode(fn):
    internal.add(fn.__code__)
    return fn
@internalcode
def render(t):
    return t["missing"]
def user():
    return render({})
try:
    user()
except KeyError as e:
    tb = e.__traceback__
names = []
while tb is not None:
    if tb.tb_frame.f_code not in internal:
        names.append(tb.tb_frame.f_code.co_name)
    tb = tb.tb_next
r = names
""",
    "generator_frame_code": """
import sys
def gen():
    yield sys._getframe().f_code
g = gen()
r = [g.gi_frame.f_code is gen.__code__, next(g) is gen.__code__, g.gi_code is gen.__code__]
""",
    "closure_frame_code_and_locals": """
import sys
def outer():
    a = 1
    def inner():
        b = a + 1
        frame = sys._getframe()
        return frame.f_code, sorted(frame.f_locals), frame.f_lineno
    return inner
inner = outer()
code, names, line = inner()
r = [code is inner.__code__, names, line]
""",
    # a finished frame's variables, read through its code: cell and free variables
    "closure_frames_in_a_traceback": """
def outer():
    a = [1]
    def inner():
        b = a
        raise KeyError(len(b))
    inner()
try:
    outer()
except KeyError as e:
    tb = e.__traceback__.tb_next
r = [tb.tb_frame.f_code is outer.__code__, sorted(tb.tb_frame.f_locals), tb.tb_frame.f_locals["a"],
     tb.tb_next.tb_frame.f_code.co_name, sorted(tb.tb_next.tb_frame.f_locals.items())]
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_frames_report_cpythons_code_object(name):
    assert_same(SNIPPETS[name], filename=f"<{name}>")
