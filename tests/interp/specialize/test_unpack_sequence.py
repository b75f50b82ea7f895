"""UNPACK_SEQUENCE: TWO_TUPLE, TUPLE, LIST, failures (length mismatch, other types)."""

import pytest

from tests.interp.specialize.harness import assert_same_sites

CASES = {
    "two_tuple": "(1, 2)",
    "list": "[1, 2]",
    "range_fails": "range(2)",
    "iterator_fails": "iter([1, 2])",
    "str_fails": "'ab'",
    "tuple_subclass_fails": "TupleSub((1, 2))",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_unpack_two(name):
    source = f"""
class TupleSub(tuple):
    pass
def make():
    return {CASES[name]}
def unpack(seq):
    a, b = seq
    return a, b
WATCH = ["unpack"]
def drive(record):
    for i in range(70):
        assert list(unpack(make())) == list(make())
        if i in (0, 1, 2, 4, 5, 11, 12, 26, 27, 60, 69):
            record()
"""
    assert_same_sites(source)


def test_tuple_and_list_of_three_and_mismatches():
    assert_same_sites("""
def unpack3(seq):
    a, b, c = seq
    return a + b + c
WATCH = ["unpack3"]
def drive(record):
    for i in range(4):
        assert unpack3((1, 2, 3)) == 6
    record()
    for i in range(60):
        assert unpack3([1, 2, 4]) == 7
        record()
    for i in range(60):
        try:
            unpack3((1, 2))
        except ValueError as e:
            assert 'not enough values' in str(e)
        record()
    for i in range(20):
        assert unpack3([1, 1, 1]) == 3
        record()
""")


def test_length_mismatch_fails_at_specialization():
    assert_same_sites("""
def unpack(seq):
    try:
        a, b = seq
    except ValueError:
        return None
    return a
WATCH = ["unpack"]
def drive(record):
    for i in range(40):
        unpack((1, 2, 3) if i % 3 else [1, 2, 3])
        record()
""")
