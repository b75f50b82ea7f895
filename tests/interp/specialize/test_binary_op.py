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
