# fuzz: codegen program, seed 3: stdout difference
# (run with PYTHONHASHSEED=0 natively and interpreted to compare by hand)
# output line 6
# native:      ! NameError name 'name_4' is not defined [(202, '<module>')] None None
# interpreted: ! NameError name 'name_4' is not defined [(202, '<module>')] KeyError None
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


def _fz_drive(a):
    """Run a generator, coroutine or async generator a few steps."""
    out = []
    if hasattr(a, 'asend'):
        a = a.__anext__()
    if hasattr(a, 'send') and hasattr(a, 'throw'):
        try:
            for _ in range(5):
                out.append(_fz_repr(a.send(None)))
        except StopIteration as e:
            out.append('stop ' + _fz_repr(e.value))
        except BaseException as e:
            out.append('raised ' + type(e).__name__ + ' ' + str(e)[:200])
        try:
            a.close()
        except BaseException as e:
            out.append('close raised ' + type(e).__name__)
        return out
    if type(a).__name__ == 'function':
        try:
            return _fz_repr(a())
        except BaseException as e:
            return 'raised ' + type(e).__name__ + ' ' + str(e)[:200]
    return _fz_repr(a)


def _fz_consume(*args, **kwargs):
    return [_fz_drive(a) for a in args] + [_fz_drive(a) for a in kwargs.values()]


class _fz_B:
    pass


class _fz_U:
    _fz_n = 0

    def __init__(self, *a, **k):
        pass

    def __repr__(self):
        return 'U'

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        return self

    def __call__(self, *a, **k):
        _fz_consume(*a, **k)
        return self

    def __bool__(self):
        _fz_U._fz_n += 1
        return _fz_U._fz_n % 3 != 0

    def __hash__(self):
        return 7

    def __iter__(self):
        return iter((1, 'a'))

    def __len__(self):
        return 2

    def __getitem__(self, k):
        return self

    def __setitem__(self, k, v):
        pass

    def __delitem__(self, k):
        pass

    def __contains__(self, k):
        return True

    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False

    async def __aenter__(self):
        return self

    async def __aexit__(self, *a):
        return False

    def __await__(self):
        return iter(())

    def __aiter__(self):
        return self

    async def __anext__(self):
        raise StopAsyncIteration

    def __index__(self):
        return 1

    def __float__(self):
        return 1.5

    def __format__(self, spec):
        return 'U' + spec

    def __mro_entries__(self, bases):
        return (_fz_B,)

    @classmethod
    def __class_getitem__(cls, k):
        return cls


for _fz_op in ('add', 'sub', 'mul', 'matmul', 'truediv', 'floordiv', 'mod', 'pow',
               'lshift', 'rshift', 'and', 'xor', 'or'):
    setattr(_fz_U, '__' + _fz_op + '__', lambda s, o, *r: s)
    setattr(_fz_U, '__r' + _fz_op + '__', lambda s, o, *r: s)
for _fz_op in ('lt', 'le', 'gt', 'ge', 'neg', 'pos', 'invert', 'abs'):
    setattr(_fz_U, '__' + _fz_op + '__', lambda s, *o: s)
name_0 = {'a': 1, 2: 'b'}
name_1 = dict
name_2 = str
name_3 = ''
name_4 = ...
name_5 = object

try:
    match name_2:
        case b'\'"\'\'\'"""{}\\':
            pass
        case None if name_0:
            pass
        case name_3.name_4 if name_0:
            pass
        case 17.10451160386595:
            pass
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    _fz_show(name_0)
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    pass
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    _fz_show(name_2)
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    _fz_show(name_5)
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    _fz_show(name_2)
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    del name_0, name_1, name_3, name_4, name_4, name_2
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    pass
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    try:
        pass
    except* name_3:
        pass
    except* name_2:
        pass
    except* name_4 as name_4:
        pass
    except* name_2:
        pass
    except* name_4:
        pass
    else:
        pass
        pass
        pass
        pass
        pass
    finally:
        pass
        pass
        pass
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    _fz_show(name_3)
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    _fz_show(name_1)
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    from . import name_3 as name_0, name_4 as name_2, name_4 as name_5
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    match name_3:
        case '\'"\'\'\'"""{}\\' if name_3:
            pass
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    _fz_show(name_4)
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    try:
        pass
        pass
        pass
        pass
        pass
        pass
    except:
        pass
    else:
        pass
        pass
        pass
        pass
    finally:
        pass
        pass
        pass
        pass
        pass
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    _fz_show(name_4)
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    pass
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    pass
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    pass
except BaseException as _fz_e:
    _fz_report(_fz_e)
try:
    pass
except BaseException as _fz_e:
    _fz_report(_fz_e)
