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
from quickening.interp.frame import Frame
from quickening.interp.ops import containers
from quickening.interp.lowering import GENERIC, Shape
from quickening.interp.spec import EXACT_TYPE, INDEX_IN_RANGE, NON_NEGATIVE_COMPACT, Family
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
                return site.specialize("BINARY_SUBSCR_STR_INT", binary_subscr_str_int)
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
        return site.specialize("BINARY_SUBSCR_GETITEM", binary_subscr_getitem)
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


def _deopt(f, stack, site, nxt):
    site.misses += 1
    return binary_subscr(f, stack, site, nxt)


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


def binary_subscr_str_int(f, stack, site, nxt):
    sub = stack[-1]
    container = stack[-2]
    if type(sub) is int and type(container) is str and 0 <= sub < _COMPACT and sub < len(container):
        c = container[sub]
        if c < "\x80":
            del stack[-1]
            stack[-1] = c
            return nxt
    return _deopt(f, stack, site, nxt)




def binary_subscr_getitem(f, stack, site, nxt):
    container = stack[-2]
    t = type(container)
    entry = _GETITEM_CACHE.get(id(t))
    if (entry is not None and entry[0]() is t
            and _MEM32[(id(t) + _TYPE_VERSION) >> 2] == entry[1]):
        func = entry[2]
        if (_MEM32[(id(func) + _FUNC_VERSION) >> 2] == entry[3]
                and _datastack.has_space(f, _datastack.function_framesize(func))):
            sub = stack.pop()
            del stack[-1]
            f.pc = nxt
            info = functions.TRAMPOLINES.get(id(func.__code__))
            if info is None or info.is_generator_like:
                # a function the interpreter does not run (or a generator): call it
                stack.append(func(container, sub))
                return nxt
            if info.exact_call_tail is not None:
                args = [container, sub]
                args += info.exact_call_tail
                if info.nfree:
                    args += func.__closure__
                callee = Frame(info, args, func.__globals__, func.__builtins__, None, f, f.depth + 1)
                callee.func = func
            else:
                callee = functions.new_frame(info, func, (container, sub), None, f.depth + 1)
            container = sub = None     # (the callee's frame holds them, as CPython's does)
            return _loop.enter_and_push(f, stack, callee, nxt)
    return _deopt(f, stack, site, nxt)


# -- in place in fused runs (fusion.py): BINARY_SUBSCR_STR_INT's guard and operation ----------
# (the guard less the bound: an index past the end raises IndexError, which is then
# the member's miss: the run leaves for the handler, which counts it)
def _index_guard(t):
    return f"type({{1}}) is int and type({{0}}) is {t} and 0 <= {{1}} < {_COMPACT}"


# (a character past \x7f is a miss: the guard takes the result, {r0}, to test it)
binary_subscr_str_int.fuse_as = lambda oparg: Shape(
    2, ["{r0}"], guard=_index_guard("str") + " and {1} < len({0}) and ({r0} := {0}[{1}]) < '\\x80'",
    pure=True, result_type=str)
_INLINE = (LIST_INT.in_place(0), TUPLE_INT.in_place(0), binary_subscr_str_int,
           DICT.in_place(0))
FAMILY.inline_members = lambda oparg: _INLINE

# the base operation in place in fused runs (fusion.py): the generic instruction's
FAMILY.base_shape = GENERIC[host.OPMAP["BINARY_SUBSCR"]]
