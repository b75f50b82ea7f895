"""SEND: SEND_GEN for `yield from` a generator and `await` a coroutine; failures."""

from tests.interp.specialize.harness import assert_same_sites


def test_yield_from_generator_and_failures():
    assert_same_sites("""
def inner(n):
    got = []
    for i in range(n):
        got.append((yield i))
    return got
def outer(src):
    result = yield from src
    return result
def drive_outer(src, sending=True):
    g = outer(src)
    out = [next(g)]
    try:
        while True:
            out.append(g.send(len(out)) if sending else next(g))
    except StopIteration as stop:
        return out, stop.value
WATCH = ["outer", "inner"]
def drive(record):
    for i in range(60):
        assert drive_outer(inner(3)) == ([0, 1, 2], [1, 2, 3])
        if i in (0, 1, 2, 5, 30, 59):
            record()
    for i in range(60):
        out, value = drive_outer(iter([7, 8]), False)
        assert out == [7, 8] and value is None
        if i in (0, 1, 2, 5, 30, 52, 53, 59):
            record()
""")


def test_await_coroutines():
    assert_same_sites("""
class Tick:
    def __await__(self):
        yield 'tick'
def tick():
    return Tick()
async def leaf(x):
    await tick()
    return x + 1
async def branch(n):
    total = 0
    for i in range(n):
        total += await leaf(i)
    return total
def run(coro):
    ticks = 0
    try:
        while True:
            assert coro.send(None) == 'tick'
            ticks += 1
    except StopIteration as stop:
        return ticks, stop.value
WATCH = ["branch", "leaf"]
def drive(record):
    for i in range(30):
        assert run(branch(4)) == (4, 10)
        if i in (0, 1, 2, 5, 29):
            record()
""")


def test_throw_and_close_reach_an_inline_delegate():
    assert_same_sites("""
log = []
def inner():
    try:
        yield 1
        yield 2
    except KeyError:
        log.append('caught')
        yield 'recovered'
    finally:
        log.append('inner closed')
def outer():
    yield from inner()
WATCH = ["outer", "inner"]
def drive(record):
    for i in range(20):
        g = outer()
        assert next(g) == 1
        assert next(g) == 2
        assert g.throw(KeyError('k')) == 'recovered'
        g.close()
        assert log[-2:] == ['caught', 'inner closed'], log[-2:]
        g = outer()
        next(g)
        del g
        assert log[-1] == 'inner closed'
        record()
""")


def test_await_types_coroutine_generator():
    assert_same_sites("""
import types
@types.coroutine
def tick():
    yield 'tick'
async def leaf(x):
    await tick()
    return x + 1
async def branch(n):
    total = 0
    for i in range(n):
        total += await leaf(i)
    return total
def run(coro):
    ticks = 0
    try:
        while True:
            assert coro.send(None) == 'tick'
            ticks += 1
    except StopIteration as stop:
        return ticks, stop.value
WATCH = ["branch", "leaf"]
def drive(record):
    for i in range(30):
        assert run(branch(4)) == (4, 10)
        if i in (0, 1, 2, 5, 29):
            record()
""")
