"""TO_BOOL and its 6 members.

The compiler puts TO_BOOL before every conditional jump and `not` whose
operand is not already known to be a bool.  It specializes on the operand's
type: bool -> BOOL, exact int -> INT, exact list -> LIST, None -> NONE,
exact str -> STR.  An instance of a Python class (a heap type) with neither
`__bool__` nor `__len__` is always true -> ALWAYS_TRUE, which caches the
class's type version and guards on it.  Everything else fails: float, dict,
tuple, set, bytes ... (`if 1.5:` stays TO_BOOL).
"""

from quickening.interp import facts, host
from quickening.interp.lowering import GENERIC
from quickening.interp.ops import arith
from quickening.interp.spec import EXACT_TYPE, IS_NONE, TYPE_VERSION, Family
from quickening.interp.facts import (TPFLAGS_HEAPTYPE as _HEAPTYPE)



def _defines(cls, name):
    """The name is found on the class's MRO (so the matching C slot is filled)."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return True
    return False


def specialize(site, value):
    """specialize.c's _Py_Specialize_ToBool."""
    t = facts.stands_for(type(value))
    member = _BY_TYPE.get(t)
    if member is not None:
        return site.specialize(member)
    if t.__flags__ & _HEAPTYPE:
        if _defines(t, "__bool__"):
            return site.fail("TO_BOOL_NUMBER")
        if _defines(t, "__len__"):
            return site.fail("TO_BOOL_MAPPING")
        version = facts.assign_type_version(t)
        if not version:
            return site.fail("OUT_OF_VERSIONS")
        return site.specialize(ALWAYS_TRUE, version=version)
    return site.fail(_KINDS.get(t, "OTHER"))


_KINDS = {bytearray: "TO_BOOL_BYTEARRAY", bytes: "TO_BOOL_BYTES", dict: "TO_BOOL_DICT",
          float: "TO_BOOL_FLOAT", memoryview: "TO_BOOL_MEMORY_VIEW", set: "TO_BOOL_SET",
          frozenset: "TO_BOOL_SET", tuple: "TO_BOOL_TUPLE"}


TO_BOOL = FAMILY = Family("TO_BOOL", operands="value", generic=arith.to_bool,
                           specializer=specialize)


# -- members: guards first, then the operation ---------------------------------------
_PURE = {"result": bool, "raises": False, "runs_code": False}
ALWAYS_TRUE = TO_BOOL.member(
    "TO_BOOL_ALWAYS_TRUE", stack="value -- res", facts=("version",),
    # (any change to the class, e.g. adding __bool__ or __len__, gives it a new version)
    guards=[TYPE_VERSION("value", "version")], op="True", **_PURE)
BOOL = TO_BOOL.member("TO_BOOL_BOOL", stack="value -- res",
                      guards=[EXACT_TYPE("value", bool)], op="value", **_PURE)
INT = TO_BOOL.member("TO_BOOL_INT", stack="value -- res",
                     guards=[EXACT_TYPE("value", int)], op="value != 0", **_PURE)
LIST = TO_BOOL.member("TO_BOOL_LIST", stack="value -- res",
                      guards=[EXACT_TYPE("value", list)], op="len(value) > 0", **_PURE)
NONE = TO_BOOL.member("TO_BOOL_NONE", stack="value -- res",
                      guards=[IS_NONE("value")], op="False", **_PURE)
STR = TO_BOOL.member("TO_BOOL_STR", stack="value -- res",
                     guards=[EXACT_TYPE("value", str)], op="len(value) > 0", **_PURE)
_BY_TYPE = {bool: BOOL, int: INT, list: LIST, type(None): NONE, str: STR}

# the base operation in place in fused runs (fusion.py): the generic instruction's
TO_BOOL.base_shape = GENERIC[host.OPMAP["TO_BOOL"]]
