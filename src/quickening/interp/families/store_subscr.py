"""STORE_SUBSCR and its 2 members.

`container[sub] = value` on an exact list with an exact int index that is
non-negative, compact (< 2**30) and *less than the list's length at
specialization time* -> LIST_INT (its guard re-checks the bound on every
execution); on an exact dict -> DICT.  Everything else fails.
"""

import types

from quickening.interp import host
from quickening.interp.lowering import GENERIC
from quickening.interp.ops import containers
from quickening.interp.spec import (COMPACT, EXACT_TYPE, INDEX_IN_RANGE, NON_NEGATIVE_COMPACT,
                                    Family)

_COMPACT = COMPACT


def specialize(site, container, sub):
    """specialize.c's _Py_Specialize_StoreSubscr."""
    t = type(container)
    if t is list:
        if type(sub) is int:
            if 0 <= sub < _COMPACT and sub < len(container):
                return site.specialize(LIST_INT)
            return site.fail("OUT_OF_RANGE")
        if type(sub) is slice:
            return site.fail("SUBSCR_LIST_SLICE")
        return site.fail("OTHER")
    if t is dict:
        return site.specialize(DICT)
    return site.fail(failure_kind(container, sub))


def _lookup(t, name):
    for klass in t.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return None


def failure_kind(container, sub):
    t = type(container)
    if _lookup(t, "__setitem__") is dict.__dict__["__setitem__"]:
        return "SUBSCR_DICT_SUBCLASS_NO_OVERRIDE"
    if hasattr(t, "__buffer__"):
        if type(sub) is int and not 0 <= sub < _COMPACT:
            return "OUT_OF_RANGE"
        if t.__module__ == "array" and t.__name__ == "array":
            prefix = "SUBSCR_ARRAY"
        elif t is bytearray:
            prefix = "SUBSCR_BYTEARRAY"
        else:
            prefix = "SUBSCR_BUFFER"
        if type(sub) is int:
            return prefix + "_INT"
        if type(sub) is slice:
            return prefix + "_SLICE"
        return "OTHER"
    setitem = _lookup(t, "__setitem__")
    if type(setitem) is types.FunctionType:
        code = setitem.__code__
        if code.co_flags & 0xC or code.co_kwonlyargcount:
            return "SUBSCR_PY_OTHER"
        return "SUBSCR_PY_SIMPLE"
    return "OTHER"


STORE_SUBSCR = FAMILY = Family("STORE_SUBSCR", operands="container sub",
                                generic=containers.store_subscr, specializer=specialize)


# -- members: guards first, then the operation ---------------------------------------
DICT = STORE_SUBSCR.member(
    "STORE_SUBSCR_DICT", stack="value container sub --",
    guards=[EXACT_TYPE("container", dict)],
    op="container[sub] = value")     # (hashing and comparing the key may run code)
LIST_INT = STORE_SUBSCR.member(
    "STORE_SUBSCR_LIST_INT", stack="value container sub --",
    guards=[EXACT_TYPE("sub", int), EXACT_TYPE("container", list), NON_NEGATIVE_COMPACT("sub"),
            # (past the end, the store raises IndexError before storing anything)
            INDEX_IN_RANGE("sub", "container").or_raises("IndexError")],
    op="container[sub] = value", runs_code=False)

# the base operation in place in fused runs (fusion.py): the generic instruction's
STORE_SUBSCR.base_shape = GENERIC[host.OPMAP["STORE_SUBSCR"]]
