"""BINARY_OP: each member, each failure, the published behaviours."""

import pytest

from tests.interp.specialize.harness import assert_same_sites

CASES = {
    "add_int": "a, b = 1, 2",
    "sub_float": "a, b = 1.5, 0.25",
    "mul_int_float_mixed": "a, b = 3, 1.5",
    "str_concat": "a, b = 'x', 'y'",
    "list_concat": "a, b = [1], [2]",
    "power": "a, b = 2, 10",
    "bool": "a, b = True, False",
    "big_int": "a, b = 2**100, 3",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_binary_op_members_and_failures(name):
    source = f"""
{CASES[name]}
def add(x, y):
    return x + y
def sub(x, y):
    return x - y
def mul(x, y):
    return x * y
def pw(x, y):
    return x ** y
WATCH = ["add", "sub", "mul", "pw"]
def drive(record):
    for i in range(70):
        for fn in (add, sub, mul, pw):
            try:
                fn(a, b)
            except TypeError:
                pass
        if i in (0, 1, 2, 4, 5, 11, 12, 26, 27, 60, 69):
            record()
"""
    assert_same_sites(source)


def test_add_int_becomes_add_float_at_53rd_float_execution():
    assert_same_sites("""
def add(x, y):
    return x + y
WATCH = ["add"]
def drive(record):
    for i in range(10):
        add(1, 2)
    record()
    for i in range(60):
        add(1.5, 2.5)
        record()
""")


def test_int_plus_float_ends_as_binary_op_backing_off():
    assert_same_sites("""
def add(x, y):
    return x + y
WATCH = ["add"]
def drive(record):
    for i in range(5):
        add(1, 2)
    for i in range(300):
        add(1, 2.5)
        record()
""")


def test_inplace_add_unicode():
    assert_same_sites("""
def build(n):
    s = ''
    for i in range(n):
        s += 'ab'
    t = 'x'
    u = t + 'y'
    return s, u
WATCH = ["build"]
def drive(record):
    for n in (1, 2, 5):
        build(n)
        record()
""")


# A loop whose body is one fused run calls a function that runs the same code
# again, re-specializing a site of that loop: the outer loop must then execute
# the site in its new form (a miss for ints), not the form its run was made for.
# The nested activation is called in place, or called back by native code (map).
# A call or a property run through the table (CALL_PY_GENERAL has no in-place form,
# LOAD_ATTR_PROPERTY pushes a frame) must go back to the loop the same way.
NESTED_CALLS = {
    "in_place": "t = t + rec(d)",
    "through_native_code": "t = t + len(list(map(rec, (d,))))",
    "through_the_table": "t = t + rec_general(d)",
    "through_a_property": "t = t + Prop(d).p",
}


@pytest.mark.parametrize("name", sorted(NESTED_CALLS))
def test_site_changed_by_a_nested_activation_of_a_running_loop(name):
    assert_same_sites(f"""
FLOATS = [0.5] * 60
def rec(d):
    if d:
        site(FLOATS, 0)
    return 0
def rec_general(d, e=0):
    return rec(d)
class Prop:
    def __init__(self, d):
        self.d = d
    @property
    def p(self):
        return rec(self.d)
def site(xs, d):
    t = 0
    for x in xs:
        t = t + x
        {NESTED_CALLS[name]}
    return t
WATCH = ["site"]
def drive(record):
    for _ in range(3):
        site(list(range(40)), 0)
    record()
    site(list(range(70)), 1)
    record()
    site(list(range(10)), 0)
    record()
""")


# The same, where the nested activation is run by an operation a fused run does in
# place (not through the table): a generic operator, comparison, truth test,
# slice or attribute running the program's own method, a dict lookup
# running a key's __hash__, a FOR_ITER stepping a Python iterator (each entry: what
# the loop iterates over, the statement before `t = t + x`).  The site after it
# (`t + x`, re-specialized for floats by the nested activation) must run in its new
# form in the same turn.  (The nested activation is run once, at the 5th turn: the
# operation's site has then backed off, so it runs in place; and the state is
# recorded before the outer loop's misses re-specialize `t + x`: a count off would
# be absorbed.)
NESTED_IN_PLACE = {
    "binary_op": ("xs", "u = w + d"),
    "negative": ("xs", "u = -w"),
    "compare_op": ("xs", "u = w == d"),
    "to_bool": ("xs", "u = not w"),
    "contains_op": ("xs", "u = d in w"),
    "slice": ("xs", "u = w[d:]"),
    "dict_hash": ("xs", "u = table[key]"),
    "store_subscr": ("xs", "sub[d] = d"),
    "getattr": ("xs", "u = w.missing"),
    "setattr": ("xs", "w.field = d"),
    "for_iter": ("Steps(w, xs)", "u = x"),
}


@pytest.mark.parametrize("name", sorted(NESTED_IN_PLACE))
def test_site_changed_by_a_nested_activation_run_in_place(name):
    assert_same_sites(f"""
FLOATS = [0.5] * 60
ARMED = [0]
def rec(d):
    if d and ARMED[0]:
        ARMED[0] -= 1
        if not ARMED[0]:
            site(FLOATS, 0)
    return 0
class W:
    def __init__(self, d):
        self.__dict__["d"] = d
    def __add__(self, other):
        return rec(self.d)
    def __neg__(self):
        return rec(self.d)
    def __eq__(self, other):
        return rec(self.d)
    def __bool__(self):
        return bool(rec(self.d))
    def __contains__(self, item):
        return bool(rec(self.d))
    def __getitem__(self, index):
        return rec(self.d)
    def __getattr__(self, name):
        return rec(self.d)
    def __setattr__(self, name, value):
        rec(self.d)
    __hash__ = None
class Steps:
    def __init__(self, w, xs):
        self.w = w
        self.it = iter(xs)
    def __iter__(self):
        return self
    def __next__(self):
        rec(self.w.d)
        return next(self.it)
class Key:
    def __init__(self):
        self.d = 0
    def __hash__(self):
        return rec(self.d)
class Sub(dict):
    def __setitem__(self, index, value):
        rec(index)
def site(xs, d):
    t = 0
    w = W(d)
    key = Key()
    table = {{key: 0}}
    key.d = d
    sub = Sub()
    for x in {NESTED_IN_PLACE[name][0]}:
        {NESTED_IN_PLACE[name][1]}
        t = t + x
    return t
WATCH = ["site"]
def drive(record):
    for _ in range(3):
        site(list(range(40)), 0)
    record()
    ARMED[0] = 5
    site(list(range(10)), 1)
    record()
    site(list(range(10)), 0)
    record()
""")
