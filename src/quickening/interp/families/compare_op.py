"""COMPARE_OP and its 3 members.

Both operands must have the same exact type: float -> FLOAT; int -> INT when
both are compact (|v| < 2**30, a single 30-bit digit); str -> STR for `==`
and `!=` only.  Every member produces a bool, whatever the oparg's to-bool
bit says, so one member serves both forms.
"""

import functools

from quickening.interp import host
from quickening.interp.lowering import GENERIC, Shape
from quickening.interp.ops import arith
from quickening.interp.quicken import Family

FAMILY = Family("COMPARE_OP", ["COMPARE_OP_FLOAT", "COMPARE_OP_INT", "COMPARE_OP_STR"],
                operands=2)

_generic = arith.compare_op
_COMPACT = 1 << 30
_EQ, _NE = 2, 3   # Py_EQ, Py_NE: the comparison is oparg >> 5


@FAMILY.adaptive()
def compare_op(f, stack, site, nxt):
    cells = site.cells
    counter = cells[site.ci]
    if counter < 16:
        specialize(site, stack[-2], stack[-1])
        return site.pc
    cells[site.ci] = counter - 16
    return _generic(f, stack, site.arg, nxt)


# -- the specializer --------------------------------------------------------------
def specialize(site, lhs, rhs):
    t = type(lhs)
    if t is not type(rhs):
        return site.fail(failure_kind(lhs, rhs))
    op = site.arg[0]
    if t is float:
        return site.specialize("COMPARE_OP_FLOAT", _member(op, float))
    if t is int:
        if -_COMPACT < lhs < _COMPACT and -_COMPACT < rhs < _COMPACT:
            return site.specialize("COMPARE_OP_INT", _compare_int(op))
        return site.fail("COMPARE_OP_BIG_INT")
    if t is str:
        if site.oparg >> 5 not in (_EQ, _NE):
            return site.fail("COMPARE_OP_STRING")
        return site.specialize("COMPARE_OP_STR", _member(op, str))
    return site.fail(failure_kind(lhs, rhs))


def failure_kind(lhs, rhs):
    t = type(lhs)
    if t is not type(rhs):
        if t is float and type(rhs) is int:
            return "COMPARE_OP_FLOAT_LONG"
        if t is int and type(rhs) is float:
            return "COMPARE_OP_LONG_FLOAT"
        return "COMPARE_OP_DIFFERENT_TYPES"
    if t is bytes:
        return "COMPARE_OP_BYTES"
    if t is tuple:
        return "COMPARE_OP_TUPLE"
    if t is list:
        return "COMPARE_OP_LIST"
    if t is set or t is frozenset:
        return "COMPARE_OP_SET"
    if t is bool:
        return "COMPARE_OP_BOOL"
    if t.__eq__ is object.__eq__ and t.__lt__ is object.__lt__:
        return "COMPARE_OP_BASEOBJECT"
    return "OTHER"


def _deopt(f, stack, site, nxt):
    site.misses += 1
    return compare_op(f, stack, site, nxt)


# -- members: guards first, then the operation ---------------------------------------
@functools.cache     # one handler per operator: fused runs recognize it (fusion.py)
def _member(op, t):
    """COMPARE_OP_FLOAT / COMPARE_OP_STR for one comparison operator."""
    def compare(f, stack, site, nxt):
        rhs = stack[-1]
        lhs = stack[-2]
        if type(lhs) is t and type(rhs) is t:
            del stack[-1]
            stack[-1] = op(lhs, rhs)
            return nxt
        return _deopt(f, stack, site, nxt)
    compare.__name__ = f"compare_op_{t.__name__}"
    compare.fuse_as = _fused(op, f"type({{0}}) is {t.__name__} and type({{1}}) is {t.__name__}")
    return compare


@functools.cache
def _compare_int(op):
    def compare_op_int(f, stack, site, nxt):
        rhs = stack[-1]
        lhs = stack[-2]
        if (type(lhs) is int and type(rhs) is int
                and -_COMPACT < lhs < _COMPACT and -_COMPACT < rhs < _COMPACT):
            del stack[-1]
            stack[-1] = op(lhs, rhs)
            return nxt
        return _deopt(f, stack, site, nxt)
    compare_op_int.fuse_as = _fused(
        op, f"type({{0}}) is int and type({{1}}) is int and "
            f"-{_COMPACT} < {{0}} < {_COMPACT} and -{_COMPACT} < {{1}} < {_COMPACT}")
    return compare_op_int


# -- in place in fused runs (fusion.py): each member's guard and operation ------------------
_SYMBOL_OF = dict(zip(host.COMPARE_OPS, host.COMPARE_SYMBOLS))


def _fused(op, guard):
    sym = _SYMBOL_OF[op]
    return lambda oparg: Shape(2, [f"{{0}} {sym} {{1}}"], guard=guard, raises=False,
                                 result_type=bool, pure=True)


def _inline_members(oparg):
    op = host.COMPARE_OPS[oparg >> 5]
    members = [_compare_int(op), _member(op, float)]
    if oparg >> 5 in (_EQ, _NE):
        members.append(_member(op, str))
    return members


FAMILY.inline_members = _inline_members

# the base operation in place in fused runs (fusion.py): the generic instruction's
FAMILY.base_shape = GENERIC[host.OPMAP["COMPARE_OP"]]
