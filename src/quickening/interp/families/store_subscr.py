"""STORE_SUBSCR and its 2 members.

`container[sub] = value` on an exact list with an exact int index that is
non-negative, compact (< 2**30) and *less than the list's length at
specialization time* -> LIST_INT (its guard re-checks the bound on every
execution); on an exact dict -> DICT.  Everything else fails.
"""

import types

from quickening.interp import host
from quickening.interp.ops import containers
from quickening.interp.lowering import GENERIC, Shape
from quickening.interp.quicken import Family

FAMILY = Family("STORE_SUBSCR", ["STORE_SUBSCR_DICT", "STORE_SUBSCR_LIST_INT"], operands=2)

_generic = containers.store_subscr
_COMPACT = 1 << 30


@FAMILY.adaptive()
def store_subscr(f, stack, site, nxt):
    cells = site.cells
    counter = cells[site.ci]
    if counter < 16:
        specialize(site, stack[-2], stack[-1])
        return site.pc
    cells[site.ci] = counter - 16
    return _generic(f, stack, site.arg, nxt)


# -- the specializer --------------------------------------------------------------
def specialize(site, container, sub):
    t = type(container)
    if t is list:
        if type(sub) is int:
            if 0 <= sub < _COMPACT and sub < len(container):
                return site.specialize("STORE_SUBSCR_LIST_INT", store_subscr_list_int)
            return site.fail("OUT_OF_RANGE")
        if type(sub) is slice:
            return site.fail("SUBSCR_LIST_SLICE")
        return site.fail("OTHER")
    if t is dict:
        return site.specialize("STORE_SUBSCR_DICT", store_subscr_dict)
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


def _deopt(f, stack, site, nxt):
    site.misses += 1
    return store_subscr(f, stack, site, nxt)


# -- members: guards first, then the operation ---------------------------------------
def store_subscr_list_int(f, stack, site, nxt):
    sub = stack[-1]
    container = stack[-2]
    if (type(sub) is int and type(container) is list
            and 0 <= sub < _COMPACT and sub < len(container)):
        container[sub] = stack[-3]
        del stack[-3:]
        return nxt
    return _deopt(f, stack, site, nxt)


def store_subscr_dict(f, stack, site, nxt):
    container = stack[-2]
    if type(container) is dict:
        sub = stack.pop()
        del stack[-1]
        container[sub] = stack.pop()
        return nxt
    return _deopt(f, stack, site, nxt)


# -- in place in fused runs (fusion.py): the member's guard and operation -------------------
# (the guard less the bound: an index past the end raises IndexError, the member's
# miss, before anything is stored: the run leaves for the handler, which counts it)
store_subscr_list_int.fuse_as = lambda oparg: Shape(
    3, effects=["{1}[{2}] = {0}"],
    guard=f"type({{2}}) is int and type({{1}}) is list and 0 <= {{2}} < {_COMPACT}",
    fallible="IndexError", pure=True)
# (hashing and comparing the key may run code of the program)
store_subscr_dict.fuse_as = lambda oparg: Shape(3, effects=["{1}[{2}] = {0}"],
                                                guard="type({1}) is dict")
FAMILY.inline_members = lambda oparg: (store_subscr_list_int, store_subscr_dict)

# the base operation in place in fused runs (fusion.py): the generic instruction's
FAMILY.base_shape = GENERIC[host.OPMAP["STORE_SUBSCR"]]
