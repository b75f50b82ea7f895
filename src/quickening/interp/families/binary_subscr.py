"""BINARY_SUBSCR and its 5 members.

`container[sub]`:
- exact list / tuple / str with an exact int index that is non-negative and
  compact (< 2**30) -> LIST_INT / TUPLE_INT / STR_INT (a negative or big
  index, or a slice, fails).  Guards: both types, the index still
  non-negative compact and < len; STR_INT also needs the character to be
  ASCII (< 128), as CPython takes it from its table of one-character strings.
- exact dict -> DICT.
- an instance of a heap type whose `__getitem__` is a plain Python function
  with 2 parameters and a simple signature -> GETITEM.  As in CPython, the
  function and its version are kept *on the type* (ht->_spec_cache), not in
  the site: the guard is "the container's type has a cached __getitem__
  whose function version still matches", so a site specialized for one
  class also hits for another class that some site cached.  Any
  modification of the type drops its cached __getitem__.  A hit pushes a
  frame for the interpreted __getitem__ (no host recursion).
"""

import types
import weakref

from quickening.interp import facts, functions, host, loop as _loop
from quickening.interp.families import _datastack
from quickening.interp.families._datastack import STACK_SPACE
from quickening.interp.frame import Frame
from quickening.interp.ops import containers
from quickening.interp.lowering import GENERIC
from quickening.interp.spec import (EXACT_TYPE, INDEX_IN_RANGE, NON_NEGATIVE_COMPACT, Family,
                                    Guard, Hand)
from quickening.interp.facts import (TPFLAGS_HEAPTYPE as _HEAPTYPE, MEM32 as _MEM32,
                                     TYPE_VERSION_TAG as _TYPE_VERSION,
                                     FUNC_VERSION as _FUNC_VERSION)


_generic = containers.binary_subscr
_COMPACT = 1 << 30
FunctionType = types.FunctionType


FAMILY = Family("BINARY_SUBSCR", operands="container sub", generic=_generic,
                stats_operands=2)
binary_subscr = FAMILY.base_handler


# -- the type's specialization cache (PyHeapTypeObject._spec_cache) ------------------
# id(type) -> (weakref to the type, its version when cached, __getitem__, function version).
# CPython clears the entry in PyType_Modified; a modified type has a new (or no)
# version, so an entry whose version no longer matches is treated as cleared.
_GETITEM_CACHE = {}


def _cache_getitem(t, func, version):
    key = id(t)

    def forget(ref, key=key):
        if _GETITEM_CACHE.get(key, (None,))[0] is ref:
            del _GETITEM_CACHE[key]
    _GETITEM_CACHE[key] = (weakref.ref(t, forget), facts.assign_type_version(t), func, version)


# -- the specializer --------------------------------------------------------------
def _lookup(t, name):
    for klass in t.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return None


@FAMILY.specializer
def specialize(site, container, sub):
    t = type(container)
    if t is list or t is tuple or t is str:
        if type(sub) is int:
            if 0 <= sub < _COMPACT:
                if t is list:
                    return site.specialize(LIST_INT)
                if t is tuple:
                    return site.specialize(TUPLE_INT)
                return site.specialize(STR_INT)
            return site.fail("OUT_OF_RANGE")
        if type(sub) is slice:
            return site.fail({list: "SUBSCR_LIST_SLICE", tuple: "SUBSCR_TUPLE_SLICE",
                              str: "SUBSCR_STRING_SLICE"}[t])
        return site.fail("OTHER")
    if t is dict:
        return site.specialize(DICT)
    getitem = _lookup(t, "__getitem__")
    if type(getitem) is FunctionType:
        if not t.__flags__ & _HEAPTYPE:
            return site.fail("SUBSCR_NOT_HEAP_TYPE")
        code = getitem.__code__
        if code.co_flags & 0xC or code.co_kwonlyargcount:   # *args, **kwargs, keyword-only
            return site.fail("CODE_COMPLEX_PARAMETERS")
        if not code.co_flags & 0x1:                        # CO_OPTIMIZED
            return site.fail("CODE_NOT_OPTIMIZED")
        if code.co_argcount != 2:
            return site.fail("WRONG_NUMBER_ARGUMENTS")
        version = facts.func_version(getitem)
        if not version:
            return site.fail("OUT_OF_VERSIONS")
        _cache_getitem(t, getitem, version)
        return site.specialize(GETITEM)
    return site.fail(failure_kind(t, sub))


def failure_kind(t, sub):
    if t.__module__ == "array" and t.__name__ == "array":
        prefix = "SUBSCR_ARRAY"
    elif hasattr(t, "__buffer__"):
        prefix = "SUBSCR_BUFFER"
    else:
        if type(sub) is int and hasattr(t, "__getitem__") and hasattr(t, "__len__"):
            return "SUBSCR_SEQUENCE_INT"
        return "OTHER"
    if type(sub) is int:
        return prefix + "_INT"
    if type(sub) is slice:
        return prefix + "_SLICE"
    return "OTHER"


# -- members: guards first, then the operation ---------------------------------------
def _item(name, t):
    return FAMILY.member(
        name, stack="container sub -- res",
        guards=[EXACT_TYPE("sub", int), EXACT_TYPE("container", t), NON_NEGATIVE_COMPACT("sub"),
                # (past the end, the subscript raises IndexError)
                INDEX_IN_RANGE("sub", "container").or_raises("IndexError")],
        op="container[sub]", runs_code=False)


LIST_INT = _item("BINARY_SUBSCR_LIST_INT", list)
TUPLE_INT = _item("BINARY_SUBSCR_TUPLE_INT", tuple)
# (an exact dict has no __missing__: a missing key is a plain KeyError; hashing and
# comparing the key may run code of the program)
DICT = FAMILY.member("BINARY_SUBSCR_DICT", stack="container sub -- res",
                     guards=[EXACT_TYPE("container", dict)], op="container[sub]")


# (CPython takes the character from its table of one-character ASCII strings)
ASCII_CHAR = Guard("ASCII_CHAR", "{s}[{i}] < '\\x80'",
                   "the character at index i of s is ASCII (< 128)")
STR_INT = FAMILY.member(
    "BINARY_SUBSCR_STR_INT", stack="container sub -- res",
    guards=[EXACT_TYPE("sub", int), EXACT_TYPE("container", str), NON_NEGATIVE_COMPACT("sub"),
            INDEX_IN_RANGE("sub", "container"), ASCII_CHAR("container", "sub")],
    op="container[sub]", result=str, runs_code=False)


# GETITEM: the container's type holds a cached __getitem__ (see _GETITEM_CACHE) whose
# type and function versions still match; its frame is pushed with (container, sub).
def cached_getitem(t):
    """The __getitem__ cached on type t while t's version and the function's hold, or None."""
    entry = _GETITEM_CACHE.get(id(t))
    if (entry is not None and entry[0]() is t
            and _MEM32[(id(t) + _TYPE_VERSION) >> 2] == entry[1]
            and _MEM32[(id(entry[2]) + _FUNC_VERSION) >> 2] == entry[3]):
        return entry[2]
    return None


GETITEM_CACHED = Guard("GETITEM_CACHED", "(getitem := cached_getitem(type({x}))) is not None",
                       "type(x) caches a __getitem__ and both its versions still match "
                       "(_GUARD_TYPE_VERSION on the type's _spec_cache, the function version)",
                       needs={"cached_getitem": cached_getitem})


def push_getitem_frame(f, stack, site, nxt, getitem):
    sub = stack.pop()
    container = stack.pop()
    f.pc = nxt
    info = functions.TRAMPOLINES.get(id(getitem.__code__))
    if info is None or info.is_generator_like:
        # a function the interpreter does not run (or a generator): call it
        stack.append(getitem(container, sub))
        return nxt
    if info.exact_call_tail is not None:
        args = [container, sub]
        args += info.exact_call_tail
        if info.nfree:
            args += getitem.__closure__
        callee = Frame(info, args, getitem.__globals__, getitem.__builtins__, None, f, f.depth + 1)
        callee.func = getitem
    else:
        callee = functions.new_frame(info, getitem, (container, sub), None, f.depth + 1)
    container = sub = None     # (the callee's frame holds them, as CPython's does)
    return _loop.enter_and_push(f, stack, callee, nxt)


GETITEM = FAMILY.member(
    "BINARY_SUBSCR_GETITEM", stack="container sub -- res",
    guards=[GETITEM_CACHED("container"), STACK_SPACE("function_framesize(getitem)")],
    op=Hand(push_getitem_frame), uses={"function_framesize": _datastack.function_framesize})

FAMILY.inline_members = lambda oparg: (LIST_INT.in_place(0), TUPLE_INT.in_place(0),
                                       STR_INT.in_place(0), DICT.in_place(0))

# the base operation in place in fused runs (fusion.py): the generic instruction's
FAMILY.base_shape = GENERIC[host.OPMAP["BINARY_SUBSCR"]]
