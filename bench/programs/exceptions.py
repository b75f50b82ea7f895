"""Exception-heavy workload (ours): raise/except in many shapes.

Written like a pyperformance benchmark: import it and call
`bench_exceptions(n)`; it returns a checksum that depends on every path taken.
"""


class AppError(Exception):
    def __init__(self, code, detail=""):
        super().__init__(code, detail)
        self.code = code


class NotFound(AppError):
    pass


class Invalid(AppError):
    pass


class Suppress:
    """A context manager that swallows LookupError and counts it."""

    def __init__(self):
        self.swallowed = 0

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        if kind is not None and issubclass(kind, LookupError):
            self.swallowed += 1
            return True
        return False


def lookup(table, key):
    try:
        return table[key]
    except KeyError:
        raise NotFound(key, "missing") from None


def parse(text):
    try:
        return int(text)
    except ValueError as exc:
        raise Invalid(len(text), str(exc)[:8]) from exc


def checked(i, table):
    # Several raise sites, with finally clauses that always run.
    steps = 0
    try:
        try:
            if i % 3 == 0:
                return lookup(table, i)
            if i % 3 == 1:
                return parse("x%d" % i if i % 2 else str(i))
            return table[(i % 7) * 7]
        finally:
            steps += 1
    except NotFound as exc:
        return -exc.code - steps
    except Invalid as exc:
        return exc.code * 10 + (exc.__cause__ is not None)
    except AppError:
        return -1


def deep(n):
    if n == 0:
        raise IndexError("bottom")
    try:
        return deep(n - 1)
    finally:
        pass


def unwinding(i):
    try:
        deep(i % 8)
    except IndexError as exc:
        return len(exc.args[0]) + i % 8
    return 0


def reraising(i):
    try:
        try:
            raise TypeError(i)
        except TypeError:
            if i & 1:
                raise
            raise ValueError(i)
    except TypeError as exc:
        return exc.args[0]
    except ValueError as exc:
        return -exc.args[0] + (exc.__context__ is not None)


def iterate(i):
    # StopIteration through a hand-written iterator, caught explicitly.
    it = iter(range(i % 5))
    total = 0
    while True:
        try:
            total += next(it)
        except StopIteration:
            break
    return total


def suppressed(i, sup):
    with sup:
        return {}[i]
    return i


def grouped(i):
    try:
        raise ExceptionGroup("g", [ValueError(i), KeyError(i), ValueError(-i)])
    except* ValueError as eg:
        n = len(eg.exceptions)
    except* KeyError:
        pass
    return n


def bench_exceptions(n):
    table = {k: k * 2 for k in range(0, 300, 7)}
    sup = Suppress()
    total = 0
    for i in range(n):
        total += checked(i, table)
        total += unwinding(i)
        total += reraising(i)
        total += iterate(i)
        total += suppressed(i, sup)
        if i % 16 == 0:
            total += grouped(i)
    return total, sup.swallowed
