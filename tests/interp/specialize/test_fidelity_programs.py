"""Whole programs through `quickening fidelity`: every executed site must agree.

Each program exercises something only a whole run shows: the frames under
the main module (data-stack positions), imported modules and threads, sites
run by atexit handlers, frame objects and the builtins the interpreter
replaces (sys._getframe, warnings.warn), classes that die."""

import json
import subprocess
import sys

import pytest

PROGRAMS = {
    # deep recursion from the main module: chunk boundaries of the data stack
    # sit where CPython's do only if nothing is under the main module's frame
    "recursion_from_main": ({"main.py": """
import sys
sys.setrecursionlimit(3000)
def rec(n):
    return 0 if n == 0 else rec(n - 1) + 1
class K:
    def walk(self, n):
        return 0 if n == 0 else self.walk(n - 1) + 1
for d in range(1, 400, 3):
    rec(d)
    K().walk(d)
rec(2500)
"""}),
    # an imported module's body runs under importlib's frames; a callback
    # from native code (sorted's key) runs on its caller's data stack
    "recursion_in_imports": ({
        "main.py": """
import modx
import mody
mody.go()
sorted(range(300), key=lambda d: mody.rec2(d))
""",
        "modx.py": """
def rec(n):
    return 0 if n == 0 else rec(n - 1) + 1
for d in range(1, 400, 3):
    rec(d)
""",
        "mody.py": """
def rec2(n):
    return 0 if n == 0 else rec2(n - 1) + 1
def go():
    for d in range(1, 400, 3):
        rec2(d)
"""}),
    # another thread has its own data stack under threading's bootstrap frames
    "recursion_in_threads": ({"main.py": """
import threading
def rec(n):
    return 0 if n == 0 else rec(n - 1) + 1
def work():
    for d in range(1, 400, 3):
        rec(d)
class T(threading.Thread):
    def run(self):
        work()
t = threading.Thread(target=work); t.start(); t.join()
t = T(); t.start(); t.join()
"""}),
    # frame objects: attribute sites and truth tests fail as on CPython's
    # frames; sys._getframe and warnings.warn are called as the builtins
    "frames_and_replaced_builtins": ({"main.py": """
import sys, warnings
def where():
    f = sys._getframe(1)
    n = 0
    while f:
        n += f.f_lineno > 0
        n += len(f.f_code.co_name)
        f = f.f_back
    return n
def inner():
    return where()
t = 0
for i in range(80):
    t += inner()
    fr = sys._getframe()
    if fr:
        t += 1
    t += fr.f_lasti > 0
    fr.f_trace = None
    t += "fr" in fr.f_locals
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    for i in range(60):
        warnings.warn("x")
        warnings.warn("y", DeprecationWarning, 2)
print(t)
"""}),
    # sites run by atexit handlers are read after those handlers, on both sides
    "atexit_handlers": ({"main.py": """
import atexit
class H:
    def __init__(self):
        self.n = 0
    def bump(self, k):
        self.n += k
h = H()
def at_exit():
    for i in range(100):
        h.bump(i)
atexit.register(at_exit)
for i in range(10):
    h.bump(i)
"""}),
    # local classes in reference cycles die only through a collection, whose
    # timing differs between the interpreter and CPython: the cached class
    # must still be named the same on both sides
    "local_classes": ({"main.py": """
def make(i):
    class C:
        def __init__(self):
            self.a = i
        def get(self):
            return C
    c = C()
    for _ in range(60):
        c.get()
        c.a = c.a + 1
    return c.a
junk = []
for i in range(30):
    make(i)
    junk.append([[j] for j in range(2000)])
"""}),
    # fused runs read an instance value or a slot as `o.name`: an empty one (the
    # attribute deleted once the loop is hot) is a miss, counted as CPython does
    "emptied_slots_in_hot_loops": ({"main.py": """
class P:
    def __init__(self, x):
        self.x = x
class S:
    __slots__ = ("x",)
    def __init__(self, x):
        self.x = x
def total(ps):
    t = 0
    for p in ps:
        try:
            t += p.x
        except AttributeError as e:
            t += 1000 + (e.__context__ is None)
    return t
for cls in (P, S):
    ps = [cls(i) for i in range(50)]
    out = []
    for k in range(40):
        if k == 20:
            for p in ps[::3]:
                del p.x
        out.append(total(ps))
    print(out)
"""}),
    # a fused run knows the type of a clean site's result (its misses leave the
    # run) and drops that operand's test from the next guard; not after a site
    # that had missed when the run was made (it misses in place, its result then
    # of any type): here the multiplications have, so the addition still counts
    # its misses
    "known_result_types": ({"main.py": """
def g(x, y):
    return x * x + y * y - 2.0 * x
def h(xs):
    t = 0.0
    for x in xs:
        t += x * x + 0.5 * x
    return t
for i in range(20):
    g(1.5, 2.5)
for i in range(5):
    g(1, 2)
for i in range(100):
    g(1.5, 2.5)
for i in range(30):
    g(1, 2)
floats = [i * 0.25 for i in range(60)]
for i in range(20):
    h(floats)
h(list(range(60)))
print(g(1.5, 2.5), g(3, 4), h(floats))
"""}),
    # a local's type, known after a store of a value of known type, is forgotten
    # where code of the program may run (here __len__ rebinding it through
    # f_locals) and on the other side of a branch (where the store did not happen)
    "local_types": ({"main.py": """
import sys


class Poke:
    on = False

    def __len__(self):
        if Poke.on:
            sys._getframe(1).f_locals["t"] = 0.5
        return 1


def f(n, p):
    s = 0
    for i in range(n):
        t = i + 1
        k = len(p)
        s = s + t * k
    return s


def g(a, flag):
    x = a
    if flag:
        x = 1.5
        return x * 2.0
    return x * 2.0


p = Poke()
for _ in range(40):
    f(100, p)
Poke.on = True
print(f(10, p))
for _ in range(100):
    g(2.5, True)
    g(2.5, False)
for _ in range(10):
    g(2.5, True)
    g(3, False)
print(g(2.5, True), g(3, False))
"""}),
    # a guard's terms that held at one site are not tested again at a later site of
    # the same run on the same local, until code of the program may run (here
    # __add__ changing the instance's class), the local is stored to, or on the
    # other side of a branch
    "guard_terms_shared": ({"main.py": """
class A:
    def __init__(self):
        self.x = 1
        self.y = 2


class B:
    def __init__(self):
        self.x = 10
        self.y = 20


class Flip:
    target = None

    def __add__(self, other):
        if Flip.target is not None:
            Flip.target.__class__ = B
        return other


def two(o, other):
    s = o.x
    o = other
    return s + o.x


def around(o, k):
    s = o.x
    n = k + 1
    return s + o.y + n


def sides(o, flag):
    if flag:
        s = o.x
        return s + o.y
    return o.y + 1


a, b = A(), B()
for _ in range(100):
    two(a, a)
    around(A(), Flip())
    sides(a, True)
    sides(a, False)
results = []
for _ in range(10):
    results.append(two(a, b))
    results.append(sides(a, True))
    results.append(sides(b, False))
k = Flip()
for _ in range(10):
    o = A()
    Flip.target = o
    results.append(around(o, k))
print(results)
"""}),
    # a class attribute whose value is None is an attribute (LOAD_ATTR_CLASS), not
    # an absent one
    "class_attribute_none": ({"main.py": """
class Config:
    limit = None
    name = "x"


def read():
    return Config.limit, Config.name


for i in range(60):
    read()
Config.limit = 3
for i in range(5):
    read()
print(read())
"""}),
    # a loop's later turns know what held at the end of its first (peeled): a local's
    # type, guard terms over locals the turn does not store to -- not over one it
    # does (rotate's o), nor with a global's name bound only in the first turn
    "loop_turns_know_what_held": ({"main.py": """
K = 3


class A:
    def __init__(self, v):
        self.v = v


class B:
    def __init__(self, v):
        self.v = v


def rotate(objs):
    o = objs[0]
    t = 0
    for k in objs:
        t = t + o.v
        o = k
    return t


def accumulate(xs):
    t = 0
    for x in xs:
        t = t + x + K + len("ab")
    return t


def globals_only(n):
    t = 0
    for i in range(n):
        t = t + K
    return t


def retyped(xs):
    t = 0
    for x in xs:
        t = t + 1
        if x < 0:
            t = 0.5
            continue
    return t


objs = [A(i) for i in range(30)]
for _ in range(40):
    rotate(objs)
    accumulate(range(40))
    retyped(range(40))
    globals_only(40)
mixed = objs[:10] + [B(5)] + objs[10:]
results = [rotate(mixed) for _ in range(5)]
results += [accumulate([1, 2, 2.5, 3]), retyped([1, -1, 2, 3]), globals_only(10)]
print(results)
"""}),
    # generic operations on operands of known builtin types run no code of the
    # program: what the run knows holds on past them, and their results' types are
    # known (int % int, int / int, str * int, comparisons, indexing)
    "generic_ops_on_known_types": ({"main.py": """
def mixed(n):
    t = 0
    u = 0.0
    s = ""
    for i in range(n):
        q = i / 4
        r = i // 3
        u = u + q * 1.5
        t = t + r + i % 7
        if i % 5 == 0:
            s = s + "ab" * 2
    return t, u, len(s)


def table(xs, n):
    hits = 0
    for i in range(n):
        k = xs[i % len(xs)]
        if k < 3:
            hits = hits + 1
    return hits


for _ in range(30):
    mixed(50)
    table([1, 2, 3, 4], 40)
print(mixed(20), table([1, 2.5, "x" < "y", 4], 10))
"""}),
    # a fused LOAD_GLOBAL tests that the keys object is the one it specialized for and
    # that object's version: a global deleted (same keys, new version), globals
    # added until the dict grows (new keys), the builtins changed; and its code run
    # with another globals dict (a fused run finds where the keys of the dict it was
    # made with are without arithmetic, those of another as before)
    "global_keys_changing": ({"main.py": """
K = 1
SPARE = 0


def read(n):
    t = 0
    for i in range(n):
        t = t + K + len("ab")
    return t


for _ in range(40):
    read(20)
del SPARE                      # the keys' version changes, the keys object stays
for _ in range(5):
    read(20)
for k in range(40):            # the keys object is replaced (the dict grows)
    globals()[f"G{k}"] = k
    read(3)
import builtins
builtins.EXTRA = 1             # the builtins' keys change too
for _ in range(5):
    read(20)
del builtins.EXTRA
import types
other = {"K": 10, "__builtins__": __builtins__}
read_other = types.FunctionType(read.__code__, other)
results = [(read(20), read_other(20)) for _ in range(30)]
print(read(10), results[-1])
"""}),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_agrees(name, tmp_path):
    files = PROGRAMS[name]
    for fname, text in files.items():
        (tmp_path / fname).write_text(text)
    report = tmp_path / "fidelity.json"
    out = subprocess.run([sys.executable, "-m", "quickening", "fidelity", "--json", str(report),
                          "main.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert report.exists(), out.stderr
    data = json.loads(report.read_text())
    assert data["sites"] > 5
    assert data["disagreements"] == [], out.stdout
