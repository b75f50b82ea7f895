"""FOR_ITER: LIST, TUPLE, RANGE, GEN (frames run inline), and the iterators that fail."""

import pytest

from tests.interp.specialize.harness import assert_same_sites

CASES = {
    "list": "[1, 2, 3]",
    "tuple": "(1, 2, 3)",
    "range": "range(3)",
    "generator": "gen(3)",
    "dict_fails": "{1: 1, 2: 2}",
    "dict_values_fails": "{1: 1}.values()",
    "dict_items_fails": "{1: 1}.items()",
    "enumerate_fails": "enumerate('ab')",
    "zip_fails": "zip([1], [2])",
    "map_fails": "map(abs, [1, 2])",
    "str_fails": "'abc'",
    "set_fails": "{1, 2}",
    "big_range_fails": "range(2**64, 2**64 + 2)",
    "reversed_fails": "reversed([1, 2])",
    "iterator_class_fails": "Countdown(3)",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_for_iter_members_and_failures(name):
    source = f"""
def gen(n):
    for i in range(n):
        yield i
class Countdown:
    def __init__(self, n):
        self.n = n
    def __iter__(self):
        return self
    def __next__(self):
        if self.n <= 0:
            raise StopIteration
        self.n -= 1
        return self.n
def make():
    return {CASES[name]}
def loop(it):
    out = []
    for x in it:
        out.append(x)
    return out
WATCH = ["loop", "gen"]
def drive(record):
    for i in range(70):
        assert loop(make()) == list(make())
        if i in (0, 1, 2, 4, 5, 11, 12, 26, 27, 60, 69):
            record()
"""
    assert_same_sites(source)


def test_list_site_fed_other_iterators():
    assert_same_sites("""
def loop(it):
    n = 0
    for x in it:
        n += 1
    return n
WATCH = ["loop"]
def drive(record):
    for i in range(3):
        loop([1])
    record()
    for i in range(30):
        assert loop((1, 2)) == 2
        record()
    for i in range(30):
        assert loop({1: 2}) == 1
        record()
""")


def test_generator_semantics_inline():
    assert_same_sites("""
log = []
def gen(n):
    try:
        for i in range(n):
            yield i
    finally:
        log.append(('closed', n))
    return 'ignored'
def first_two(n):
    out = []
    g = gen(n)
    for x in g:
        out.append(x)
        if len(out) == 2:
            break
    return out, g
def abandon(n):
    for x in gen(n):
        if x == 1:
            break
    return log[-1]
def rec(n):
    if n:
        for x in rec(n - 1):
            yield x
        yield n
def failing():
    yield 1
    raise KeyError('boom')
def catch():
    try:
        for x in failing():
            pass
    except KeyError as e:
        return repr(e)
def exhausted():
    g = gen(2)
    for x in g:
        pass
    n = 0
    for x in g:          # a finished generator: FOR_ITER_GEN misses
        n += 1
    return n
WATCH = ["first_two", "abandon", "rec", "catch", "exhausted", "gen"]
def drive(record):
    for i in range(60):
        out, g = first_two(5)
        assert out == [0, 1]
        # the generator stays resumable natively, and closable
        assert next(g) == 2
        assert g.send(None) == 3
        g.close()
        assert log[-1] == ('closed', 5)
        assert abandon(4) == ('closed', 4)    # dropped at the break: finalized
        assert list(rec(6)) == [1, 2, 3, 4, 5, 6]
        assert catch() == "KeyError('boom')"
        assert exhausted() == 0
        if i in (0, 1, 2, 5, 30, 59):
            record()
""")


def test_generator_exception_state_and_reentry():
    assert_same_sites("""
import sys
def gen():
    try:
        raise ValueError('inside')
    except ValueError:
        yield sys.exception()
        yield sys.exception()
def outer():
    seen = []
    try:
        raise KeyError('outer')
    except KeyError:
        for e in gen():
            seen.append((type(e).__name__, type(sys.exception()).__name__))
    return seen
def selfish():
    g = None
    def body():
        yield 1
        try:
            for x in g:
                pass
        except ValueError as e:
            yield str(e)
    g = body()
    return list(g)
WATCH = ["outer", "gen"]
def drive(record):
    for i in range(10):
        assert outer() == [('ValueError', 'KeyError'), ('ValueError', 'KeyError')]
        assert selfish() == [1, 'generator already executing']
        record()
""")
