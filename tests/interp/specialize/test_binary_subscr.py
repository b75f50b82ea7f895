"""BINARY_SUBSCR: LIST_INT, TUPLE_INT, STR_INT (ASCII only), DICT, GETITEM, failures."""

import pytest

from tests.interp.specialize.harness import assert_same_sites

CASES = {
    "list_int": "[1, 2, 3], 1",
    "tuple_int": "(1, 2, 3), 2",
    "str_int": "'abc', 1",
    "dict": "{'k': 1}, 'k'",
    "getitem": "Seq(), 5",
    "list_negative_fails": "[1, 2, 3], -1",
    "list_big_fails": "list(range(3)), 2**40",
    "list_slice_fails": "[1, 2, 3], slice(1, 2)",
    "str_slice_fails": "'abc', slice(0, 2)",
    "bytes_fails": "b'abc', 1",
    "range_fails": "range(5), 1",
    "dict_subclass_fails": "DictSub(k=1), 'k'",
    "getitem_varargs_fails": "VarSeq(), 1",
    "getitem_wrong_args_fails": "DefaultSeq(), 1",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_binary_subscr_members_and_failures(name):
    source = f"""
class Seq:
    def __getitem__(self, i):
        return i * 2
class VarSeq:
    def __getitem__(self, *args):
        return args
class DefaultSeq:
    def __getitem__(self, i, extra=1):
        return i + extra
class DictSub(dict):
    pass
container, key = {CASES[name]}
def get(c, k):
    return c[k]
WATCH = ["get"]
def drive(record):
    for i in range(70):
        try:
            expected = container[key]
        except IndexError:
            expected = IndexError
        try:
            got = get(container, key)
        except IndexError:
            got = IndexError
        assert got == expected
        if i in (0, 1, 2, 4, 5, 11, 12, 26, 27, 60, 69):
            record()
"""
    assert_same_sites(source)


def test_str_int_deopts_on_non_ascii_and_out_of_range():
    assert_same_sites("""
def get(c, k):
    try:
        return c[k]
    except IndexError:
        return None
WATCH = ["get"]
def drive(record):
    for i in range(3):
        assert get('abc', 0) == 'a'
    record()
    for i in range(30):
        assert get('aé', 1) == 'é'
        record()
    for i in range(30):
        assert get('abc', 5) is None
        record()
""")


def test_getitem_is_cached_on_the_type_and_follows_changes():
    assert_same_sites("""
class A:
    def __getitem__(self, i):
        return ('A', i)
class B:
    def __getitem__(self, i):
        return ('B', i)
def get(c, k):
    return c[k]
def get_other(c, k):
    return c[k]
WATCH = ["get", "get_other"]
def drive(record):
    a, b = A(), B()
    for i in range(3):
        assert get(a, i) == ('A', i)
        assert get_other(b, i) == ('B', i)
    record()
    # B's __getitem__ was cached on B by get_other: get hits for B too
    for i in range(5):
        assert get(b, i) == ('B', i)
        record()
    A.__getitem__ = lambda self, i: ('new', i)     # clears A's cache: misses
    for i in range(60):
        assert get(a, i) == ('new', i)
        record()
    def getitem(self, i):
        return ('code', i)
    B.__getitem__.__code__ = getitem.__code__     # new function version: misses
    for i in range(60):
        assert get(b, i) == ('code', i)
        record()
""")


def test_getitem_exceptions_and_recursion():
    assert_same_sites("""
class Tree:
    def __init__(self, depth):
        self.depth = depth
    def __getitem__(self, i):
        if i < 0:
            raise KeyError(i)
        if self.depth == 0:
            return i
        return Tree(self.depth - 1)[i + 1]
def get(c, k):
    try:
        return c[k]
    except KeyError:
        return 'missing'
WATCH = ["get"]
def drive(record):
    for i in range(40):
        assert get(Tree(i % 5), 1) == 1 + i % 5
        assert get(Tree(2), -1) == 'missing'
        record()
""")
