# try/except/finally/else, chaining, except*, with, raise from, tracebacks of caught exceptions
import sys
import traceback


def risky(n):
    if n == 0:
        raise ValueError("zero")
    if n == 1:
        raise KeyError("one")
    return n


for n in range(3):
    try:
        risky(n)
    except ValueError as exc:
        print("value", exc)
    except (KeyError, TypeError) as exc:
        print("key", exc, type(exc).__name__)
    else:
        print("else", n)
    finally:
        print("finally", n)


def chained():
    try:
        {}["missing"]
    except KeyError as exc:
        raise RuntimeError("wrapped") from exc


try:
    chained()
except RuntimeError as exc:
    print(repr(exc), repr(exc.__cause__), exc.__suppress_context__)


def implicit():
    try:
        1 / 0
    except ZeroDivisionError:
        raise TypeError("during handling")


try:
    implicit()
except TypeError as exc:
    print(repr(exc), repr(exc.__context__), exc.__cause__)
    print("".join(traceback.format_exception(exc)).replace(__file__, "FILE"))


def finally_return():
    try:
        return "try"
    finally:
        print("in finally")


print(finally_return())


def finally_override():
    for i in range(3):
        try:
            continue
        finally:
            if i == 1:
                return "from finally"


print(finally_override())

try:
    try:
        raise ValueError("inner")
    except ValueError:
        print("exc_info inside:", sys.exc_info()[0].__name__, sys.exception())
        raise
except ValueError as exc:
    print("re-raised", exc)
print("exc_info after:", sys.exc_info())


def eg():
    raise ExceptionGroup("group", [ValueError(1), TypeError(2), ValueError(3), KeyError(4)])


try:
    eg()
except* ValueError as g:
    print("values", g.exceptions)
except* TypeError as g:
    print("types", g.exceptions)
except* KeyError:
    print("key error handled")

try:
    try:
        eg()
    except* ValueError:
        raise RuntimeError("new")
except BaseException as exc:
    print(type(exc).__name__, [type(e).__name__ for e in getattr(exc, "exceptions", [])])

try:
    try:
        raise TypeError("naked")
    except* TypeError as g:
        print("naked wrapped", repr(g))
        raise
except BaseException as exc:
    print("reraised", repr(exc))


class Suppress:
    def __enter__(self):
        return self

    def __exit__(self, typ, val, tb):
        print("exit with", typ.__name__ if typ else None)
        return typ is KeyError


with Suppress():
    raise KeyError("suppressed")
print("after suppress")
try:
    with Suppress():
        raise ValueError("not suppressed")
except ValueError as exc:
    print("propagated", exc)


def gen_with_cleanup():
    try:
        yield 1
        yield 2
    finally:
        print("generator cleanup")


g = gen_with_cleanup()
print(next(g))
g.close()
assert_msg = None
try:
    assert 1 == 2, "math is broken"
except AssertionError as exc:
    assert_msg = str(exc)
print(assert_msg)
try:
    raise ValueError
except ValueError as exc:
    print(repr(exc), exc.args)
try:
    raise 42
except TypeError as exc:
    print(exc)
try:
    del undefined_name
except NameError as exc:
    print(exc)


def unbound():
    if False:
        local = 1
    return local


try:
    unbound()
except UnboundLocalError as exc:
    print(exc)
try:
    [].pop()
except IndexError as exc:
    print(exc)
print(sys.exception())
e = None
try:
    int("x")
except ValueError as e:
    pass
try:
    print(e)
except NameError as exc:
    print("cleared:", exc)


def nested_finally():
    log = []
    try:
        try:
            raise KeyError("k")
        finally:
            log.append("inner finally")
    except KeyError:
        log.append("caught")
    finally:
        log.append("outer finally")
    return log


print(nested_finally())
err = ValueError("notes")
err.add_note("a note")
try:
    raise err
except ValueError as exc:
    print(exc.__notes__)
