# fuzz: writer program, seed 31: stdout difference
# (run with PYTHONHASHSEED=0 natively and interpreted to compare by hand)
# output line 42
# native:      ! UnboundLocalError cannot access local variable 'k' where it is not associated with a value [(326, '<module>'), (108, 'drive'), (159, 'co1')] None None
# interpreted: ! UnboundLocalError cannot access local variable 'k' where it is not associated with a value [(326, '<module>'), (108, 'drive'), (159, 'co1')] ValueError None
import traceback as _fz_tb


def _fz_repr(v, d=0):
    if d > 4:
        return '...'
    t = type(v)
    try:
        if t is list or t is tuple:
            return t.__name__ + '[' + ', '.join([_fz_repr(x, d + 1) for x in v]) + ']'
        if t is set or t is frozenset:
            return t.__name__ + '{' + ', '.join(sorted([_fz_repr(x, d + 1) for x in v])) + '}'
        if t is dict:
            return '{' + ', '.join([_fz_repr(k, d + 1) + ': ' + _fz_repr(x, d + 1)
                                    for k, x in v.items()]) + '}'
        r = repr(v)
    except BaseException as e:
        r = '<repr failed: ' + type(e).__name__ + '>'
    return r[:2000]


def _fz_show(v):
    print('=', _fz_repr(v))


def _fz_report(e):
    tb = [(f.lineno, f.name) for f in _fz_tb.extract_tb(e.__traceback__)
          if f.filename == '<fuzz>']
    try:
        msg = str(e)[:500]
    except BaseException as e2:
        msg = '<str failed: ' + type(e2).__name__ + '>'
    ctx = type(e.__context__).__name__ if e.__context__ is not None else None
    cause = type(e.__cause__).__name__ if e.__cause__ is not None else None
    print('!', type(e).__name__, msg, tb, ctx, cause)
    subs = getattr(e, 'exceptions', None)
    if type(subs) is tuple:
        print('!!', _fz_repr([type(x).__name__ + ': ' + str(x) for x in subs]))
import contextlib as _fz_contextlib


class E0(Exception):
    pass


class E1(E0):
    def __init__(self, *args):
        super().__init__(*args)
        self.extra = len(args)


class CM:
    def __init__(self, tag, swallow=False):
        self.tag = tag
        self.swallow = swallow

    def __enter__(self):
        print('enter', self.tag)
        return self.tag

    def __exit__(self, t, v, tb):
        print('exit', self.tag, t.__name__ if t else None, v)
        return self.swallow


class ACM:
    def __init__(self, tag):
        self.tag = tag

    async def __aenter__(self):
        print('aenter', self.tag)
        await Step(self.tag)
        return self.tag

    async def __aexit__(self, t, v, tb):
        print('aexit', self.tag, t.__name__ if t else None)
        return False


class Step:
    """An awaitable that yields once to the driver."""

    def __init__(self, value):
        self.value = value

    def __await__(self):
        got = yield self.value
        return got


@_fz_contextlib.contextmanager
def gcm(tag):
    print('gcm in', tag)
    try:
        yield tag * 2
    except E0 as e:
        print('gcm caught', repr(e))
    finally:
        print('gcm out', tag)


def drive(coro, limit=50):
    """Run a coroutine by hand, sending back each value it yields."""
    sent = None
    trail = []
    for _ in range(limit):
        try:
            got = coro.send(sent)
        except StopIteration as e:
            trail.append(('done', e.value))
            return trail
        trail.append(got)
        sent = len(trail)
    coro.close()
    return trail


def arange(n):
    async def agen():
        for i in range(n):
            await Step(i)
            yield i * 10
    return agen()


def rec(n):
    return 0 if n <= 0 else n + rec(n - 1)


i0, i1, i2 = 3, -2, 7
s0, s1 = 'abc', 'Xy'
l0, l1 = [3, 1, 2], [5, -1]
d0 = {'a': 1, 'b': 2}
try:

    def _fz_trace(fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*a, **k):
            print('call', fn.__name__, a, k)
            return fn(*a, **k)
        return wrapper
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:

    async def co1(k):
        try:
            del k
            print(str(-2))
        except* ZeroDivisionError as e2:
            print('caught', type(e2).__name__, e2.exceptions)
            k = sum((2 ** (k % 4) for v3 in [*l0, k]))
        except* KeyError as e4:
            print('caught', type(e4).__name__, e4.exceptions)
            n5 = sum((k for v6 in l0))
        finally:
            print('finally', k)
        return 0
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    print(i0 < i0 != i1)
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    print('%s:%d' % (s0 + s0, sum((v7 for v7 in l0))), 12 != len([-3, i1, i0]) < i1)
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:

    async def co8(k):
        s9 = 'a'
        assert d0.get(s9, k) in list(range(k % 6)), ','.join([str(v10) for v10 in [k, k]])
        return sum((6 for v11 in l0))
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    for i12 in range(11 % 5):
        for i15 in range(min(list(filter(lambda v16: v16 % 2, l1)), default=3) % 5):
            print('b'[i12:i2] + s0)
            if 10 in l0:
                continue
        n17 = i12
        match (int(str(rec(10 % 20)) + '7'), s0):
            case [x, *rest]:
                print('case', '[x, *rest]', x, rest)
            case _:
                print('no match')
        n19, *l20 = [i12] + [i12]
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    assert bool(l0), 'b'.upper()
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    print(list(range(+i2 % 6)))
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:

    async def co21(k):
        raise E1(s0)
        c22 = 0
        while c22 < 4:
            c22 += 1
            if k > c22 or c22 != k:
                break
        print({str(v23): k if 12 <= 7 else v23 for v23 in [2, k, 12][k:-1:2]})
        del l0[k]
        return k
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    try:
        if bool([*l1, 2]):
            print(min([] + [i1, i1], default=i1))
            print([11, i2])
            try:
                print(d0)
                print(bool(list(reversed(l1))))
            except (ZeroDivisionError, KeyError) as e25:
                print('caught', type(e25).__name__, e25.args)
                n26 = int(str(i0 if i1 <= i2 else 5) + '7')
            except (E0, E0) as e27:
                print('caught', type(e27).__name__, e27.args)
                print(i0)
            finally:
                print('finally', 11)
        else:
            l0[1:2] = l1
            n28 = i1
            print('x y' + s0)
        with CM('x y', True):
            print(s1.startswith(s1))
            print(all((i1 > i1 and i1 != i1 for v29 in [*l1, i1])))
            try:
                print(l0)
                print({**{**{s0: -2}, s1: i2}, s1.upper(): sum((i0 for v30 in [i2, i1]))})
                print({})
            except ZeroDivisionError as e31:
                print('caught', type(e31).__name__, e31.args)
                raise E0('wrapped') from e31
            except IndexError as e32:
                print('caught', type(e32).__name__, e32.args)
                print('Q')
            except Exception as ex:
                print('bare')
            finally:
                print('finally', i2)
            print({**{str(v33): i0 for v33 in l0}, ','.join([str(i0) for v34 in l1]): 7 - 9})
    except KeyError as e35:
        print('caught', type(e35).__name__, e35.args)
        _fz_show(d0.update({**{**{s0: 7, s0: i1}, s1: i2}, '%s:%d' % (s0, i2): i0}))
    except E1 as e36:
        print('caught', type(e36).__name__, e36.args)
        match None:
            case str() as s:
                print('case', 'str() as s', s)
            case 0 | 1 | 2:
                print('case', '0 | 1 | 2', None)
            case _:
                print('no match')
    except Exception as ex:
        print('bare')
    finally:
        print('finally', i0)
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    print(i2 < 8)
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    print({**{str(v38): 8 for v38 in l1}, 'a,b': 8 ** (3 % 4)})
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:

    def g39(k):
        for j in range(k):
            _fz_show((yield (j * 10)))
        with CM(s0, True):
            print(k in l0 + l0, (w40 := k))
        n41 = 9

        def inner42(q):
            nonlocal n41
            n41 += q
            return n41 * 2
        print(inner42(k), inner42(1), n41)
        _fz_show((yield from range(2)))
        return k
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    with CM(s0, False) as s43, gcm(i2) as s43x:
        _fz_show(l1.extend(g39(3)))
        assert -3 >= i2, 'a'.title()
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    z45 = i2 % 10
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:

    def z46():
        global z45
        z45 += 1

        def inner():
            global z45
            z45 *= 2
            return z45
        return inner()
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    print(z46(), z45)
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    print(drive(co1(abs(i0))))
except BaseException as _fz_e:
    _fz_report(_fz_e)
