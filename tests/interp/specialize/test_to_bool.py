"""TO_BOOL: each member, each failure, and the ALWAYS_TRUE class-version guard."""

import pytest

from tests.interp.specialize.harness import assert_same_sites

CASES = {
    "bool": "True",
    "int": "7",
    "int_zero": "0",
    "list": "[1]",
    "none": "None",
    "str": "'x'",
    "always_true": "Plain()",
    "float_fails": "1.5",
    "dict_fails": "{}",
    "tuple_fails": "()",
    "set_fails": "{1}",
    "bytes_fails": "b'x'",
    "has_bool_fails": "WithBool()",
    "has_len_fails": "WithLen()",
    "int_subclass_fails": "IntSub(3)",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_to_bool_members_and_failures(name):
    source = f"""
class Plain:
    pass
class WithBool:
    def __bool__(self):
        return False
class WithLen:
    def __len__(self):
        return 0
class IntSub(int):
    pass
value = {CASES[name]}
def test(x):
    if x:
        return 1
    return 0
def negate(x):
    return not x
WATCH = ["test", "negate"]
def drive(record):
    expected = 1 if value else 0
    for i in range(70):
        assert test(value) == expected
        assert negate(value) == (not expected)
        if i in (0, 1, 2, 4, 5, 11, 12, 26, 27, 60, 69):
            record()
"""
    assert_same_sites(source)


def test_always_true_guard_follows_class_changes():
    assert_same_sites("""
class A:
    pass
class B:
    pass
def test(x):
    return 1 if x else 0
WATCH = ["test"]
def drive(record):
    a = A()
    for i in range(5):
        assert test(a) == 1
    record()
    A.__bool__ = lambda self: False     # new class version: misses
    for i in range(60):
        assert test(a) == 0
        record()
    for i in range(60):
        assert test(B()) == 1
        record()
""")


def test_polymorphic_to_bool_respecializes_at_53rd_miss():
    assert_same_sites("""
def test(x):
    return 1 if x else 0
WATCH = ["test"]
def drive(record):
    for i in range(3):
        test(1)
    record()
    for i in range(60):
        test('')
        record()
    for i in range(60):
        test(1.5)
        record()
""")
