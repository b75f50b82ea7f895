"""CONTAINS_OP and its 2 members: `in` / `not in` on an exact dict (DICT) or
a set or frozenset (SET).  The guard checks only the container's type."""

from quickening.interp import host
from quickening.interp.ops import arith
from quickening.interp.lowering import GENERIC, Shape
from quickening.interp.quicken import Family

FAMILY = Family("CONTAINS_OP", ["CONTAINS_OP_SET", "CONTAINS_OP_DICT"], operands=2)

_generic = arith.contains_op


@FAMILY.adaptive()
def contains_op(f, stack, site, nxt):
    cells = site.cells
    counter = cells[site.ci]
    if counter < 16:
        specialize(site, stack[-1])
        return site.pc
    cells[site.ci] = counter - 16
    return _generic(f, stack, site.arg, nxt)


# -- the specializer --------------------------------------------------------------
def specialize(site, container):
    t = type(container)
    if t is dict:
        return site.specialize("CONTAINS_OP_DICT", contains_op_dict if not site.oparg
                               else not_contains_op_dict)
    if t is set or t is frozenset:
        return site.specialize("CONTAINS_OP_SET", contains_op_set if not site.oparg
                               else not_contains_op_set)
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


def _deopt(f, stack, site, nxt):
    site.misses += 1
    return contains_op(f, stack, site, nxt)


# -- members (oparg 1 is `not in`) ------------------------------------------------------
def contains_op_dict(f, stack, site, nxt):
    container = stack[-1]
    if type(container) is dict:
        del stack[-1]
        stack[-1] = stack[-1] in container
        return nxt
    return _deopt(f, stack, site, nxt)


def not_contains_op_dict(f, stack, site, nxt):
    container = stack[-1]
    if type(container) is dict:
        del stack[-1]
        stack[-1] = stack[-1] not in container
        return nxt
    return _deopt(f, stack, site, nxt)


def contains_op_set(f, stack, site, nxt):
    container = stack[-1]
    t = type(container)
    if t is set or t is frozenset:
        del stack[-1]
        stack[-1] = stack[-1] in container
        return nxt
    return _deopt(f, stack, site, nxt)


def not_contains_op_set(f, stack, site, nxt):
    container = stack[-1]
    t = type(container)
    if t is set or t is frozenset:
        del stack[-1]
        stack[-1] = stack[-1] not in container
        return nxt
    return _deopt(f, stack, site, nxt)

# the base operation in place in fused runs (fusion.py): the generic instruction's
FAMILY.base_shape = GENERIC[host.OPMAP["CONTAINS_OP"]]


# -- in place in fused runs (fusion.py): each member's guard and operation ------------------
# (hashing and comparing the item may run code of the program: not pure)
_SET_GUARD = "(type({1}) is set or type({1}) is frozenset)"
contains_op_dict.fuse_as = lambda oparg: Shape(2, ["{0} in {1}"], guard="type({1}) is dict",
                                               result_type=bool)
not_contains_op_dict.fuse_as = lambda oparg: Shape(2, ["{0} not in {1}"],
                                                   guard="type({1}) is dict", result_type=bool)
contains_op_set.fuse_as = lambda oparg: Shape(2, ["{0} in {1}"], guard=_SET_GUARD,
                                              result_type=bool)
not_contains_op_set.fuse_as = lambda oparg: Shape(2, ["{0} not in {1}"], guard=_SET_GUARD,
                                                  result_type=bool)
FAMILY.inline_members = lambda oparg: ((not_contains_op_dict, not_contains_op_set) if oparg
                                       else (contains_op_dict, contains_op_set))
