"""Fused runs (fusion.py) behave exactly like the instructions they stand for.

Most code the other tests run is too short-lived to get warm, so it never
runs fused.  Here every code object is fused at its first execution
(fusion.HOT = 1) and the same differential checks run again: whole programs,
the snippets, the fuzzing corpus and seeds; plus the points where a fused
run must hand back exactly what a single instruction would: the line of an
exception, the line a callee sees, object lifetimes, tracing.
"""

import dis
import os

import pytest

from quickening.interp import fusion
from tests.interp import fuzzing
from tests.interp.differential import PYTHON, assert_same, run_program
from tests.interp.test_fuzz import FOUND, KNOWN_DIFFERENCES
from tests.interp.test_programs import PROGRAMS
from tests.interp.test_snippets import SNIPPETS


@pytest.fixture(autouse=True)
def fuse_at_once(monkeypatch):
    # as QUICKENING_FUSE_AFTER=1 sets them: no waiting for an entry point either
    monkeypatch.setattr(fusion, "HOT", 1)
    monkeypatch.setattr(fusion, "ENTRY_WARMUP", 0)
    monkeypatch.setattr(fusion, "INSIDE_WARMUP", 0)
    monkeypatch.setattr(fusion, "PATIENCE", 0)


@pytest.mark.parametrize("path", PROGRAMS, ids=os.path.basename)
def test_program_fused_same_as_native(path):
    cwd = os.path.dirname(path)
    nat = run_program([PYTHON, path, "arg1"], cwd=cwd)
    interp = run_program([PYTHON, "-m", "quickening", "run", path, "arg1"], cwd=cwd,
                         env={**os.environ, "QUICKENING_FUSE_AFTER": "1"})
    assert (interp.stdout, interp.stderr, interp.returncode) == (nat.stdout, nat.stderr, nat.returncode)


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet_fused_same_as_native(name):
    assert_same(SNIPPETS[name], filename=f"<{name}>")


@pytest.mark.parametrize("name", sorted(set(FOUND) - set(KNOWN_DIFFERENCES)))
def test_found_by_fuzzing_fused(name):
    import textwrap
    native, interp = fuzzing.run_both(fuzzing.HELPERS + textwrap.dedent(FOUND[name]))
    assert fuzzing.difference(native, interp) is None


@pytest.mark.parametrize("seed", range(0, 40, 3))
def test_written_program_fused(seed):
    try:
        _, diff = fuzzing.check_seed("writer", seed)
    except fuzzing.Skip as e:
        pytest.skip(str(e))
    assert diff is None, diff


# -- the points where a fused run stands in for single instructions ----------------------
FUSED_CASES = {
    "exception_line_inside_run": """
import traceback
def f(xs, k):
    a = 1
    b = xs[k]          # raises inside a fused run
    return a + b
out = []
for k in (0, 1, 5):
    try:
        out.append(f([1, 2], k))
    except IndexError as e:
        out.append([(s.lineno, s.name) for s in traceback.extract_tb(e.__traceback__)])
""",
    # members executed in place: dict and set membership, dict subscript and store
    # (a key of the program's, whose __eq__ runs), a str index (a character past
    # \x7f misses), a class that is always true until it gets __bool__; a missing
    # key raises where CPython's does
    "containers_in_place": """
import traceback
log = []
class Key:
    def __init__(self, k): self.k = k
    def __hash__(self): return hash(self.k)
    def __eq__(self, other):
        log.append(self.k)
        return isinstance(other, Key) and other.k == self.k
class Plain:
    pass
def f(d, s, fs, text, i, k, obj):
    out = [k in d, k not in s, k in fs]
    d[k] = i
    out += [d[k], text[i], bool(obj), 1 if obj else 0]
    return out
d, s, fs = {}, {Key(2)}, frozenset([Key(1)])
r = [f(d, s, fs, "ab\u00e9cd" * 3, i, Key(i % 3), Plain()) for i in range(12)]
Plain.__bool__ = lambda self: False
r += [f(d, s, fs, "abc", 1, Key(1), Plain()) for _ in range(3)]
def g(d, k):
    a = 1
    return d[k] + a
for k in (1, 1, 1, 2, 1):
    try:
        r.append(g({1: 5}, k))
    except KeyError as e:
        r.append([(t.lineno, t.name) for t in traceback.extract_tb(e.__traceback__)])
r.append(log)
""",
    # LOAD_ATTR_MODULE and LOAD_ATTR_METHOD_NO_DICT in place: a module attribute
    # rebound, a key added, deleted and added again; a method of a builtin and of a
    # slotted class, then replaced in the class
    "module_attribute_and_method_no_dict_in_place": """
import types
m = types.ModuleType("m")
m.x = 1
class S:
    __slots__ = ("v",)
    def get(self): return self.v
def f(m, s, xs):
    xs.append(m.x)
    return s.get() + m.x
xs = []
s = S(); s.v = 10
r = [f(m, s, xs) for _ in range(5)]
m.x = 2
r += [f(m, s, xs) for _ in range(5)]
m.y = 3
r += [f(m, s, xs) for _ in range(5)]
del m.x
try:
    f(m, s, xs)
except AttributeError as e:
    r.append(str(e))
m.x = 4
r += [f(m, s, xs) for _ in range(5)]
S.get = lambda self: -self.v
r += [f(m, s, xs) for _ in range(5)]
r.append(len(xs))
""",
    "handler_in_same_run": """
def f(d, k):
    try:
        x = d[k] + 1
    except KeyError:
        x = -1
    return x
r = [f({1: 2}, k) for k in (1, 2, 1, 3)]
""",
    "callee_sees_calling_line": """
import sys
def where():
    return sys._getframe(1).f_lineno
class C:
    def __eq__(self, other):
        return where()
def f(c):
    a = 1
    b = (c == a)
    return a, b
r = [f(C()) for _ in range(3)]
""",
    "temporaries_die_when_the_stack_drops_them": """
import gc, weakref
class O:
    pass
def f():
    o = O()
    w = weakref.ref(o)
    o = None
    gc.collect()
    return w() is None
r = [f() for _ in range(4)]
""",
    "tracing_a_warm_function": """
import sys
def g(n):
    t = 0
    for i in range(n):
        t = t + i
    return t
for _ in range(3):
    g(3)
events = []
def tracer(frame, event, arg):
    if frame.f_code.co_name == 'g':
        events.append((event, frame.f_lineno))
    return tracer
sys.settrace(tracer)
g(2)
sys.settrace(None)
""",
    "stack_values_below_a_call": """
def h(x):
    return x * 2
def f(a, b):
    return [a, b, h(a) + h(b), (a, b)]
r = [f(i, i + 1) for i in range(4)]
""",
    # a run that starts inside a loop goes round to the loop's head in place; a trace
    # function set meanwhile on the frame (by the generator it iterates) sends it
    # back to the loop, which traces it
    "tracing_set_inside_a_loop": """
import sys
events = []
def tracer(frame, event, arg):
    if frame.f_code.co_name in ('f', 'gen'):
        events.append((frame.f_code.co_name, event, frame.f_lineno))
    return tracer
def gen(n, start):
    for i in range(n):
        if i == start:
            sys._getframe(1).f_trace = tracer
            sys.settrace(tracer)
        yield i
def f(n, start):
    t = 0
    for x in gen(n, start):
        t = t + x
    return t
for _ in range(6):
    f(20, -1)
r = f(12, 7)
sys.settrace(None)
""",
    # the same, the trace function set by a function the loop calls, and by one it
    # calls through native code (map), and sys.settrace making a kept one active:
    # the run goes back to the loop at once after the call, which traces the rest
    "tracing_set_by_a_callee_inside_a_loop": """
import sys
events = []
def tracer(frame, event, arg):
    if frame.f_code.co_name in ('f', 'g', 'h'):
        events.append((frame.f_code.co_name, event, frame.f_lineno))
    return tracer
def setter(depth):
    sys._getframe(depth).f_trace = tracer
    sys.settrace(tracer)
def keeper(depth):
    sys._getframe(depth).f_trace = tracer
def f(n, k):
    t = 0
    for i in range(n):
        if i == k:
            setter(1)
        t = t + i
    return t
def g(n, k):
    t = 0
    for i in range(n):
        if i == k:
            list(map(setter, [1]))
        t = t + i
    return t
def h(n, k):
    t = 0
    for i in range(n):
        if i == k:
            keeper(1)
        elif i == k + 2:
            sys.settrace(tracer)
        t = t + i
    return t
for fn in (f, g, h):
    for _ in range(6):
        fn(20, -5)
    r = fn(12, 7)
    sys.settrace(None)
print(events)
""",
    # a run that jumps back to its start loops in place (`while True:` in the fused
    # function): objects made and dropped on each turn die in CPython's order
    "loop_in_place_releases_each_turn": """
class D:
    def __init__(self, i):
        self.i = i
    def __del__(self):
        print("del", self.i)
def f(n):
    total = 0
    for x in map(D, range(n)):
        total += x.i
    print("loop done")
    return total
print(f(4))
""",
    # sites whose form changes while their runs are fused: int -> float (53 misses),
    # five classes round-robin (polymorphic), globals rebound, a method replaced
    "sites_change_form_while_fused": """
class A0:
    def __init__(self): self.v = 0
    def m(self): return 1
A1 = type("A1", (A0,), {}); A2 = type("A2", (A0,), {}); A3 = type("A3", (A0,), {})
A4 = type("A4", (A0,), {})
objs = [k() for k in (A0, A1, A2, A3, A4)]
G = 1
def f(xs, objs):
    t = 0
    for i, x in enumerate(xs):
        t = t + x * G
        o = objs[i % 5]
        t += o.v + o.m()
    return t
print(f(list(range(100)), objs))
print(f([i / 2 for i in range(200)], objs))
G = 2.5
A0.m = lambda self: 2
print(f(list(range(100)), objs))
for o in objs:
    o.v = 3
print(f([1] * 60 + [1.5] * 60, objs))
""",
    # attributes are written `o.name` in fused code when the name allows it
    # (fusion.source_attribute); code objects may hold any string as a name
    "attribute_names_source_cannot_write": """
class C:
    pass
def f(o, v):
    o.aa = v
    o.bb = v + 1
    return o.aa, o.bb, C.cc, o.dd
out = []
for n1, n2 in [("if", "\ufb01"), ("a b", "__debug__"), ("fi", "else")]:
    code = f.__code__
    rename = {"aa": n1, "bb": n2, "cc": n1, "dd": "fi"}
    g = type(f)(code.replace(co_names=tuple(rename.get(n, n) for n in code.co_names)), globals())
    setattr(C, n1, "class " + n1)
    o = C()
    o.fi = "plain fi"            # what "\ufb01" would read if normalized as source is
    for i in range(60):
        r = g(o, i)
    out.append((r, sorted(vars(o).items())))
print(out)
""",
    # a run goes on past conditional branches (both sides written in it, once
    # each side has run: the loops below run them before their runs are made)
    "branches_written_in_one_run": """
import traceback
def classify(xs):
    out = []
    for i, x in enumerate(xs):
        if x is None:
            out.append("none")
            continue
        if isinstance(x, int) and x > 5 or x == 2:
            tag = "big" if x > 10 else "mid"
        elif x:
            tag = "true"
        else:
            tag = "false"
        while isinstance(x, int) and x > 100:
            x //= 7
            if x == 14:
                break
        else:
            tag += "!"
        try:
            if i % 7 == 6:
                raise ValueError(i)
            val = len(str(x)) if x is not None else 0
        except ValueError:
            val = -1
        out.append((tag, val, max(i, x if isinstance(x, int) else 0)))
    return out
print(classify([None, 0, 1, 2, 3, 6, 11, 700, 5000, "", "s", 12.5] * 8))
def gen(n):
    for i in range(n):
        if i % 3 == 0:
            yield i
        elif i % 3 == 1:
            yield -i
        elif i > 70:
            return
print(list(gen(90)))
def fails(i):
    if i > 3:
        if i % 2:
            return [1][i]         # raises inside a side
        return i
    return -i
r = []
for i in range(60):
    try:
        r.append(fails(i))
    except IndexError as e:
        r.append(traceback.extract_tb(e.__traceback__)[-1].lineno)
print(r)
""",
    # LOAD_DEREF / STORE_DEREF run in place; an empty cell raises as the handler does
    "cells_in_place": """
def outer(n):
    acc = 0
    def inc(k):
        nonlocal acc
        acc += k
        return acc
    t = 0
    for i in range(n):
        t += inc(i)
    return t, acc
print(outer(200))
def late():
    def g():
        return x
    out = []
    for i in range(40):
        try:
            out.append(g())
        except NameError as e:
            out.append((type(e).__name__, str(e), e.__context__))
        if i == 20:
            x = 5
    return out
print(late()[18:24])
def local_unbound(flag):
    if flag:
        y = 1
    def h():
        return y
    try:
        return y, h()
    except UnboundLocalError as e:
        return str(e), e.__context__
print([local_unbound(i % 2) for i in range(40)][:4])
def in_handler():
    def h():
        return z
    r = []
    for i in range(40):
        try:
            raise KeyError(i)
        except KeyError:
            try:
                h()
            except NameError as e:
                r.append(repr(e.__context__))
    z = 1
    return r[:3]
print(in_handler())
""",
    # a CALL site failing on builtin classes (TypeError(x): CALL_CLASS_NO_VECTORCALL) calls
    # a class in place while it backs off: other classes between its attempts (one of the
    # program's, one whose __init__ raises), str(b, enc) raising, and zero-argument
    # super(), which the interpreter answers from the frame (intercepted), at a site of
    # a method that has a __class__ cell
    "failing_class_call_in_place": """
import traceback
class Made:
    def __init__(self, v): self.v = v * 2
class Bad:
    def __init__(self, v): raise LookupError(v)
class Base:
    def who(self): return "base"
class Sub(Base):
    def call(self, k):
        __class__
        return k()
    def who(self): return "sub " + super().who()
def f(k, x):
    return k(x)
r = []
for i in range(70):
    k = Made if i % 7 == 3 else Bad if i % 13 == 6 else TypeError
    try:
        v = f(k, i)
        r.append(v.v if k is Made else v.args)
    except LookupError as e:
        r.append([(t.lineno, t.name) for t in traceback.extract_tb(e.__traceback__)])
for i in range(40):
    try:
        r.append(str(b"ab\\xff" if i % 9 == 4 else b"ab", "ascii"))
    except UnicodeDecodeError as e:
        r.append((e.start, len(traceback.extract_tb(e.__traceback__))))
s = Sub()
for i in range(70):
    v = s.call(super if i % 6 == 5 else ValueError)
    r.append(v.who() if type(v) is super else v.args)
""",
    "swap_copy_and_unpack": """
def f(a, b):
    a, b = b, a
    c, d = (a, b)
    x = y = c
    return a, b, c, d, x, y
r = [f(i, -i) for i in range(3)]
""",
}


@pytest.mark.parametrize("name", sorted(FUSED_CASES))
def test_fused_case_same_as_native(name):
    assert_same(FUSED_CASES[name], filename=f"<{name}>")


def _runs(info):
    """The fused functions made for a code object: entry point -> function."""
    return {pc: e[0] for pc, e in enumerate(info.instrs)
            if e is not None and e[0].__name__ == "fused"}


def _interpreted(source):
    """The namespace of source run in the interpreter (compiled as "<f>")."""
    from quickening import api
    ns = {}
    api.run_code(compile(source, "<f>", "exec"), ns)
    return ns


def _native_f(source, *args):
    """f(*args) of source run natively: what the interpreted calls must return."""
    ns = {}
    exec(source, ns)
    return ns["f"](*args)


def _warmed(source, *args):
    """The namespace of source run in the interpreter, its f(*args) called six times
    (fuse_soon: its code objects fused and their runs made)."""
    from quickening import api
    ns = _interpreted(source)
    for _ in range(6):
        api.call(ns["f"], *args)
    return ns


def _counting(info, pcs):
    """Count the calls of the handlers at pcs (the fused runs made there ...): the
    count, a list of one."""
    calls = [0]
    for pc in pcs:
        handler, arg, nxt = info.instrs[pc]

        def counted(f, stack, a, n, handler=handler):
            calls[0] += 1
            return handler(f, stack, a, n)
        info.instrs[pc] = (counted, arg, nxt)
    return calls


@pytest.fixture
def fuse_soon(monkeypatch):
    """Code objects fused after 2 entries, each entry point's run made after 3 more."""
    monkeypatch.setattr(fusion, "HOT", 2)
    monkeypatch.setattr(fusion, "ENTRY_WARMUP", 3)


def test_code_is_fused_once_warm(monkeypatch):
    """The cases above really ran fused: a warm code object has fused entries, made
    once the code object is hot and then its entry point has been reached
    ENTRY_WARMUP times (its sites specialized by then: no patience needed)."""
    monkeypatch.setattr(fusion, "HOT", 3)
    monkeypatch.setattr(fusion, "ENTRY_WARMUP", 4)
    from quickening import api
    from quickening.interp.sitestate import info_of
    ns = {}
    api.run_code(compile("def f(a, b):\n    c = a + b\n    return c\n", "<f>", "exec"), ns)
    info = info_of(ns["f"])
    calls = 0
    while not _runs(info):
        assert api.call(ns["f"], 1, 2) == 3
        calls += 1
    assert calls == 3 + 4     # (the entry is first reached in the call that made the code hot)


def test_a_run_goes_on_past_branches(fuse_soon):
    """A warm loop with an if/else: the run made at the loop's head writes both
    sides of the branch, so the loop never dispatches them (their entry points
    keep the stubs that would make their own runs), and the result is native's."""
    from quickening import api
    from quickening.interp.sitestate import info_of
    source = ("def f(xs):\n"
              "    t = 0\n"
              "    for x in xs:\n"
              "        if x > 2:\n"
              "            t = t + x\n"
              "        else:\n"
              "            t = t - x\n"
              "    return t\n")
    expected = _native_f(source, [0, 5] * 30)
    ns = {}
    api.run_code(compile(source, "<f>", "exec"), ns)
    for _ in range(6):
        assert api.call(ns["f"], [0, 5] * 30) == expected
    info = info_of(ns["f"])
    made = _runs(info)
    sides = [ins.offset // 2 for ins in dis.get_instructions(info.code)
             if ins.opname in ("BINARY_OP",)]
    assert made and sides
    for pc in sides:     # the blocks holding the two sides' additions: written in place
        block = max(p for p in info.entry_points if p <= pc)
        assert block not in made


def _source_of(run):
    """The source a fused function was made from."""
    return next(text for text, code in fusion._TEMPLATES.items() if code is run.__code__)


def _after_calls_that_leave(body, monkeypatch):
    """f(n) looping over `body` (calls of g, which stops every time: it raises and
    catches) run warm in the interpreter, its result native's: its CodeInfo's runs
    made, the instruction after each call in f, and f's loop head."""
    from quickening import api
    from quickening.interp.sitestate import info_of
    monkeypatch.setattr(fusion, "INSIDE_WARMUP", 20)
    source = ("def g(i):\n"
              "    try:\n"
              "        raise KeyError(i)\n"
              "    except KeyError:\n"
              "        return i\n"
              "def f(n):\n"
              "    t = 0\n"
              "    for i in range(n):\n"
              f"{body}"
              "    return t\n")
    expected = _native_f(source, 80)
    ns = _interpreted(source)
    for _ in range(6):
        assert api.call(ns["f"], 80) == expected
    info = info_of(ns["f"])
    ins = list(dis.get_instructions(info.code))
    head = next(i.offset // 2 for i in ins if i.opname == "FOR_ITER")
    afters = [b.offset // 2 for a, b in zip(ins, ins[1:]) if a.opname == "CALL"][1:]   # (range)
    return _runs(info), afters, head


def test_a_run_after_a_call_that_left_stops_at_its_loops_head(fuse_soon, monkeypatch):
    """A callee that stops (it raises, even if it catches it) makes its call leave
    the caller's run, which the loop goes on with after the call: the run made
    there goes round to the loop's head only while the head has no run of its own
    (the head's run then goes on; the loop is not written twice)."""
    made, (after,), head = _after_calls_that_leave("        t += g(i)\n"
                                                   "        t += 1\n", monkeypatch)
    assert head in made and after in made, (head, after, made)
    assert f"at = {head}\n" not in _source_of(made[after])
    assert f"at = {after}\n" in _source_of(made[after])


def test_a_run_after_a_call_that_left_ends_after_the_next_that_left(fuse_soon, monkeypatch):
    """Two calls in a row whose callees stop: the run made after the first ends after
    the second, where the second's own run goes on (it is not written in both)."""
    made, (first, second), _ = _after_calls_that_leave("        t += g(i)\n"
                                                       "        t -= g(i + 1)\n"
                                                       "        t *= 3\n", monkeypatch)
    assert first in made and second in made, (first, second, made)
    assert f"at = {second}\n" not in _source_of(made[first])
    assert f"return {second}\n" in _source_of(made[first])
    assert f"at = {second}\n" in _source_of(made[second])


def test_a_polymorphic_site_holds_in_place_the_kinds_it_has_held(fuse_soon):
    """A site that keeps changing is made in the form that reads its member from
    the site, for the member kinds it has held; taking up another kind makes its
    runs again with that member in place (without, it would go through the table
    for good)."""
    from quickening import api
    from quickening.interp.families import load_attr
    from quickening.interp.sitestate import info_of
    source = ("class A:\n    def __init__(self): self.v = 1\n"
              "class B:\n    def __init__(self): self.v = 2\n"
              "class S:\n    __slots__ = ('v',)\n    def __init__(self): self.v = 3\n"
              "def get(o):\n    return o.v\n")
    ns = {}
    api.run_code(compile(source, "<poly>", "exec"), ns)
    get, info = ns["get"], info_of(ns["get"])

    def kinds_in_place():
        held = {id(v) for run in _runs(info).values() for v in run.__globals__.values()}
        return {member for member in (load_attr.INSTANCE_VALUE, load_attr.SLOT)
                if any(id(k) in held for k in member.in_place(0))}

    objs = [ns["A"](), ns["B"]()]
    for i in range(300):
        assert api.call(get, objs[i % 2]) == i % 2 + 1
    assert kinds_in_place() == {load_attr.INSTANCE_VALUE}
    s = ns["S"]()
    for _ in range(100):
        assert api.call(get, s) == 3
    assert kinds_in_place() == {load_attr.INSTANCE_VALUE, load_attr.SLOT}


@pytest.mark.parametrize("inside_warmup, made", [(3, True), (400, False)])
def test_an_entry_point_another_run_holds_waits_longer(fuse_soon, monkeypatch, inside_warmup,
                                                       made):
    """A site that fails to specialize leaves its run each time it tries again
    (backing off); the loop then arrives at the entry point after it, which that
    run holds: it gets a run of its own only after INSIDE_WARMUP arrivals, not
    ENTRY_WARMUP (compiling it for the few times a failed site tries again
    cost more than it saved)."""
    monkeypatch.setattr(fusion, "INSIDE_WARMUP", inside_warmup)
    from quickening import api
    from quickening.interp.sitestate import info_of
    source = ("def f(xs):\n"
              "    t = 0\n"
              "    for x in xs:\n"
              "        t = t + x ** 2\n"
              "    return t\n")
    expected = _native_f(source, range(50))
    ns = {}
    api.run_code(compile(source, "<f>", "exec"), ns)
    for _ in range(60):
        assert api.call(ns["f"], range(50)) == expected
    info = info_of(ns["f"])
    (power,) = [s for s in info.sites if s.family.name == "BINARY_OP" and s.oparg == 8]
    assert power.form == "BINARY_OP" and power.attempts > 5      # failed, backing off
    after = info.plain[power.pc][2]
    assert after in info.entry_points
    assert (after in _runs(info)) is made


def test_a_run_inside_a_loop_goes_round_to_its_head(fuse_soon):
    """A generator's loop: the run made where it resumes after its yield goes round
    to the loop's head in place and on to the yield, so each item costs one fused
    call (without, the head's own run too: two)."""
    from quickening import api
    from quickening.interp.sitestate import info_of
    source = ("def gen(n):\n"
              "    for i in range(n):\n"
              "        yield i * 2\n"
              "def f(n):\n"
              "    t = 0\n"
              "    for x in gen(n):\n"
              "        t = t + x\n"
              "    return t\n")
    expected = _native_f(source, 100)
    ns = _warmed(source, 20)
    info = info_of(ns["gen"])
    made = _runs(info)
    assert made
    calls = _counting(info, made)
    assert api.call(ns["f"], 100) == expected
    assert 100 <= calls[0] <= 100 + 2


def test_a_polymorphic_site_re_targets_without_leaving_its_run(fuse_soon):
    """Five classes round-robin at one LOAD_ATTR site: it re-specializes every 53
    misses, each time through the table, and its new handler then runs right there:
    the loop's run is entered once per call, never left midway."""
    from quickening import api
    from quickening.interp.sitestate import info_of
    source = "".join(f"class C{i}:\n    def __init__(self): self.v = {i}\n" for i in range(5))
    source += ("def f(objs):\n"
               "    t = 0\n"
               "    for o in objs:\n"
               "        t = t + o.v\n"
               "    return t\n")
    ns = {}
    exec(source, ns)
    objs = [ns[f"C{i % 5}"]() for i in range(200)]
    expected = ns["f"](objs)
    ns = _interpreted(source)
    objs = [ns[f"C{i % 5}"]() for i in range(200)]
    for _ in range(6):
        assert api.call(ns["f"], objs) == expected
    info = info_of(ns["f"])
    (site,) = [s for s in info.sites if s.family.name == "LOAD_ATTR"]
    head = next(ins.offset // 2 for ins in dis.get_instructions(info.code)
                if ins.opname == "FOR_ITER")
    assert head in _runs(info)
    calls = _counting(info, [head])
    before = site.respecializations
    for _ in range(5):
        assert api.call(ns["f"], objs) == expected
    assert site.respecializations - before >= 10
    assert calls[0] == 5


def test_a_path_reaching_a_shared_return_writes_it_again(fuse_soon):
    """`return a or b`: both paths reach one RETURN_VALUE (a join); each writes it
    again rather than leave for the loop to dispatch it."""
    from quickening import api
    from quickening.interp.sitestate import info_of
    source = "def f(a, b):\n    return a.x or b\nclass A:\n    def __init__(self, x): self.x = x\n"
    ns = _interpreted(source)
    objs = [ns["A"](0), ns["A"](1)]
    for i in range(20):
        assert api.call(ns["f"], objs[i % 2], 5) == (i % 2 or 5)
    info = info_of(ns["f"])
    (ret,) = [ins.offset // 2 for ins in dis.get_instructions(info.code)
              if ins.opname == "RETURN_VALUE"]
    assert ret in info.joins and _runs(info)
    calls = _counting(info, [ret])
    for i in range(20):
        assert api.call(ns["f"], objs[i % 2], 5) == (i % 2 or 5)
    assert calls[0] == 0


def test_the_code_after_a_loop_has_a_run(fuse_soon):
    """FOR_ITER's exit goes on past END_FOR and POP_TOP at once: that instruction is
    an entry point, so the code after the loop runs fused, not through the table."""
    from quickening import api
    from quickening.interp.sitestate import info_of
    source = ("def f(xs):\n"
              "    t = 0\n"
              "    for x in xs:\n"
              "        t = t + x\n"
              "    u = t * 2\n"
              "    return u + 1\n")
    ns = _interpreted(source)
    for _ in range(10):
        assert api.call(ns["f"], [1, 2, 3]) == 13
    info = info_of(ns["f"])
    (end_for,) = [ins.offset // 2 for ins in dis.get_instructions(info.code)
                  if ins.opname == "END_FOR"]
    after = end_for + 2      # (END_FOR, POP_TOP)
    assert after in info.entry_points and after in _runs(info)


def test_send_gen_pushes_the_delegate_from_the_run(fuse_soon):
    """`yield from` an interpreted generator: the run resuming the delegating frame
    goes round to its SEND_GEN and pushes the delegate's frame itself; the handler
    (through the table) is not called while the delegate is a suspended
    interpreted generator."""
    from quickening import api
    from quickening.interp.sitestate import info_of
    source = ("def leaf(n):\n"
              "    for i in range(n):\n"
              "        yield i\n"
              "def mid(n):\n"
              "    yield from leaf(n)\n"
              "def total(n):\n"
              "    t = 0\n"
              "    for x in mid(n):\n"
              "        t = t + x\n"
              "    return t\n")
    ns = _interpreted(source)
    for _ in range(6):
        assert api.call(ns["total"], 30) == sum(range(30))
    info = info_of(ns["mid"])
    (site,) = [s for s in info.sites if s.family.name == "SEND"]
    assert site.form == "SEND_GEN"
    handler, arg, nxt = info.plain[site.pc]
    calls = [0]

    def counted(f, stack, a, n):
        calls[0] += 1
        return handler(f, stack, a, n)

    info.plain[site.pc] = (counted, arg, nxt)
    if info.instrs[site.pc][0] is handler:      # (no run there: the loop dispatches it)
        info.instrs[site.pc] = (counted, arg, nxt)
    assert api.call(ns["total"], 100) == sum(range(100))
    assert calls[0] <= 2


def test_a_small_callee_is_written_into_its_caller(fuse_soon):
    """A callee whose first run runs no code of the program is written into the run
    of its caller (inlining.py): the call makes no frame and does not enter the
    callee's own run.  A guard failing inside it (floats where it specialized for
    ints) makes the frame then, and the loop goes on in it; once the callee's site
    changes form, the caller's run is made again."""
    from quickening import api
    from quickening.interp.sitestate import info_of
    source = ("def area(w, h):\n"
              "    return w * h + 1\n"
              "def f(n, k):\n"
              "    t = 0\n"
              "    for i in range(n):\n"
              "        t = t + area(i * k, 3)\n"
              "    return t\n")
    ns = {}
    exec(source, ns)
    expected = [ns["f"](100, 1), ns["f"](100, 0.5), ns["f"](100, 1)]
    ns = _warmed(source, 20, 1)
    callee = info_of(ns["area"])
    assert callee.leaf is not None and callee.inlined_into
    calls = _counting(callee, [0])
    assert api.call(ns["f"], 100, 1) == expected[0]
    assert calls[0] == 0
    # floats: BINARY_OP_MULTIPLY_INT misses inside, the frame is made there
    assert api.call(ns["f"], 100, 0.5) == expected[1]
    assert api.call(ns["f"], 100, 1) == expected[2]
    (site,) = [s for s in callee.sites if s.family.name == "BINARY_OP" and s.oparg == 5]
    assert site.misses > 0


def test_a_base_site_goes_on_after_the_table(fuse_soon):
    """A call site whose specialization failed (a builtin exception class, as in
    CPython) holds its base instruction: the run counts it down and calls the generic
    CALL's handler, and goes on after it (leaving the run there, the loop would
    dispatch the instruction after the call every time)."""
    from quickening import api
    from quickening.interp.sitestate import info_of
    source = ("def f(n):\n"
              "    t = 0\n"
              "    for i in range(n):\n"
              "        t = t + ValueError(i).args[0]\n"
              "    return t\n")
    expected = _native_f(source, 100)
    ns = _warmed(source, 20)
    info = info_of(ns["f"])
    site = max((s for s in info.sites if s.family.name == "CALL"), key=lambda s: s.pc)
    assert site.form == "CALL" and site.attempts
    after = info.plain[site.pc][2]
    calls = _counting(info, [after])
    assert api.call(ns["f"], 100) == expected
    assert calls[0] <= 2


def test_a_site_failing_on_classes_calls_them_in_place(fuse_soon):
    """A call site failing on builtin classes (ValueError(): CALL_CLASS_NO_VECTORCALL)
    calls a class in place while it counts down, not an intercepted one: zero-argument
    super() is answered from the interpreted frame (natively, it would look for its
    class in the fused run's frame)."""
    from quickening import api
    from quickening.interp.sitestate import info_of
    source = ("class Base:\n"
              "    def who(self): return 'base'\n"
              "class Sub(Base):\n"
              "    def call(self, k):\n"
              "        __class__\n"
              "        return k()\n"
              "    def who(self): return 'sub ' + super().who()\n"
              "def f(ks):\n"
              "    s = Sub()\n"
              "    return [v.who() if type(v) is super else v.args for v in map(s.call, ks)]\n")
    ks = [ValueError, ValueError, super, KeyError] * 10
    ns = _interpreted(source)
    for _ in range(8):
        api.call(ns["f"], [ValueError] * 10)
    site = next(s for s in info_of(ns["Sub"].call).sites if s.family.name == "CALL")
    assert site.form == "CALL" and "CALL_CLASS_NO_VECTORCALL" in site.failures
    assert api.call(ns["f"], ks) == _native_f(source, ks)


def test_a_loop_is_peeled_when_what_it_saves_pays_for_writing_it_twice(fuse_soon, monkeypatch):
    """A loop's first turn is written on its own (peeled) when the guards of the other
    turns are shorter by enough for its length (fusion.PEEL_WORTH): a short loop
    carrying a float; not a long loop body of calls (to a function that is not written
    into it: each may change anything), which saves only its iterator's check."""
    made = []
    build = fusion._build
    monkeypatch.setattr(fusion, "_build", lambda run, instrs: made.append(run) or build(run, instrs))
    calls = "\n".join(f"        g(x, {k})" for k in range(12))
    source = ("def g(x, k):\n"
              "    for _ in x:\n"
              "        pass\n"
              "    return k\n"
              "def short(xs):\n"
              "    t = 0.5\n"
              "    for x in xs:\n"
              "        t = t * x + 1.0\n"
              "    return t\n"
              "def long(xs):\n"
              "    t = 0\n"
              "    for x in xs:\n"
              f"{calls}\n"
              "        t = x\n"
              "    return t\n")
    from quickening import api
    ns = _interpreted(source)
    for _ in range(6):
        assert api.call(ns["short"], [0.5] * 50) == _native_f(source.replace("def short", "def f"),
                                                              [0.5] * 50)
        api.call(ns["long"], [()] * 50)
    loops = {run.info.code.co_name: run for run in made if run.loops}
    assert loops["short"].first_turn is not None
    assert loops["long"].first_turn is None
