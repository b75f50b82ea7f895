"""FOR_ITER and its 4 members.

The iterator's exact type decides: list, tuple and range iterators -> LIST,
TUPLE, RANGE (guard: the iterator's type); an exact generator -> GEN, which
runs the generator's frame in the same loop (see _genframes.py; guard: the
generator is neither running nor finished; a generator the interpreter does
not run is advanced natively).  Everything else fails: dict iterators,
enumerate, zip, map, str iterators, a range too big for a C long ...
"""

import types

from quickening.interp.families import _genframes
from quickening.interp.ops import control
from quickening.interp.ops.registry import NULL
from quickening.interp.spec import Family


_generic = control.for_iter
GeneratorType = types.GeneratorType
_LIST_ITER = type(iter([]))
_TUPLE_ITER = type(iter(()))
_RANGE_ITER = type(iter(range(0)))


FAMILY = Family("FOR_ITER", operands="it", generic=_generic)
for_iter = FAMILY.base_handler


# -- the specializer --------------------------------------------------------------
@FAMILY.specializer
def specialize(site, it):
    t = type(it)
    member = _BY_ITERATOR.get(t)
    if member is not None and (t is not GeneratorType or site.oparg <= 0x7FFF):
        return site.specialize(*member)
    return site.fail(classify_iterator(it))


def _kinds():
    async def agen():
        yield

    a = agen()
    asend = a.asend(None)
    kinds = {
        types.CoroutineType: "ITER_COROUTINE", types.AsyncGeneratorType: "ITER_ASYNC_GENERATOR",
        type(asend): "ITER_ASYNC_GENERATOR_SEND", GeneratorType: "ITER_GENERATOR",
        _LIST_ITER: "ITER_LIST", _TUPLE_ITER: "ITER_TUPLE", _RANGE_ITER: "ITER_RANGE",
        type(iter({})): "ITER_DICT_KEYS", type(iter({}.values())): "ITER_DICT_VALUES",
        type(iter({}.items())): "ITER_DICT_ITEMS", type(iter(set())): "ITER_SET",
        type(iter("\u00e9")): "ITER_STRING", type(iter("a")): "ITER_ASCII_STRING",
        type(iter(b"")): "ITER_BYTES", enumerate: "ITER_ENUMERATE", map: "ITER_MAP",
        zip: "ITER_ZIP", type(iter(reversed([]))): "ITER_REVERSED_LIST",
        type(iter(lambda: 0, 1)): "ITER_CALLABLE",
    }
    asend.close()
    a.aclose().close()

    class Seq:
        def __getitem__(self, i):
            raise IndexError
    kinds[type(iter(Seq()))] = "ITER_SEQ_ITER"
    return kinds


# (made at import: made at the first failure, in the middle of the program, it would
# leave the probe class for the program's gc to find)
_KINDS = _kinds()


def classify_iterator(it):
    """pystats' failure kind for an iterator (FOR_ITER and SEND share it)."""
    t = type(it)
    kind = _KINDS.get(t)
    if kind is not None:
        return kind
    if t.__module__ == "itertools":
        return "ITER_ITERTOOLS"
    return "OTHER"


def _deopt(f, stack, site, nxt):
    site.misses += 1
    return for_iter(f, stack, site, nxt)


# -- members: guards first, then the operation ---------------------------------------
def _sequence_member(iterator_type):
    """FOR_ITER_LIST / _TUPLE / _RANGE: guard on the iterator's exact type, then step it."""
    def member(f, stack, site, nxt):
        it = stack[-1]
        if type(it) is iterator_type:
            value = next(it, NULL)
            if value is NULL:
                del stack[-1]
                return site.arg
            stack.append(value)
            return nxt
        return _deopt(f, stack, site, nxt)
    return member


for_iter_list = _sequence_member(_LIST_ITER)
for_iter_tuple = _sequence_member(_TUPLE_ITER)
for_iter_range = _sequence_member(_RANGE_ITER)
# in place in fused runs (fusion.py): the guard is the iterator's exact type
for_iter_list.iterates, for_iter_tuple.iterates, for_iter_range.iterates = (
    _LIST_ITER, _TUPLE_ITER, _RANGE_ITER)
# and the exact type of what it steps to, when known
for_iter_list.yields, for_iter_tuple.yields, for_iter_range.yields = None, None, int
FAMILY.inline_members = lambda oparg: (for_iter_list, for_iter_tuple, for_iter_range)


_generator_state = _genframes.generator_state
_DEOPT = _genframes.DEOPT
_InterpGenerator = _genframes.InterpGenerator
_ForIterReturn = _genframes.ForIterReturn
_push = _genframes.push
_gi_yieldfrom = _genframes.gi_yieldfrom   # (the driver's own: see _genframes.py)


def for_iter_gen(f, stack, site, nxt):
    it = stack[-1]
    if type(it) is not GeneratorType:
        return _deopt(f, stack, site, nxt)
    inner = _gi_yieldfrom(it)
    # the common case: a driver suspended in its `yield from` of a suspended frame
    if type(inner) is not _InterpGenerator or inner.running or inner.frame.pc < 0:
        inner = _generator_state(it)
        if inner is _DEOPT:
            return _deopt(f, stack, site, nxt)
        if inner is None:
            # CPython runs this generator's frame: advance it natively
            return _generic(f, stack, site.arg, nxt)
    if inner.frame.depth > 900:
        return _generic(f, stack, site.arg, nxt)
    return _push(f, site, inner, None, _ForIterReturn, nxt)

# the member for each iterator type: (name, handler)
_BY_ITERATOR = {_LIST_ITER: ("FOR_ITER_LIST", for_iter_list),
                _TUPLE_ITER: ("FOR_ITER_TUPLE", for_iter_tuple),
                _RANGE_ITER: ("FOR_ITER_RANGE", for_iter_range),
                GeneratorType: ("FOR_ITER_GEN", for_iter_gen)}
