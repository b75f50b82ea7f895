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
from quickening.interp.spec import EXACT_TYPE, Family, Hand


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
    if member is not None and member.serves(site.oparg):
        return site.specialize(member)
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
# (the operation is irregular: at the end of the iterator it jumps past the loop)
def step(f, stack, site, nxt, it):
    value = next(it, NULL)
    if value is NULL:
        del stack[-1]
        return site.arg
    stack.append(value)
    return nxt


def _sequence_member(name, iterator_type, yields):
    """FOR_ITER_LIST / _TUPLE / _RANGE: the iterator's exact type, then a step."""
    member = FAMILY.member(
        name, stack="it -- it next", guards=[EXACT_TYPE("it", "ITERATOR")], op=Hand(step),
        uses={"ITERATOR": iterator_type, "NULL": NULL}, runs_code=False)
    # in place in fused runs (fusion.py): the guard is the iterator's exact type, and
    # the type of what it steps to, when known
    handler = member.handler(0)
    handler.iterates, handler.yields = iterator_type, yields
    return member, handler


LIST, for_iter_list = _sequence_member("FOR_ITER_LIST", _LIST_ITER, None)
TUPLE, for_iter_tuple = _sequence_member("FOR_ITER_TUPLE", _TUPLE_ITER, None)
RANGE, for_iter_range = _sequence_member("FOR_ITER_RANGE", _RANGE_ITER, int)
FAMILY.inline_members = lambda oparg: (for_iter_list, for_iter_tuple, for_iter_range)


_generator_state = _genframes.generator_state
_DEOPT = _genframes.DEOPT
_InterpGenerator = _genframes.InterpGenerator
_ForIterReturn = _genframes.ForIterReturn
_push = _genframes.push
_gi_yieldfrom = _genframes.gi_yieldfrom   # (the driver's own: see _genframes.py)


def run_generator_frame(f, stack, site, nxt, it):
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


# (the generator must be neither running nor finished: checked by the operation,
# which then misses; a generator the interpreter does not run is advanced natively)
GEN = FAMILY.member("FOR_ITER_GEN", stack="it -- it next",
                    guards=[EXACT_TYPE("it", "GeneratorType")], op=Hand(run_generator_frame),
                    uses={"GeneratorType": GeneratorType}, serves=lambda oparg: oparg <= 0x7FFF)

# the member for each iterator type
_BY_ITERATOR = {_LIST_ITER: LIST, _TUPLE_ITER: TUPLE, _RANGE_ITER: RANGE, GeneratorType: GEN}
