"""UNPACK_SEQUENCE and its 3 members.

An exact tuple of length oparg -> TWO_TUPLE (length 2) or TUPLE; an exact
list of length oparg -> LIST.  A length mismatch fails (the generic
instruction then raises); so does anything else.  Guards: type and length.
"""

from quickening.interp.ops import containers
from quickening.interp.lowering import Shape
from quickening.interp.quicken import Family

FAMILY = Family("UNPACK_SEQUENCE", [
    "UNPACK_SEQUENCE_TWO_TUPLE", "UNPACK_SEQUENCE_TUPLE", "UNPACK_SEQUENCE_LIST",
])

_generic = containers.unpack_sequence


@FAMILY.adaptive()
def unpack_sequence(f, stack, site, nxt):
    cells = site.cells
    counter = cells[site.ci]
    if counter < 16:
        specialize(site, stack[-1])
        return site.pc
    cells[site.ci] = counter - 16
    return _generic(f, stack, site.arg, nxt)


# -- the specializer --------------------------------------------------------------
def specialize(site, seq):
    t = type(seq)
    n = site.oparg
    if t is tuple:
        if len(seq) != n:
            return site.fail("EXPECTED_ERROR")
        if n == 2:
            return site.specialize("UNPACK_SEQUENCE_TWO_TUPLE", unpack_sequence_two_tuple)
        return site.specialize("UNPACK_SEQUENCE_TUPLE", unpack_sequence_tuple)
    if t is list:
        if len(seq) != n:
            return site.fail("EXPECTED_ERROR")
        return site.specialize("UNPACK_SEQUENCE_LIST", unpack_sequence_list)
    return site.fail(failure_kind(seq))


def failure_kind(seq):
    t = type(seq)
    if not isinstance(seq, dict) and hasattr(t, "__getitem__") and hasattr(t, "__len__"):
        return "UNPACK_SEQUENCE_SEQUENCE"
    if hasattr(t, "__next__"):
        return "UNPACK_SEQUENCE_ITERATOR"
    return "OTHER"


def _deopt(f, stack, site, nxt):
    site.misses += 1
    return unpack_sequence(f, stack, site, nxt)


# -- members: guards first, then the operation ---------------------------------------
def unpack_sequence_two_tuple(f, stack, site, nxt):
    seq = stack[-1]
    if type(seq) is tuple and len(seq) == 2:
        stack[-1] = seq[1]
        stack.append(seq[0])
        return nxt
    return _deopt(f, stack, site, nxt)


def unpack_sequence_tuple(f, stack, site, nxt):
    seq = stack[-1]
    if type(seq) is tuple and len(seq) == site.oparg:
        del stack[-1]
        stack.extend(seq[::-1])
        return nxt
    return _deopt(f, stack, site, nxt)


def unpack_sequence_list(f, stack, site, nxt):
    seq = stack[-1]
    if type(seq) is list and len(seq) == site.oparg:
        del stack[-1]
        stack.extend(seq[::-1])
        return nxt
    return _deopt(f, stack, site, nxt)


# -- in place in fused runs (fusion.py): each member's guard and operation ------------------
def _items(n):
    # pushed last item first: the first item ends on top
    return [f"{{0}}[{k}]" for k in reversed(range(n))]


unpack_sequence_two_tuple.fuse_as = lambda oparg: (
    Shape(1, _items(2), guard="type({0}) is tuple and len({0}) == 2", pure=True)
    if oparg == 2 else None)
unpack_sequence_tuple.fuse_as = lambda oparg: Shape(
    1, _items(oparg), guard=f"type({{0}}) is tuple and len({{0}}) == {oparg}", pure=True)
unpack_sequence_list.fuse_as = lambda oparg: Shape(
    1, _items(oparg), guard=f"type({{0}}) is list and len({{0}}) == {oparg}", pure=True)
_INLINE = (unpack_sequence_two_tuple, unpack_sequence_tuple, unpack_sequence_list)
FAMILY.inline_members = lambda oparg: _INLINE if oparg <= 8 else ()
