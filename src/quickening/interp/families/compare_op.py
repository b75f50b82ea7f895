"""COMPARE_OP and its 3 members.

Both operands must have the same exact type: float -> FLOAT; int -> INT when
both are compact (|v| < 2**30, a single 30-bit digit); str -> STR for `==`
and `!=` only.  Every member produces a bool, whatever the oparg's to-bool
bit says, so one member serves both forms.
"""

from quickening.interp import host
from quickening.interp.lowering import GENERIC
from quickening.interp.ops import arith
from quickening.interp.spec import COMPACT_INT, EXACT_TYPE, Family

_COMPACT = 1 << 30
_EQ, _NE = 2, 3   # Py_EQ, Py_NE: the comparison is oparg >> 5


def specialize(site, lhs, rhs):
    """specialize.c's _Py_Specialize_CompareOp."""
    t = type(lhs)
    if t is not type(rhs):
        return site.fail(failure_kind(lhs, rhs))
    if t is float:
        return site.specialize(FLOAT)
    if t is int:
        if -_COMPACT < lhs < _COMPACT and -_COMPACT < rhs < _COMPACT:
            return site.specialize(INT)
        return site.fail("COMPARE_OP_BIG_INT")
    if t is str:
        if site.oparg >> 5 not in (_EQ, _NE):
            return site.fail("COMPARE_OP_STRING")
        return site.specialize(STR)
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


COMPARE_OP = FAMILY = Family("COMPARE_OP", operands="lhs rhs", generic=arith.compare_op,
                              specializer=specialize)


# -- members: guards first, then the operation ---------------------------------------
# Every member produces a bool, whatever the oparg's to-bool bit says.
def _comparison(oparg):
    return {"cmp": host.COMPARE_SYMBOLS[oparg >> 5]}


_PURE = {"result": bool, "raises": False, "runs_code": False}
FLOAT = COMPARE_OP.member(
    "COMPARE_OP_FLOAT", stack="left right -- res",
    guards=[EXACT_TYPE("left", float), EXACT_TYPE("right", float)],
    op="left {cmp} right", variants=_comparison, **_PURE)
INT = COMPARE_OP.member(
    "COMPARE_OP_INT", stack="left right -- res",
    guards=[EXACT_TYPE("left", int), EXACT_TYPE("right", int),
            COMPACT_INT("left"), COMPACT_INT("right")],
    op="left {cmp} right", variants=_comparison, **_PURE)
STR = COMPARE_OP.member(
    "COMPARE_OP_STR", stack="left right -- res",
    guards=[EXACT_TYPE("left", str), EXACT_TYPE("right", str)],
    op="left {cmp} right", variants=_comparison, serves=lambda oparg: oparg >> 5 in (_EQ, _NE),
    **_PURE)

# the base operation in place in fused runs (fusion.py): the generic instruction's
COMPARE_OP.base_shape = GENERIC[host.OPMAP["COMPARE_OP"]]
