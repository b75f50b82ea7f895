"""The data-stack space guards: members that push a frame deopt when CPython's
current data-stack chunk has no room for it (a deep recursion misses once per
chunk boundary it crosses), so their counters must match CPython's.

Each case recurses to many different depths, so that the exact position of
every chunk boundary (and the frames under the first interpreted one)
decides how many executions miss."""

import pytest

from tests.interp.specialize.harness import assert_same_sites

CASES = {
    # CALL_PY_EXACT_ARGS
    "function": ("""
def rec(n):
    if n == 0:
        return 0
    return rec(n - 1) + 1
""", "rec(d)"),
    # a bigger frame: more locals and a deeper value stack
    "big_frame": ("""
def rec(n, a=1, b=2):
    x, y, z, w = n, n + 1, [n, a, b], (n, n, n, n, n)
    if n == 0:
        return 0
    return rec(n - 1, a, b) + len(z) + len(w) - 8 + (x - y + 1)
""", "rec(d)"),
    # CALL_PY_EXACT_ARGS in the method form (o.walk(...))
    "method": ("""
class K:
    def walk(self, n):
        return 0 if n == 0 else self.walk(n - 1) + 1
k = K()
""", "k.walk(d)"),
    # CALL_BOUND_METHOD_EXACT_ARGS
    "bound_method": ("""
class K:
    def walk(self, n):
        m = self.walk
        return 0 if n == 0 else m(n - 1) + 1
k = K()
""", "k.walk(d)"),
    # CALL_ALLOC_AND_ENTER_INIT (the shim frame under __init__ counts)
    "alloc_and_enter_init": ("""
class Node:
    def __init__(self, n):
        self.child = Node(n - 1) if n else None
""", "Node(d)"),
    # LOAD_ATTR_PROPERTY
    "property": ("""
class K:
    def __init__(self, n):
        self.n = n
    @property
    def down(self):
        return 0 if self.n == 0 else K(self.n - 1).down + 1
""", "K(d).down"),
    # BINARY_SUBSCR_GETITEM
    "getitem": ("""
class S:
    def __getitem__(self, n):
        return 0 if n == 0 else self[n - 1] + 1
s = S()
""", "s[d]"),
    # LOAD_ATTR_GETATTRIBUTE_OVERRIDDEN
    "getattribute": ("""
class G:
    def __getattribute__(self, name):
        if name[:1] != 'a':
            return object.__getattribute__(self, name)
        n = int(name[1:])
        return 0 if n == 0 else getattr(self, 'a' + str(n - 1)) + 1
g = G()
def viaattr(n):
    return g.a0 if n == 0 else viaattr(n - 1)
""", "viaattr(d)"),
    # generator frames are not on the data stack; calls made from them are
    "generator": ("""
def gen(n):
    yield rec(n)
def rec(n):
    if n == 0:
        return 0
    if n % 50 == 0:
        for v in gen(n - 1):
            return v + 1
    return rec(n - 1) + 1
""", "rec(d)"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_stack_space_guard(name):
    setup, call = CASES[name]
    source = setup + f"""
def run(d):
    return {call}
WATCH = ["run"] + [n for n in ("rec", "viaattr") if n in globals()]
for _c in [v for v in list(globals().values()) if type(v) is type]:
    for _m, _f in list(vars(_c).items()):
        _f = _f.fget if isinstance(_f, property) else _f
        if hasattr(_f, "__code__"):
            globals()[_c.__name__ + "_" + _m] = _f
            WATCH.append(_c.__name__ + "_" + _m)
def drive(record):
    for d in list(range(1, 400, 3)) + [5, 450]:
        run(d)
        if d % 40 == 1:
            record()
    record()
"""
    assert_same_sites(source)


def test_methods_and_property_sites():
    """The recursive sites inside methods and property getters, watched directly."""
    source = """
class K:
    def walk(self, n):
        return 0 if n == 0 else self.walk(n - 1) + 1
    @property
    def p(self):
        return self
    def down(self, n):
        return 0 if n == 0 else self.p.down(n - 1) + 1
class Node:
    def __init__(self, n):
        self.child = Node(n - 1) if n else None
walk = K.walk
down = K.down
init = Node.__init__
WATCH = ["walk", "down", "init"]
def drive(record):
    for d in range(60, 400, 7):
        K().walk(d)
        K().down(d)
        Node(d)
        if d % 49 == 4:
            record()
    record()
"""
    assert_same_sites(source)


def test_deep_recursion_over_many_chunks():
    source = """
import sys
sys.setrecursionlimit(4000)
def rec(n):
    if n == 0:
        return 0
    return rec(n - 1) + 1
WATCH = ["rec"]
def drive(record):
    rec(5)
    record()
    rec(1500)
    record()
    rec(3000)
    record()
"""
    assert_same_sites(source)
