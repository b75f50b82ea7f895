"""COMPARE_OP: FLOAT, INT (compact ints only), STR (== and != only), failures."""

import pytest

from tests.interp.specialize.harness import assert_same_sites

CASES = {
    "float": "1.5, 2.5",
    "int": "3, 4",
    "int_negative": "-5, 4",
    "int_edge": "2**30 - 1, -(2**30 - 1)",
    "big_int_fails": "2**30, 1",
    "big_negative_fails": "-(2**30), 1",
    "str": "'a', 'b'",
    "float_int_fails": "1.5, 2",
    "int_float_fails": "2, 1.5",
    "bool_fails": "True, False",
    "tuple_fails": "(1,), (2,)",
    "list_fails": "[1], [2]",
    "bytes_fails": "b'a', b'b'",
    "object_fails": "object(), object()",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_compare_op_members_and_failures(name):
    source = f"""
a, b = {CASES[name]}
def eq(x, y):
    return x == y
def lt(x, y):
    return x < y
def ne_branch(x, y):
    if x != y:
        return 1
    return 0
WATCH = ["eq", "lt", "ne_branch"]
def drive(record):
    for i in range(70):
        assert eq(a, b) == (a == b)
        try:
            assert lt(a, b) == (a < b)
        except TypeError:
            pass
        assert ne_branch(a, b) == (1 if a != b else 0)
        if i in (0, 1, 2, 4, 5, 11, 12, 26, 27, 60, 69):
            record()
"""
    assert_same_sites(source)


def test_compare_int_deopts_on_big_int_and_respecializes():
    assert_same_sites("""
def lt(x, y):
    return x < y
WATCH = ["lt"]
def drive(record):
    for i in range(3):
        assert lt(1, 2)
    record()
    for i in range(60):
        assert lt(2**40, 2**41)
        record()
    for i in range(60):
        assert not lt(2.5, 1.5)
        record()
""")
