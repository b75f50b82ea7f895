"""Nested-closure workload (ours): cells, nonlocal, closures made in loops.

Written like a pyperformance benchmark: import it and call `bench_closures(n)`;
it returns a checksum.
"""


def counter(start):
    count = start

    def bump(step=1):
        nonlocal count
        count += step
        return count

    def read():
        return count

    return bump, read


def compose(*fns):
    def composed(x):
        for f in fns:
            x = f(x)
        return x
    return composed


def adder(k):
    return lambda x: x + k


def scaler(k):
    def scale(x):
        return x * k % 1000003
    return scale


def memoize(fn):
    cache = {}

    def wrapper(x):
        try:
            return cache[x]
        except KeyError:
            value = cache[x] = fn(x)
            return value
    wrapper.cache = cache
    return wrapper


def three_levels(a):
    def middle(b):
        def inner(c):
            nonlocal a, b
            a += 1
            b += c
            return a * b + c
        return inner
    return middle


def accumulate(n):
    # Closures created inside a loop, each capturing its own cell.
    fns = []
    for i in range(n):
        def f(x, i=i):
            return x + i
        fns.append(f)
    cells = [(lambda j: lambda: j * j)(j) for j in range(n)]
    return sum(f(1) for f in fns) + sum(c() for c in cells)


def bench_closures(n):
    bump, read = counter(0)
    pipeline = compose(adder(3), scaler(7), adder(-1), scaler(13))
    square = memoize(lambda x: x * x)
    total = 0
    for i in range(n):
        bump()
        if i % 5 == 0:
            bump(2)
        total += pipeline(i)
        total += square(i % 97)
        inner = three_levels(i)(i % 11)
        total += inner(1) + inner(2)
        if i % 50 == 0:
            total += accumulate(20)
    total += read()
    return total % 1000000007, len(square.cache)
