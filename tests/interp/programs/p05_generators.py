# generators, yield from, send/throw/close, coroutines, async generators, async for/with
import asyncio
import inspect


def countdown(n):
    while n:
        received = yield n
        if received:
            n = received
        n -= 1
    return "done"


g = countdown(5)
print(next(g), g.send(3), next(g), list(g))


def delegator():
    result = yield from countdown(2)
    print("delegated result", result)
    yield from [10, 20]
    return "outer"


print(list(delegator()))
d = delegator()
print(next(d), d.send(None))


def catcher():
    while True:
        try:
            yield
        except ValueError as exc:
            print("caught in gen", exc)
            yield "recovered"


c = catcher()
next(c)
print(c.throw(ValueError("boom")))
c.close()
print(inspect.isgenerator(c), inspect.isgeneratorfunction(catcher), c.__name__, c.__qualname__)


def gen_return_value():
    yield 1
    return 99


try:
    it = gen_return_value()
    next(it)
    next(it)
except StopIteration as stop:
    print("stop value", stop.value)


def stop_inside():
    yield 1
    raise StopIteration("bad")


try:
    list(stop_inside())
except RuntimeError as exc:
    print("RuntimeError:", exc, type(exc.__cause__).__name__)

squares = (x * x for x in range(5))
print(sum(squares), list(squares))


def tree(n):
    if n:
        yield from tree(n - 1)
        yield n
        yield from tree(n - 1)


print(list(tree(3)))


async def add(a, b):
    await asyncio.sleep(0)
    return a + b


async def agen(n):
    for i in range(n):
        await asyncio.sleep(0)
        yield i


class AsyncCM:
    async def __aenter__(self):
        print("aenter")
        return "resource"

    async def __aexit__(self, *exc):
        print("aexit")
        return False


class AsyncIter:
    def __init__(self):
        self.i = 0

    def __aiter__(self):
        return self

    async def __anext__(self):
        self.i += 1
        if self.i > 2:
            raise StopAsyncIteration
        return self.i


async def main():
    total = await add(1, 2)
    values = [v async for v in agen(3)]
    async with AsyncCM() as res:
        print("inside", res)
    async for v in AsyncIter():
        print("aiter", v)
    results = await asyncio.gather(add(1, 1), add(2, 2))
    gen = agen(5)
    first = await gen.__anext__()
    await gen.aclose()
    try:
        await asyncio.wait_for(asyncio.sleep(10), 0.01)
    except TimeoutError:
        print("timed out")
    return total, values, results, first


print(asyncio.run(main()))
print(inspect.iscoroutinefunction(add), inspect.isasyncgenfunction(agen))
coro = add(1, 2)
print(type(coro).__name__, inspect.iscoroutine(coro))
coro.close()


def send_first():
    x = yield
    print("got", x)
    yield x * 2


s = send_first()
next(s)
print(s.send(21))
try:
    s2 = send_first()
    s2.send(1)
except TypeError as exc:
    print("TypeError:", exc)


def closing_value():
    try:
        yield 1
    except GeneratorExit:
        return "closed value"


cv = closing_value()
next(cv)
print(cv.close())
