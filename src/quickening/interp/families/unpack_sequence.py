"""UNPACK_SEQUENCE and its 3 members.

An exact tuple of length oparg -> TWO_TUPLE (length 2) or TUPLE; an exact
list of length oparg -> LIST.  A length mismatch fails (the generic
instruction then raises); so does anything else.  Guards: type and length.
"""

from quickening.interp.ops import containers
from quickening.interp.spec import EXACT_LENGTH, EXACT_TYPE, OPARG, Family


def specialize(site, seq):
    """specialize.c's _Py_Specialize_UnpackSequence."""
    t = type(seq)
    n = site.oparg
    if t is tuple:
        if len(seq) != n:
            return site.fail("EXPECTED_ERROR")
        if n == 2:
            return site.specialize(TWO_TUPLE)
        return site.specialize(TUPLE)
    if t is list:
        if len(seq) != n:
            return site.fail("EXPECTED_ERROR")
        return site.specialize(LIST)
    return site.fail(failure_kind(seq))


def failure_kind(seq):
    t = type(seq)
    if not isinstance(seq, dict) and hasattr(t, "__getitem__") and hasattr(t, "__len__"):
        return "UNPACK_SEQUENCE_SEQUENCE"
    if hasattr(t, "__next__"):
        return "UNPACK_SEQUENCE_ITERATOR"
    return "OTHER"


UNPACK_SEQUENCE = FAMILY = Family("UNPACK_SEQUENCE", operands="seq",
                                   generic=containers.unpack_sequence, specializer=specialize)


# -- members: guards first, then the operation ---------------------------------------
def _items(n):
    """seq's n items, pushed last first: the first item ends on top."""
    return [f"seq[{k}]" for k in reversed(range(n))]


_FEW = 8     # fused runs write at most this many items in place
TWO_TUPLE = UNPACK_SEQUENCE.member(
    "UNPACK_SEQUENCE_TWO_TUPLE", stack="seq -- second first",
    guards=[EXACT_TYPE("seq", tuple), EXACT_LENGTH("seq", 2)], op=_items(2),
    serves=lambda oparg: oparg == 2, runs_code=False)
TUPLE = UNPACK_SEQUENCE.member(
    "UNPACK_SEQUENCE_TUPLE", stack="seq -- *items",
    guards=[EXACT_TYPE("seq", tuple), EXACT_LENGTH("seq", OPARG)], op=_items,
    in_place=lambda oparg: oparg <= _FEW, runs_code=False)
LIST = UNPACK_SEQUENCE.member(
    "UNPACK_SEQUENCE_LIST", stack="seq -- *items",
    guards=[EXACT_TYPE("seq", list), EXACT_LENGTH("seq", OPARG)], op=_items,
    in_place=lambda oparg: oparg <= _FEW, runs_code=False)
