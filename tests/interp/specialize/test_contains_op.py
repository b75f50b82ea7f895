"""CONTAINS_OP: SET (set and frozenset), DICT, failures."""

import pytest

from tests.interp.specialize.harness import assert_same_sites

CASES = {
    "set": "{1, 2}",
    "frozenset": "frozenset({1, 2})",
    "dict": "{1: 'a'}",
    "list_fails": "[1, 2]",
    "tuple_fails": "(1, 2)",
    "str_fails": "'12'",
    "dict_subclass_fails": "DictSub({1: 2})",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_contains_op_members_and_failures(name):
    source = f"""
class DictSub(dict):
    pass
container = {CASES[name]}
key = '1' if isinstance(container, str) else 1
def has(x, c):
    return x in c
def lacks(x, c):
    return x not in c
WATCH = ["has", "lacks"]
def drive(record):
    for i in range(70):
        assert has(key, container) is True
        assert lacks(key, container) is False
        if i in (0, 1, 2, 4, 5, 11, 12, 26, 27, 60, 69):
            record()
"""
    assert_same_sites(source)


def test_set_site_fed_frozenset_and_dict():
    assert_same_sites("""
def has(x, c):
    return x in c
WATCH = ["has"]
def drive(record):
    for i in range(3):
        has(1, {1})
    record()
    for i in range(10):
        assert has(1, frozenset({1}))
        record()
    for i in range(60):
        assert not has(2, {1: 1})
        record()
""")
