"""SEND and its member SEND_GEN.

SEND (the heart of `yield from` and `await`) specializes when the receiver
is an exact generator or coroutine -> SEND_GEN, which runs the receiver's
frame in the same loop (see _genframes.py).  Guard: the type, and the frame
is neither running nor finished.  Other receivers fail, by iterator kind.
"""

import types

from quickening.interp.families import _genframes
from quickening.interp.families.for_iter import classify_iterator
from quickening.interp.lowering import Shape
from quickening.interp.ops import gens
from quickening.interp.spec import Family, Guard, Hand


_generic = gens.send
GeneratorType = types.GeneratorType
CoroutineType = types.CoroutineType


FAMILY = Family("SEND", operands="receiver value", generic=_generic, stats_operands=2)
send = FAMILY.base_handler


# -- the specializer --------------------------------------------------------------
@FAMILY.specializer
def specialize(site, receiver, value):
    t = type(receiver)
    if t is GeneratorType or t is CoroutineType:
        return site.specialize(GEN)
    return site.fail(classify_iterator(receiver))


def _deopt(f, stack, site, nxt):
    site.misses += 1
    return send(f, stack, site, nxt)


# -- the member ------------------------------------------------------------------------
_generator_state = _genframes.generator_state
_coroutine_state = _genframes.coroutine_state
_DEOPT = _genframes.DEOPT
_INNER_TYPES = (_genframes.InterpGenerator, _genframes.InterpCoroutine)
_InterpGenerator = _genframes.InterpGenerator
_SendReturn = _genframes.SendReturn
_push = _genframes.push
_gi_yieldfrom = _genframes.gi_yieldfrom   # (the driver's own: see _genframes.py)
_cr_await = _genframes.cr_await


def run_receiver_frame(f, stack, site, nxt, receiver):
    t = type(receiver)
    if t is GeneratorType:
        inner = _gi_yieldfrom(receiver)
        # (the common case first: a suspended interpreted generator delegated to)
        if type(inner) is not _InterpGenerator or inner.running or inner.frame.pc < 0:
            inner = _generator_state(receiver)
    elif t is CoroutineType:
        inner = _cr_await(receiver)
        if type(inner) not in _INNER_TYPES or inner.running or inner.frame.pc < 0:
            inner = _coroutine_state(receiver)
    else:
        inner = _DEOPT
    if inner is _DEOPT:
        return _deopt(f, stack, site, nxt)
    if inner is None:
        # CPython runs this generator's frame: send natively
        return _generic(f, stack, site.arg, nxt)
    if inner.frame.depth > 900:
        return _generic(f, stack, site.arg, nxt)
    return _push(f, site, inner, stack.pop(), _SendReturn, nxt)


# (the receiver's frame must be neither running nor finished: checked by the operation,
# which then misses)
GENERATOR_OR_COROUTINE = Guard("GENERATOR_OR_COROUTINE",
                               "type({x}) is GeneratorType or type({x}) is CoroutineType",
                               "x is exactly a generator or a coroutine",
                               needs={"GeneratorType": GeneratorType, "CoroutineType": CoroutineType})
GEN = FAMILY.member("SEND_GEN", stack="receiver value -- receiver retval",
                    guards=[GENERATOR_OR_COROUTINE("receiver")], op=Hand(run_receiver_frame))
send_gen = GEN.handler(0)


# in place in fused runs (fusion.py): the common case of the member -- a generator
# suspended in an interpreted frame, delegated to -- pushes that frame right from
# the run (the run ends there: the loop switches to it); anything else goes through
# the table.  ({r0} is assigned only there: the handler may send natively.)
send_gen.fuse_as = lambda oparg: Shape(
    2, ["{r0}"], consts=(GeneratorType, _gi_yieldfrom, _InterpGenerator, _push, _SendReturn),
    guard="type({0}) is {c0} and type(inner := {c1}({0})) is {c2} and not inner.running"
          " and inner.frame.pc >= 0 and inner.frame.depth <= 900",
    effects=["{kept}stack.append({0}); return {c3}(f, {site}, inner, {1}, {c4}, {nxt})"])
FAMILY.inline_members = lambda oparg: (send_gen,)
