# functions, closures, nonlocal, global, defaults, keyword-only, positional-only, decorators
import functools

counter = 0


def bump():
    global counter
    counter += 1
    return counter


def outer():
    value = 0

    def inc(step=1):
        nonlocal value
        value += step
        return value

    def get():
        return value
    return inc, get


inc, get = outer()
inc(); inc(5)
print(get(), bump(), bump(), counter)


def kinds(a, b=2, /, c=3, *args, d, e=5, **kw):
    return a, b, c, args, d, e, sorted(kw.items())


print(kinds(1, d=4))
print(kinds(1, 2, 3, 4, 5, d=6, e=7, f=8, g=9))
print(kinds(*[1, 2], **{"d": 1, "c": 10}))
for bad in [lambda: kinds(), lambda: kinds(1, d=1, c=2, **{"c": 3}), lambda: kinds(1, b=2, d=3),
            lambda: kinds(1, 2, 3, d=4, x=1, y=2, z=3) and kinds(1, d=1, d2=2, a=1)]:
    try:
        bad()
    except TypeError as exc:
        print("TypeError:", exc)


def simple(a, b):
    return a - b


for call in [lambda: simple(1), lambda: simple(1, 2, 3), lambda: simple(1, c=2), lambda: simple(1, a=2),
             lambda: simple(*5), lambda: simple(**[1])]:
    try:
        call()
    except TypeError as exc:
        print("TypeError:", exc)


def deco(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return ("wrapped", fn(*args, **kwargs))
    return wrapper


@deco
def greet(name: str, punct: str = "!") -> str:
    """Say hello."""
    return "hello " + name + punct


print(greet("bob"), greet.__name__, greet.__doc__, greet.__wrapped__.__annotations__)
import inspect
print(inspect.signature(kinds), inspect.signature(greet))


@functools.lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


print(fib(60), fib.cache_info().hits > 0)


def make_adders():
    return [lambda x, i=i: x + i for i in range(3)], [lambda x: x + i for i in range(3)]


early, late = make_adders()
print([f(10) for f in early], [f(10) for f in late])


def recurse(n):
    return 0 if n == 0 else 1 + recurse(n - 1)


print(recurse(500))
print(sorted([3, 1, 2], key=lambda v: -v), list(map(lambda v: v * 2, [1, 2])), functools.reduce(simple, [10, 1, 2]))
print(simple.__code__.co_varnames, simple.__defaults__, kinds.__kwdefaults__, greet.__qualname__)


def gen_closure():
    items = []

    def add(x):
        items.append(x)
        return len(items)
    return add, items


add, items = gen_closure()
add(1); add(2)
print(items)


def cell_arg(x):
    def inner():
        return x * 2
    x += 1
    return inner()


print(cell_arg(5))


def annotated(a: int, *, b: "str" = "x") -> None:
    pass


print(annotated.__annotations__)
partial = functools.partial(kinds, 1, d=0)
print(partial(2, 3, 4))


def star_only(*, key):
    return key


print(star_only(key=1))
try:
    star_only(1)
except TypeError as exc:
    print("TypeError:", exc)
try:
    star_only()
except TypeError as exc:
    print("TypeError:", exc)
