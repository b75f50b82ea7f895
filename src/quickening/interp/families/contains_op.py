"""CONTAINS_OP and its 2 members: `in` / `not in` on an exact dict (DICT) or
a set or frozenset (SET).  The guard checks only the container's type."""

from quickening.interp import host
from quickening.interp.lowering import GENERIC
from quickening.interp.ops import arith
from quickening.interp.spec import EXACT_SET, EXACT_TYPE, Family


def specialize(site, item, container):
    """specialize.c's _Py_Specialize_ContainsOp."""
    t = type(container)
    if t is dict:
        return site.specialize(DICT)
    if t is set or t is frozenset:
        return site.specialize(SET)
    return site.fail(failure_kind(container))


def failure_kind(container):
    t = type(container)
    if t is str:
        return "CONTAINS_OP_STR"
    if t is list:
        return "CONTAINS_OP_LIST"
    if t is tuple:
        return "CONTAINS_OP_TUPLE"
    if isinstance(container, type):
        return "CONTAINS_OP_USER_CLASS"
    return "OTHER"


CONTAINS_OP = FAMILY = Family("CONTAINS_OP", operands="item container",
                               generic=arith.contains_op, specializer=specialize)


# -- members (oparg 1 is `not in`) ------------------------------------------------------
# (hashing and comparing the item may run code of the program)
def _polarity(oparg):
    return {"in": "not in" if oparg else "in"}


SET = CONTAINS_OP.member(
    "CONTAINS_OP_SET", stack="item container -- res", guards=[EXACT_SET("container")],
    op="item {in} container", variants=_polarity, result=bool)
DICT = CONTAINS_OP.member(
    "CONTAINS_OP_DICT", stack="item container -- res", guards=[EXACT_TYPE("container", dict)],
    op="item {in} container", variants=_polarity, result=bool)

# the base operation in place in fused runs (fusion.py): the generic instruction's
CONTAINS_OP.base_shape = GENERIC[host.OPMAP["CONTAINS_OP"]]
