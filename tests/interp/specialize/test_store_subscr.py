"""STORE_SUBSCR: LIST_INT (index < len at specialization time), DICT, failures."""

import pytest

from tests.interp.specialize.harness import assert_same_sites

CASES = {
    "list_int": "[0, 0, 0], 1",
    "dict": "{}, 'k'",
    "list_negative_fails": "[0, 0, 0], -1",
    "list_slice_fails": "[0, 0, 0], slice(0, 1)",
    "bytearray_fails": "bytearray(3), 1",
    "dict_subclass_fails": "DictSub(), 'k'",
    "user_setitem_fails": "Store(), 1",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_store_subscr_members_and_failures(name):
    source = f"""
class DictSub(dict):
    pass
class Store:
    def __setitem__(self, key, value):
        self.last = (key, value)
container, key = {CASES[name]}
def store(c, k, v):
    c[k] = v
WATCH = ["store"]
def drive(record):
    for i in range(70):
        value = [i] if type(key) is slice else i % 200
        store(container, key, value)
        if i in (0, 1, 2, 4, 5, 11, 12, 26, 27, 60, 69):
            record()
    assert isinstance(container, Store) or container[key] == value
"""
    assert_same_sites(source)


def test_list_index_must_be_in_range_at_specialization():
    assert_same_sites("""
def store(c, k, v):
    try:
        c[k] = v
    except IndexError:
        return False
    return True
WATCH = ["store"]
def drive(record):
    lst = []
    for i in range(30):
        assert store(lst, 0, i) is False
        record()
    lst = [0]
    for i in range(5):
        assert store(lst, 0, i) is True
        record()
    for i in range(60):
        assert store(lst, 1, i) is False
        record()
""")
