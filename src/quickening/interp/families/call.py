"""CALL and its 20 members.

The specializer looks at the callable on the stack (and whether the self
slot holds a value: nargs = oparg + 1 then), as CPython 3.13 does:

  exact builtin function        METH_O -> LEN (len) / BUILTIN_O, nargs must be 1;
                                METH_FASTCALL -> ISINSTANCE (isinstance, nargs 2) /
                                BUILTIN_FAST; FASTCALL|KEYWORDS ->
                                BUILTIN_FAST_WITH_KEYWORDS; other -> NON_PY_GENERAL
  Python function               PY_EXACT_ARGS (simple signature, argcount == nargs)
                                or PY_GENERAL; version 0 or non-optimized code fail
  bound method of a Python fn   BOUND_METHOD_EXACT_ARGS / BOUND_METHOD_GENERAL;
                                any other im_func fails (CALL_BOUND_METHOD)
  immutable type                STR_1 / TYPE_1 / TUPLE_1 (oparg == nargs == 1),
                                BUILTIN_CLASS (has vectorcall), else fail
  class, metaclass `type`,      ALLOC_AND_ENTER_INIT (object.__new__, inline values,
  object.__new__                simple Python __init__ taking nargs + 1), the
                                other cases NON_PY_GENERAL with the kind recorded
  method descriptor             METHOD_DESCRIPTOR_NOARGS / _O (LIST_APPEND) / _FAST /
                                _FAST_WITH_KEYWORDS, arity mismatches fail
  anything else                 NON_PY_GENERAL

Members that CPython runs by pushing a frame (PY_*, BOUND_METHOD_*,
ALLOC_AND_ENTER_INIT) push an interpreted Frame and return SWITCH.  A
function that the interpreter does not run (no trampoline: made natively)
is called natively, and a generator-like one returns its native driver
object, as the generic CALL does.  Builtins answered for the interpreted
frame (runtime.INTERCEPTS: super(), locals(), exec ...) are routed there by
every member that may see them.
"""

import builtins
import collections
import sys
import weakref
from types import BuiltinFunctionType, FunctionType, MethodDescriptorType, MethodType, ModuleType

from quickening.interp import facts, functions, generators, host, hostframes, loop, masquerade
from quickening.interp.frame import Frame
from quickening.interp.lowering import Shape, SiteShape
from quickening.interp.ops import calls
from quickening.interp.ops.registry import INTERCEPTED_DEFS, INTERCEPTS, NULL, SWITCH
from quickening.interp.quicken import pack32
from quickening.interp.spec import IS, Family, Guard
from quickening.interp.typewatch import token
from quickening.interp.families._datastack import framesize as _framesize, has_space as _has_space
from quickening.interp.families import _datastack
from quickening.interp.families._datastack import state as _ds_state
from quickening.interp.facts import (MEM32 as _MEM32, CFUNC_ML as _CFUNC_ML, FUNC_VERSION as _FV,
                                     TYPE_VERSION_TAG as _TV, METH_O as _METH_O,
                                     METH_NOARGS as _METH_NOARGS, METH_FASTCALL as _METH_FASTCALL,
                                     METH_CONVENTION_MASK as _MASK, cfunction_flags as _cflags,
                                     method_descr_flags as _dflags)

FAMILY = Family("CALL", stats_operands=-2)     # (--stats records the callable's type)

_ML_POINTERS = facts.words_from(_CFUNC_ML)      # [id(builtin) >> 3]: its C function's definition
# 32-bit words starting at the version field's offset: function versions by id(fn) >> 2
_FVS = facts.words_from(_FV, 4)
_METH_FAST_KW = facts.METH_FASTCALL | facts.METH_KEYWORDS
_TYPE_SUBCLASS = 1 << 31
_CO_OPTIMIZED = 0x0001
_CO_COMPLEX = 0x0004 | 0x0008          # CO_VARARGS | CO_VARKEYWORDS
_POP_TOP = host.OPMAP["POP_TOP"]

# interp->callable_cache: the objects captured when the interpreter started
_LEN = builtins.len
_ISINSTANCE = builtins.isinstance
_LIST_APPEND = list.append
_object_new = object.__new__
_getrecursionlimit = sys.getrecursionlimit


# -- what the members call ----------------------------------------------------------
TRAMPOLINES = functions.TRAMPOLINES
_generic = calls.call
_new_frame = functions.new_frame
_wrap = generators.wrap
_enter, _enter_and_push = loop.enter, loop.enter_and_push
# library code that looks at its caller's frame is called through a native stand-in
# of the interpreted frame, as the generic CALL does
_masquerade, _call_as = masquerade.wants, masquerade.call_as


# Python functions the interpreter installs in place of builtins (sys._getframe,
# sys._getframemodulename, warnings.warn: hostframes.py), by id -> the builtin.
# CPython calls the builtin, so a site calling a stand-in specializes (and
# guards) as for the builtin it stands for.
STANDINS = {}
for _standin, _orig in ((hostframes.getframe, hostframes._orig_getframe),
                        (hostframes.getframemodulename, hostframes._orig_getframemodulename),
                        (hostframes.warn, hostframes._orig_warn)):
    if _orig is not None and type(_orig) is BuiltinFunctionType:
        STANDINS[id(_standin)] = _orig


# -- the base instruction --------------------------------------------------------------
@FAMILY.adaptive()
def call(f, stack, site, nxt):
    cells = site.cells
    counter = cells[site.ci]
    if counter < 16:
        specialize(site, f, stack)
        return site.pc
    cells[site.ci] = counter - 16
    return _generic(f, stack, site.oparg, nxt)


def _deopt(f, stack, site, nxt):
    site.misses += 1
    return call(f, stack, site, nxt)


# -- the specializer ------------------------------------------------------------------
def specialize(site, f, stack):
    oparg = site.oparg
    base = len(stack) - oparg - 2
    callable_ = stack[base]
    nargs = oparg if stack[base + 1] is NULL else oparg + 1
    t = type(callable_)
    if t is BuiltinFunctionType:
        return _specialize_c_call(site, callable_, nargs)
    if t is FunctionType:
        orig = STANDINS.get(id(callable_))
        if orig is not None:
            return _specialize_c_call(site, orig, nargs, callable_)
        return _specialize_py_call(site, callable_, nargs, False)
    if t.__flags__ & _TYPE_SUBCLASS:
        return _specialize_class_call(site, callable_, nargs)
    if t is MethodDescriptorType:
        return _specialize_method_descriptor(site, callable_, nargs)
    if t is MethodType:
        func = callable_.__func__
        if type(func) is FunctionType:
            return _specialize_py_call(site, func, nargs + 1, True)   # self is an argument
        return site.fail("CALL_BOUND_METHOD")
    return site.specialize("CALL_NON_PY_GENERAL", _fast_general(site, callable_, stack[base + 1]))


def _record(site, kind):
    """A failure kind pystats records although the site still specializes."""
    if site.failures is None:
        site.failures = collections.Counter()
    site.failures[kind] += 1


def _function_kind(code):
    if code.co_flags & _CO_COMPLEX or code.co_kwonlyargcount:
        return "CODE_COMPLEX_PARAMETERS"
    if not code.co_flags & _CO_OPTIMIZED:
        return "CODE_NOT_OPTIMIZED"
    return None   # a simple function


def _py_cache(func, version):
    """What PY_* members keep: the version and how to enter the code it stands for."""
    code = func.__code__
    info = TRAMPOLINES.get(id(code))
    enterable = info is not None and not info.is_generator_like
    tail = info.exact_call_tail if enterable else None
    return (version, code.co_argcount, info, tail, bool(enterable and info.nfree), enterable)


def _specialize_py_call(site, func, nargs, bound_method):
    # PEP 523 (a custom frame evaluator) is never active in this process
    kind = _function_kind(func.__code__)
    if kind == "CODE_NOT_OPTIMIZED":
        return site.fail(kind)
    argcount = func.__code__.co_argcount if kind is None else -1
    version = _FVS[id(func) >> 2]
    if version == 0:
        return site.fail("OUT_OF_VERSIONS")
    cache = _py_cache(func, version)
    cells = pack32(version)
    if argcount == nargs:
        if bound_method:
            return site.specialize("CALL_BOUND_METHOD_EXACT_ARGS",
                                   _make_bound_method_exact_args(site, cache, func), cache, cells)
        return site.specialize("CALL_PY_EXACT_ARGS", _make_py_exact_args(site, cache, func),
                               cache, cells)
    if bound_method:
        return site.specialize("CALL_BOUND_METHOD_GENERAL", bound_method_general, cache, cells)
    return site.specialize("CALL_PY_GENERAL",
                           _make_py_general(site, cache, func, kind is None, nargs), cache, cells)


def _specialize_c_call(site, fn, nargs, standin=None):
    """fn: an exact builtin function; standin: the interpreter's Python function
    standing for it, which is what the site calls (see STANDINS)."""
    if not facts.cfunction_has_code(fn):
        return site.fail("OTHER")
    raw = _cflags(fn)
    flags = raw & _MASK
    # The members guard on the exact flags; the callable seen here skips that
    # check (its flags cannot change).  It is kept only when that keeps nothing
    # alive: a module function, not a builtin method bound to some object.
    owner = fn.__self__
    keep = raw == flags and (owner is None or type(owner) is ModuleType)
    if standin is not None:
        fn = standin
    special = INTERCEPTS.get(id(fn))
    cache = (fn if keep else None, special)
    if flags == _METH_O:
        if nargs != 1:
            return site.fail("WRONG_NUMBER_ARGUMENTS")
        if fn is _LEN:
            return site.specialize("CALL_LEN", _fast_native(site, _LEN, None, call_len))
        return site.specialize("CALL_BUILTIN_O",
                               _fast_native(site, cache[0], special, builtin_o, fn), cache)
    if flags == _METH_FASTCALL:
        if nargs == 2 and fn is _ISINSTANCE:
            return site.specialize("CALL_ISINSTANCE",
                                   _fast_native(site, _ISINSTANCE, None, call_isinstance))
        return site.specialize("CALL_BUILTIN_FAST",
                               _fast_native(site, cache[0], special, builtin_fast, fn), cache)
    if flags == _METH_FAST_KW:
        return site.specialize("CALL_BUILTIN_FAST_WITH_KEYWORDS",
                               _fast_native(site, cache[0], special, builtin_fast_with_keywords, fn),
                               cache)
    return site.specialize("CALL_NON_PY_GENERAL", non_py_general if special is not None
                           else _fast_bound_native(site, fn, non_py_general))


def _specialize_class_call(site, tp, nargs):
    flags = tp.__flags__
    if flags & facts.TPFLAGS_IMMUTABLETYPE:
        if nargs == 1 and site.oparg == 1:
            member = _ONE_ARGUMENT.get(tp)
            if member is not None:
                return site.specialize(member)
        if facts.type_has_vectorcall(tp):
            special = INTERCEPTS.get(id(tp))
            return site.specialize("CALL_BUILTIN_CLASS",
                                   _fast_native(site, tp, special, builtin_class), (tp, special))
        return site.fail("CALL_STR" if tp is str else "CALL_CLASS_NO_VECTORCALL")
    if type(tp) is not type:
        return site.specialize("CALL_NON_PY_GENERAL", non_py_general)
    if facts.type_new_is_object_new(tp):
        init = _init_for_simple_managed_python_class(site, tp)
        version = facts.type_version(tp)
        if version == 0:
            return site.fail("OUT_OF_VERSIONS")
        if init is not None:
            if init.__code__.co_argcount != nargs + 1:
                return site.fail("WRONG_NUMBER_ARGUMENTS")
            cache = _init_cache(tp, version, init)
            return site.specialize("CALL_ALLOC_AND_ENTER_INIT",
                                   _make_alloc_and_enter_init(site, tp, cache), cache,
                                   pack32(version))
    return site.specialize("CALL_NON_PY_GENERAL", _fast_general(site, tp, NULL))


def _lookup(tp, name):
    """_PyType_Lookup: the name in the MRO's dicts, no descriptor protocol."""
    for klass in tp.__mro__:
        d = klass.__dict__
        if name in d:
            return d[name]
    return None


def _init_for_simple_managed_python_class(site, tp):
    flags = tp.__flags__
    if not facts.type_alloc_is_generic(tp):
        _record(site, "OVERRIDDEN")
        return None
    if not flags & facts.TPFLAGS_INLINE_VALUES:
        _record(site, "CALL_INIT_NOT_INLINE_VALUES")
        return None
    if not flags & facts.TPFLAGS_HEAPTYPE:
        _record(site, "EXPECTED_ERROR")
        return None
    init = _lookup(tp, "__init__")
    facts.assign_type_version(tp)     # the lookup goes through the type cache
    if type(init) is not FunctionType:
        _record(site, "CALL_INIT_NOT_PYTHON")
        return None
    if _function_kind(init.__code__) is not None:
        _record(site, "CALL_INIT_NOT_SIMPLE")
        return None
    return init


def _specialize_method_descriptor(site, descr, nargs):
    raw = _dflags(descr)
    flags = raw & _MASK
    special = INTERCEPTS.get(id(descr))
    cache = (descr if raw == flags else None, descr.__objclass__, special)

    def member(name, general):
        return site.specialize(name, _fast_descriptor(site, cache[0], cache[1], special, general),
                               cache)
    if flags == _METH_NOARGS:
        if nargs != 1:
            return site.fail("WRONG_NUMBER_ARGUMENTS")
        return member("CALL_METHOD_DESCRIPTOR_NOARGS", method_descriptor_noargs)
    if flags == _METH_O:
        if nargs != 2:
            return site.fail("WRONG_NUMBER_ARGUMENTS")
        info = site.info
        pop = site.nxt < len(info.opcodes) and info.opcodes[site.nxt] == _POP_TOP
        if descr is _LIST_APPEND and site.oparg == 1 and pop:
            return site.specialize("CALL_LIST_APPEND", list_append)
        return member("CALL_METHOD_DESCRIPTOR_O", method_descriptor_o)
    if flags == _METH_FASTCALL:
        return member("CALL_METHOD_DESCRIPTOR_FAST", method_descriptor_fast)
    if flags == _METH_FAST_KW:
        return member("CALL_METHOD_DESCRIPTOR_FAST_WITH_KEYWORDS",
                      method_descriptor_fast_with_keywords)
    return site.specialize("CALL_NON_PY_GENERAL", non_py_general)


# -- fast paths: the callable seen at specialization, the stack shape of this site -------
def _fast_native(site, callable_, special, general, seen=None):
    """A member's handler for this site: when the callable is the one seen at
    specialization (whose kind and flags cannot change) and the self slot is
    empty, call it directly; anything else goes through `general`, the
    member's full guards."""
    if special is not None:
        return general
    if callable_ is None:
        return _fast_bound_native(site, seen, general)
    if _masquerade(callable_):
        return general
    oparg = site.oparg
    if oparg == 1:
        def fast(f, stack, site, nxt):
            if stack[-3] is callable_ and stack[-2] is NULL:
                arg = stack.pop()
                del stack[-1]
                f.pc = nxt
                stack[-1] = callable_(arg)
                return nxt
            return general(f, stack, site, nxt)
    elif oparg == 2:
        def fast(f, stack, site, nxt):
            if stack[-4] is callable_ and stack[-3] is NULL:
                b = stack.pop()
                a = stack.pop()
                del stack[-1]
                f.pc = nxt
                stack[-1] = callable_(a, b)
                return nxt
            return general(f, stack, site, nxt)
    else:
        n = oparg + 2

        def fast(f, stack, site, nxt):
            base = len(stack) - n
            if stack[base] is callable_ and stack[base + 1] is NULL:
                args = stack[base + 2:]
                del stack[base + 1:]
                f.pc = nxt
                stack[-1] = callable_(*args)
                return nxt
            return general(f, stack, site, nxt)
    fast.__name__ = general.__name__
    return NATIVE_IN_PLACE.facts(fast, callable_)


def _fast_bound_native(site, fn, general):
    """A member's handler for a site calling a builtin bound to some object (not
    kept: that would keep the object alive), with the self slot empty: any builtin
    made of the same C function (its PyMethodDef, whose flags cannot change) is
    called directly, unless an intercepted builtin shares that definition."""
    if type(fn) is not BuiltinFunctionType or general is builtin_o and site.oparg != 1:
        return general     # (METH_O: one argument, which only oparg 1 with no self gives)
    ml = facts.cfunction_def(fn)
    if ml in INTERCEPTED_DEFS or _masquerade(fn):
        return general
    n = site.oparg + 2

    def fast(f, stack, site, nxt):
        base = len(stack) - n
        fn = stack[base]
        if (type(fn) is BuiltinFunctionType and _ML_POINTERS[id(fn) >> 3] == ml
                and stack[base + 1] is NULL):
            args = stack[base + 2:]
            del stack[base:]
            f.pc = nxt
            stack.append(fn(*args))
            return nxt
        return general(f, stack, site, nxt)
    fast.__name__ = general.__name__
    return NATIVE_DEF_IN_PLACE.facts(fast, BuiltinFunctionType, _ML_POINTERS, ml)


def _fast_descriptor(site, descr, objclass, special, general):
    """METHOD_DESCRIPTOR_* for this site: the descriptor seen at specialization
    called on (self, args...) with self of exactly its class."""
    if descr is None or special is not None or _masquerade(descr):
        return general
    oparg = site.oparg
    if oparg == 0:
        def fast(f, stack, site, nxt):
            if stack[-2] is descr:
                self_ = stack[-1]
                if type(self_) is objclass:
                    del stack[-1]
                    f.pc = nxt
                    stack[-1] = descr(self_)
                    return nxt
            return general(f, stack, site, nxt)
    elif oparg == 1:
        def fast(f, stack, site, nxt):
            if stack[-3] is descr:
                self_ = stack[-2]
                if type(self_) is objclass:
                    arg = stack.pop()
                    del stack[-1]
                    f.pc = nxt
                    stack[-1] = descr(self_, arg)
                    return nxt
            return general(f, stack, site, nxt)
    else:
        n = oparg + 2

        def fast(f, stack, site, nxt):
            base = len(stack) - n
            if stack[base] is descr and type(stack[base + 1]) is objclass:
                args = stack[base + 1:]
                del stack[base + 1:]
                f.pc = nxt
                stack[-1] = descr(*args)
                return nxt
            return general(f, stack, site, nxt)
    fast.__name__ = general.__name__
    return DESCRIPTOR_IN_PLACE.facts(fast, descr, objclass)


def _fast_general(site, callable_, self_or_null):
    """CALL_NON_PY_GENERAL's handler for this site: a callable of the type seen at
    specialization (a class, a slot wrapper ...), one of CPython's own types, so
    that what the member does with it cannot change: called natively as the member
    calls it, with the self slot as it was then (empty or not); anything else goes
    through the member's full guards.  (Not for a type whose instances the
    interpreter calls on the program's behalf: intercepted builtins, by id;
    masquerade's functions and metaclasses.)"""
    tp = type(callable_)
    if (tp is FunctionType or tp is MethodType or tp.__flags__ & facts.TPFLAGS_HEAPTYPE
            or _masquerade(callable_) or hasattr(callable_, "__func__")):
        return non_py_general
    n = site.oparg + 2
    selfless = self_or_null is NULL
    first = 2 if selfless else 1        # (the arguments: after the self slot, or from it)

    def fast(f, stack, site, nxt):
        base = len(stack) - n
        fn = stack[base]
        if type(fn) is tp and id(fn) not in INTERCEPTS and (stack[base + 1] is NULL) is selfless:
            args = stack[base + first:]
            del stack[base:]
            f.pc = nxt
            stack.append(fn(*args))
            return nxt
        return non_py_general(f, stack, site, nxt)
    kind = GENERAL_IN_PLACE if selfless else GENERAL_SELF_IN_PLACE
    fast.__name__ = non_py_general.__name__
    return kind.facts(fast, tp, INTERCEPTS)


# In place in fused runs (fusion.py): the callable seen at specialization ({c0}),
# called with the operands as they are.  (f.pc as the handlers set it.  A native
# callable may call interpreted code back, which may change the form of a site of
# this run or set the frame's trace function: the run then goes on through the
# loop, {remade}.)
def _native_call_shape(oparg, call, guard):
    return Shape(oparg + 2, ["{r0}"], consts=None, guard=guard, effects=[
        "f.pc = {nxt}", "{r0} = " + call,
        "if {remade}: {kept}stack.append({r0}); return TRACE"])


def _arguments(first, oparg):
    return ", ".join(f"{{{i}}}" for i in range(first, oparg + 2))


NATIVE_IN_PLACE = SiteShape(lambda oparg: _native_call_shape(
    oparg, "{c0}(" + _arguments(2, oparg) + ")", "{0} is {c0} and {1} is NULL"))
# (a builtin bound to some object: its C function's definition, {c2})
NATIVE_DEF_IN_PLACE = SiteShape(lambda oparg: _native_call_shape(
    oparg, "{0}(" + _arguments(2, oparg) + ")",
    "type({0}) is {c0} and {c1}[id({0}) >> 3] == {c2} and {1} is NULL"))
DESCRIPTOR_IN_PLACE = SiteShape(lambda oparg: _native_call_shape(
    oparg, "{c0}(" + _arguments(1, oparg) + ")", "{0} is {c0} and type({1}) is {c1}"))
# (CALL_NON_PY_GENERAL: a callable of the type seen, {c0}, not intercepted, {c1})
GENERAL_IN_PLACE = SiteShape(lambda oparg: _native_call_shape(
    oparg, "{0}(" + _arguments(2, oparg) + ")",
    "type({0}) is {c0} and id({0}) not in {c1} and {1} is NULL"))
GENERAL_SELF_IN_PLACE = SiteShape(lambda oparg: _native_call_shape(
    oparg, "{0}(" + _arguments(1, oparg) + ")",
    "type({0}) is {c0} and id({0}) not in {c1} and {1} is not NULL"))


# -- helpers shared by the members ----------------------------------------------------
def _call_native(f, stack, func, args, special, nxt):
    """Call a callable natively (or through its intercept, or as if from the
    interpreted frame) and push the result."""
    f.pc = nxt
    if special is not None:
        stack.append(special(f, func, args, None))
    elif _masquerade(func):
        stack.append(_call_as(f, func, args, None))
    else:
        stack.append(func(*args))
    return nxt


def _enter_other(f, stack, func, info, args, nxt):
    """A Python function the fast path does not enter: native, or generator-like."""
    if info is None:
        return _call_native(f, stack, func, args, INTERCEPTS.get(id(func)), nxt)
    frame = _new_frame(info, func, args, None, f.depth + 1)
    f.pc = nxt
    if info.is_generator_like:
        stack.append(_wrap(frame))
        return nxt
    f.callee = frame     # (through the loop: this handler's `args` must not outlive the call)
    return SWITCH


def _deep(f):
    """_CHECK_STACK_SPACE's recursion headroom: deopt next to the limit."""
    return f.depth + 2 > _getrecursionlimit()


def _room(f, func):
    """_CHECK_STACK_SPACE's data-stack check for calling func (see _datastack)."""
    return _has_space(f, _datastack.function_framesize(func))


# -- members that push a frame -------------------------------------------------------------
def py_exact_args(f, stack, site, nxt):
    oparg = site.oparg
    base = len(stack) - oparg - 2
    func = stack[base]
    version, argcount, info, tail, has_free, _ = site.cache
    if type(func) is FunctionType and _FVS[id(func) >> 2] == version:
        if stack[base + 1] is NULL:
            if argcount == oparg and (f.depth < 900 or not _deep(f)) and _room(f, func):
                args = stack[base + 2:]
                del stack[base:]
                if tail is None:
                    return _enter_other(f, stack, func, info, args, nxt)
                args += tail
                if has_free:
                    args += func.__closure__
                f.pc = nxt
                callee = Frame(info, args, func.__globals__, func.__builtins__, None, f,
                               f.depth + 1)
                return _enter_and_push(f, stack, callee, nxt)
        elif argcount == oparg + 1 and (f.depth < 900 or not _deep(f)) and _room(f, func):
            args = stack[base + 1:]
            del stack[base:]
            if tail is None:
                return _enter_other(f, stack, func, info, args, nxt)
            args += tail
            if has_free:
                args += func.__closure__
            f.pc = nxt
            callee = Frame(info, args, func.__globals__, func.__builtins__, None, f,
                           f.depth + 1)
            return _enter_and_push(f, stack, callee, nxt)
    return _deopt(f, stack, site, nxt)


def _version_view(func):
    """func_version of this one function as a 1-item view (cheaper than MEM32 by id)."""
    address = id(func) + _FV
    return facts.MEM8[address:address + 4].cast("I")


def _make_py_exact_args(site, cache, seen):
    """CALL_PY_EXACT_ARGS for this site: the common case (an interpreted
    function, self slot as at specialization, far from the recursion limit)
    with everything it needs in closure cells; the rest goes to the full member.

    The function version is CPython's guard.  For the function seen at
    specialization (held weakly) it is read through a view made once; for any
    other function object through its address."""
    version, argcount, info, tail, has_free, _ = cache
    oparg = site.oparg
    if argcount not in (oparg, oparg + 1) or info is None:
        return py_exact_args
    n = oparg + 2
    seen_ref = weakref.ref(seen)
    seen_version = _version_view(seen)
    size = _framesize(info.code)     # the version pins the code
    if tail is None:
        if not info.is_generator_like:
            return py_exact_args
        # a generator-like function: its frame is made, not run (RETURN_GENERATOR
        # leaves at once with the generator object), after the same checks
        self_slot = argcount == oparg + 1     # o.m(...): (function, self, args...)

        def call_py_exact_args_generator(f, stack, site, nxt):
            base = len(stack) - n
            func = stack[base]
            if ((func is seen_ref() and seen_version[0] == version
                 or type(func) is FunctionType and _FVS[id(func) >> 2] == version)
                    and (stack[base + 1] is not NULL) is self_slot and f.depth < 900
                    and size < (ds := f.ds or _ds_state(f))[1] - ds[0]):
                args = stack[base + 1:] if self_slot else stack[base + 2:]
                del stack[base:]
                f.pc = nxt
                stack.append(_wrap(_new_frame(info, func, args, None, f.depth + 1)))
                return nxt
            return py_exact_args(f, stack, site, nxt)
        return call_py_exact_args_generator
    facts_ = (seen_ref, seen_version, version, _FVS, size, _ds_state, FunctionType, Frame, info, tail,
              _enter, _deep)

    if argcount == oparg + 1:
        # a method called as o.m(...): (function, self, args...)
        def call_py_exact_args(f, stack, site, nxt):
            base = len(stack) - n
            func = stack[base]
            if ((func is seen_ref() and seen_version[0] == version
                 or type(func) is FunctionType and _FVS[id(func) >> 2] == version)
                    and stack[base + 1] is not NULL and f.depth < 900
                    and size < (ds := f.ds or _ds_state(f))[1] - ds[0]):
                args = stack[base + 1:]
                del stack[base:]
                args += tail
                if has_free:
                    args += func.__closure__
                callee = Frame(info, args, func.__globals__, func.__builtins__, None, f,
                               f.depth + 1)
                callee.ds = (ds[0] + size, ds[1])
                f.pc = nxt
                return _enter_and_push(f, stack, callee, nxt)
            return py_exact_args(f, stack, site, nxt)
        kind = PY_EXACT_ARGS_SELF_FREE_IN_PLACE if has_free else PY_EXACT_ARGS_SELF_IN_PLACE
        return kind.facts(call_py_exact_args, *facts_)

    if oparg == 1:
        def call_py_exact_args(f, stack, site, nxt):
            func = stack[-3]
            if ((func is seen_ref() and seen_version[0] == version
                 or type(func) is FunctionType and _FVS[id(func) >> 2] == version)
                    and stack[-2] is NULL and f.depth < 900
                    and size < (ds := f.ds or _ds_state(f))[1] - ds[0]):
                args = [stack.pop()]
                del stack[-2:]
                args += tail
                if has_free:
                    args += func.__closure__
                callee = Frame(info, args, func.__globals__, func.__builtins__, None, f,
                               f.depth + 1)
                callee.ds = (ds[0] + size, ds[1])
                f.pc = nxt
                return _enter_and_push(f, stack, callee, nxt)
            return py_exact_args(f, stack, site, nxt)
        kind = PY_EXACT_ARGS_FREE_IN_PLACE if has_free else PY_EXACT_ARGS_IN_PLACE
        return kind.facts(call_py_exact_args, *facts_)

    def call_py_exact_args(f, stack, site, nxt):
        base = len(stack) - n
        func = stack[base]
        if ((func is seen_ref() and seen_version[0] == version
             or type(func) is FunctionType and _FVS[id(func) >> 2] == version)
                and stack[base + 1] is NULL and f.depth < 900
                    and size < (ds := f.ds or _ds_state(f))[1] - ds[0]):
            args = stack[base + 2:]
            del stack[base:]
            args += tail
            if has_free:
                args += func.__closure__
            callee = Frame(info, args, func.__globals__, func.__builtins__, None, f,
                           f.depth + 1)
            callee.ds = (ds[0] + size, ds[1])
            f.pc = nxt
            return _enter_and_push(f, stack, callee, nxt)
        return py_exact_args(f, stack, site, nxt)
    kind = PY_EXACT_ARGS_FREE_IN_PLACE if has_free else PY_EXACT_ARGS_IN_PLACE
    return kind.facts(call_py_exact_args, *facts_)


# In place in fused runs (fusion.py): the guard of the closures above, and the
# callee's frame made from the operands as they are (no stack traffic), run right
# there by loop.enter(); the run goes on with its value, or returns RESUME when the
# loop must take over.  Facts: {c0} the weak reference to the function seen, {c1} its
# version view, {c2} the version, {c3} every function's version (by address), {c4}
# the callee's data-stack size, {c5} _ds_state, {c6} FunctionType, {c7} Frame, {c8}
# the callee's CodeInfo, {c9} its locals after the arguments, {c10} loop.enter, {c11}
# _deep.  (The guard is the member's, exactly: a failure is a miss, which the
# base instruction then runs in place.)
def _exact_args_locals(oparg, with_self, free=False):
    """The template of the callee's locals list: its arguments, then NULLs (and cells)."""
    args = ", ".join(f"{{{i}}}" for i in range(1 if with_self else 2, oparg + 2))
    locals_ = f"[{args}{{c9_items}}" if args else "[*{c9}"
    return locals_ + ("]" if not free else ", *{0}.__closure__]")


def _exact_args_shape(oparg, with_self, free=False):
    locals_ = _exact_args_locals(oparg, with_self, free)
    return Shape(
        oparg + 2, ["{r0}"], consts=None,
        guard="({0} is {c0}() and {c1}[0] == {c2} or type({0}) is {c6} and {c3}[id({0}) >> 2] == {c2})"
              f" and {{1}} is {'not ' if with_self else ''}NULL and (f.depth < 900 or not {{c11}}(f))"
              " and {c4} < (ds := f.ds or {c5}(f))[1] - ds[0]",
        effects=["callee = {c7}({c8}, " + locals_ + ", {0}.__globals__, "
                 "{0}.__builtins__, None, f, f.depth + 1)",
                 "callee.ds = (ds[0] + {c4}, ds[1])",
                 "f.pc = {nxt}",
                 "{drop}{r0} = {c10}(f, callee)",
                 "if {r0} is NULL: f.callee = callee; {kept}return RESUME",
                 "del callee",
                 "if {remade}: {kept}stack.append({r0}); return TRACE"])


# The base instruction in place in fused runs, for its commonest case: an
# interpreted function with a simple signature (a polymorphic site missing, a
# failed one), its frame pushed and run here as the generic CALL pushes it; {c0}
# FunctionType, {c1} TRAMPOLINES.get, {c2} Frame, {c3} loop.enter.  Anything else
# (the guard fails) goes through the table.
def _base_shape(oparg, arg):
    args = "".join(f", {{{i}}}" for i in range(2, oparg + 2))
    rest = "*ci.exact_call_tail, *({0}.__closure__ or ())]"
    locals_ = f"([{{1}}{args}, {rest} if {{1}} is not NULL else [{args[2:]}{', ' if args else ''}{rest})"
    return Shape(
        oparg + 2, ["{r0}"],
        consts=(FunctionType, functions.TRAMPOLINES.get, Frame, loop.enter),
        guard="type({0}) is {c0} and (ci := {c1}(id({0}.__code__))) is not None"
              " and ci.exact_call_tail is not None"
              f" and ci.argcount == ({oparg + 1} if {{1}} is not NULL else {oparg})",
        effects=["callee = {c2}(ci, " + locals_ + ", {0}.__globals__, {0}.__builtins__, "
                 "None, f, f.depth + 1)",
                 "ci = NULL",
                 "f.pc = {nxt}",
                 "{drop}{r0} = {c3}(f, callee)",
                 "if {r0} is NULL: f.callee = callee; {kept}return RESUME",
                 "del callee",
                 "if {remade}: {kept}stack.append({r0}); return TRACE"])


FAMILY.base_shape = _base_shape


def _exact_args_inlined(oparg, with_self):
    """How a fused run may write the callee into itself (fusion._inlining_call): the
    facts' CodeInfo ({c8}), and the callee's frame made as the effects above make it."""
    return {"info_at": 8, "info": "{c8}", "locals": _exact_args_locals(oparg, with_self),
            "ds": "(ds[0] + {c4}, ds[1])", "new_frame": "{c7}"}


PY_EXACT_ARGS_IN_PLACE = SiteShape(lambda oparg: _exact_args_shape(oparg, False),
                                   lambda oparg: _exact_args_inlined(oparg, False))
PY_EXACT_ARGS_SELF_IN_PLACE = SiteShape(lambda oparg: _exact_args_shape(oparg, True),
                                        lambda oparg: _exact_args_inlined(oparg, True))
# (a closure: its cells go in the free slots after the other locals)
PY_EXACT_ARGS_FREE_IN_PLACE = SiteShape(lambda oparg: _exact_args_shape(oparg, False, True))
PY_EXACT_ARGS_SELF_FREE_IN_PLACE = SiteShape(lambda oparg: _exact_args_shape(oparg, True, True))
FAMILY.inline_members = lambda oparg: (PY_EXACT_ARGS_IN_PLACE, PY_EXACT_ARGS_SELF_IN_PLACE,
                                       PY_EXACT_ARGS_FREE_IN_PLACE, PY_EXACT_ARGS_SELF_FREE_IN_PLACE,
                                       NATIVE_IN_PLACE, NATIVE_DEF_IN_PLACE, DESCRIPTOR_IN_PLACE,
                                       ALLOC_AND_ENTER_INIT_IN_PLACE)


def _make_bound_method_exact_args(site, cache, seen):
    version, argcount, info, tail, has_free, _ = cache
    oparg = site.oparg
    if tail is None or has_free or argcount != oparg + 1:
        return bound_method_exact_args
    n = oparg + 2
    seen_ref = weakref.ref(seen)
    seen_version = _version_view(seen)
    size = _framesize(info.code)

    def call_bound_method_exact_args(f, stack, site, nxt):
        base = len(stack) - n
        method = stack[base]
        if type(method) is MethodType and stack[base + 1] is NULL:
            func = stack[base] = method.__func__
            stack[base + 1] = method.__self__
            if ((func is seen_ref() and seen_version[0] == version
                 or type(func) is FunctionType and _FVS[id(func) >> 2] == version)
                    and f.depth < 900
                    and size < (ds := f.ds or _ds_state(f))[1] - ds[0]):
                args = stack[base + 1:]
                del stack[base:]
                args += tail
                callee = Frame(info, args, func.__globals__, func.__builtins__, None, f,
                               f.depth + 1)
                callee.ds = (ds[0] + size, ds[1])
                f.pc = nxt
                return _enter_and_push(f, stack, callee, nxt)
            return _bound_method_unpacked(f, stack, site, nxt)
        return _deopt(f, stack, site, nxt)
    return call_bound_method_exact_args


def _bound_method_unpacked(f, stack, site, nxt):
    """BOUND_METHOD_EXACT_ARGS after the method was unpacked: the remaining guards."""
    oparg = site.oparg
    base = len(stack) - oparg - 2
    func = stack[base]
    version, argcount, info, tail, has_free, _ = site.cache
    if (type(func) is FunctionType and _FVS[id(func) >> 2] == version
            and argcount == oparg + 1 and (f.depth < 900 or not _deep(f))
            and _room(f, func)):
        args = stack[base + 1:]
        del stack[base:]
        if tail is None:
            return _enter_other(f, stack, func, info, args, nxt)
        args += tail
        if has_free:
            args += func.__closure__
        f.pc = nxt
        callee = Frame(info, args, func.__globals__, func.__builtins__, None, f,
                       f.depth + 1)
        return _enter_and_push(f, stack, callee, nxt)
    return _deopt(f, stack, site, nxt)


def bound_method_exact_args(f, stack, site, nxt):
    oparg = site.oparg
    base = len(stack) - oparg - 2
    method = stack[base]
    if stack[base + 1] is NULL and type(method) is MethodType:
        # unpack first: a guard failing below leaves (function, self) for CALL
        stack[base] = method.__func__
        stack[base + 1] = method.__self__
        return _bound_method_unpacked(f, stack, site, nxt)
    return _deopt(f, stack, site, nxt)


def _make_py_general(site, cache, seen, simple, nargs):
    """CALL_PY_GENERAL for this site when the function has a simple signature
    and is called with fewer arguments than it has parameters (the rest from
    its __defaults__, read on each call: functions sharing a version may have
    different defaults); everything else goes to the full member."""
    version, argcount, info, tail, has_free, enterable = cache
    oparg = site.oparg
    if not simple or tail is None or has_free or nargs >= argcount:
        return py_general
    need = argcount - nargs
    with_self = nargs == oparg + 1
    n = oparg + 2
    seen_ref = weakref.ref(seen)
    seen_version = _version_view(seen)

    def call_py_general(f, stack, site, nxt):
        base = len(stack) - n
        func = stack[base]
        if ((func is seen_ref() and seen_version[0] == version
             or type(func) is FunctionType and _FVS[id(func) >> 2] == version)
                and (stack[base + 1] is not NULL) is with_self):
            defaults = func.__defaults__
            if defaults is not None and len(defaults) >= need:
                args = stack[base + 1:] if with_self else stack[base + 2:]
                del stack[base:]
                args += defaults[len(defaults) - need:]
                args += tail
                f.pc = nxt
                callee = Frame(info, args, func.__globals__, func.__builtins__, None, f,
                               f.depth + 1)
                return _enter_and_push(f, stack, callee, nxt)
        return py_general(f, stack, site, nxt)
    return call_py_general


def py_general(f, stack, site, nxt):
    oparg = site.oparg
    base = len(stack) - oparg - 2
    func = stack[base]
    cache = site.cache
    if type(func) is FunctionType and _FVS[id(func) >> 2] == cache[0]:
        args = stack[base + 2:] if stack[base + 1] is NULL else stack[base + 1:]
        del stack[base:]
        info = cache[2]
        if not cache[5]:
            return _enter_other(f, stack, func, info, args, nxt)
        f.callee = _new_frame(info, func, args, None, f.depth + 1)
        f.pc = nxt
        return SWITCH
    return _deopt(f, stack, site, nxt)


def bound_method_general(f, stack, site, nxt):
    oparg = site.oparg
    base = len(stack) - oparg - 2
    method = stack[base]
    if type(method) is MethodType:
        func = method.__func__
        cache = site.cache
        if (type(func) is FunctionType and _FVS[id(func) >> 2] == cache[0]
                and stack[base + 1] is NULL):
            args = stack[base + 1:]
            args[0] = method.__self__
            del stack[base:]
            info = cache[2]
            if not cache[5]:
                return _enter_other(f, stack, func, info, args, nxt)
            f.callee = _new_frame(info, func, args, None, f.depth + 1)
            f.pc = nxt
            return SWITCH
    return _deopt(f, stack, site, nxt)


class _InitCleanup:
    """The shim frame CALL_ALLOC_AND_ENTER_INIT pushes under __init__ (the new
    object is already on the caller's stack): check that __init__ returned None."""
    __slots__ = ()

    def on_return(self, frame, value, caller):
        if value is not None:
            raise TypeError(f"__init__() should return None, not '{type(value).__name__}'")
        return caller.pc

    def on_unwind(self, frame, exc, caller):
        pass


_INIT_CLEANUP = _InitCleanup()
_datastack.SHIMS.add(id(_INIT_CLEANUP))


def _init_entry(cache, init):
    """Refresh what ALLOC_AND_ENTER_INIT needs to enter init's current code."""
    code = init.__code__
    info = TRAMPOLINES.get(id(code))
    enterable = info is not None and not info.is_generator_like
    cache[2] = code
    cache[3] = code.co_argcount
    cache[4] = info
    cache[5] = info.exact_call_tail if enterable else None
    cache[6] = bool(enterable and info.nfree)


def _init_cache(tp, version, init):
    # CPython keeps __init__ on the heap type; the site holds it weakly
    cache = [version, weakref.ref(init), None, -1, None, None, False]
    _init_entry(cache, init)
    return cache


def _make_alloc_and_enter_init(site, tp, cache):
    """ALLOC_AND_ENTER_INIT for this site: the class seen at specialization
    (held weakly, its version read through a view made once; in fused runs its
    typewatch token), __init__'s code unchanged and run by the interpreter;
    anything else takes the full member."""
    version, init_ref, code, argcount, info, tail, has_free = cache
    oparg = site.oparg
    if tail is None or has_free or argcount != oparg + 1:
        return alloc_and_enter_init
    n = oparg + 2
    seen_ref = weakref.ref(tp)
    address = id(tp) + _TV
    seen_version = facts.MEM8[address:address + 4].cast("I")
    size = _framesize(info.code) + _datastack.INIT_CLEANUP_FRAMESIZE

    def call_alloc_and_enter_init(f, stack, site, nxt):
        base = len(stack) - n
        if (stack[base] is seen_ref() and seen_version[0] == version
                and stack[base + 1] is NULL):
            init = init_ref()
            if init is not None and init.__code__ is code and _has_space(f, size):
                obj = _object_new(stack[base])
                args = stack[base + 1:]
                args[0] = obj
                del stack[base + 1:]
                stack[base] = obj       # what the shim returns to the caller
                args += tail
                frame = Frame(info, args, init.__globals__, init.__builtins__, None, f,
                              f.depth + 1)
                frame.inline = _INIT_CLEANUP
                f.pc = nxt
                return _enter_and_push(f, stack, frame, nxt)
        return alloc_and_enter_init(f, stack, site, nxt)
    return ALLOC_AND_ENTER_INIT_IN_PLACE.facts(
        call_alloc_and_enter_init, seen_ref, token(tp, version), version, init_ref, code, _has_space,
        size, _object_new, info, tail, Frame, _INIT_CLEANUP, _enter)


# In place in fused runs (fusion.py): the guards above, __init__'s frame made from
# the operands and run by loop.enter(); the new object is the result (when the loop
# takes over, it is left on the stack where the class was: what the shim returns).
def _alloc_and_enter_init_shape(oparg):
    args = "".join(f", {{{i}}}" for i in range(2, oparg + 2))
    return Shape(
        oparg + 2, ["{r0}"], consts=None,
        guard="{0} is {c0}() and {c1}[0] and {1} is NULL and (init := {c3}()) is not None"
              " and init.__code__ is {c4} and {c5}(f, {c6})",
        effects=["obj = {c7}({0})",
                 "frame = {c10}({c8}, [obj" + args + "{c9_items}], init.__globals__, init.__builtins__, "
                 "None, f, f.depth + 1)",
                 "frame.inline = {c11}",
                 "f.pc = {nxt}",
                 "{drop}init = NULL; {r0} = {c12}(f, frame)",
                 "if {r0} is NULL: f.callee = frame; {kept}stack.append(obj); return RESUME",
                 "del frame",
                 "if {r0} is not None: {c11}.on_return(None, {r0}, f)",
                 "{r0} = obj",
                 "del obj",
                 "if {remade}: {kept}stack.append({r0}); return TRACE"])


def _alloc_and_enter_init_inlined(oparg):
    """How a fused run may write __init__ into itself (fusion._inlining_call), as the
    effects above run it: the new object first, pushed where the class was when the
    loop goes on in the frame; __init__ returning other than None raises."""
    args = "".join(f", {{{i}}}" for i in range(2, oparg + 2))
    return {"info_at": 8, "info": "{c8}", "function": "init", "before": ["obj = {c7}({0})"],
            "locals": "[obj" + args + "{c9_items}]", "new_frame": "{c10}", "hook": "{c11}",
            "resume_push": "stack.append(obj); ",
            "after": ["init = NULL", "if {r0} is not None: {c11}.on_return(None, {r0}, f)",
                      "{r0} = obj", "del obj"]}


ALLOC_AND_ENTER_INIT_IN_PLACE = SiteShape(_alloc_and_enter_init_shape,
                                          _alloc_and_enter_init_inlined)


def alloc_and_enter_init(f, stack, site, nxt):
    oparg = site.oparg
    base = len(stack) - oparg - 2
    tp = stack[base]
    cache = site.cache
    if (stack[base + 1] is NULL and type(tp).__flags__ & _TYPE_SUBCLASS
            and _MEM32[(id(tp) + _TV) >> 2] == cache[0]):
        init = cache[1]()
        if init is not None:
            if init.__code__ is not cache[2]:
                # __init__'s code may change without the class changing
                _init_entry(cache, init)
            if cache[3] == oparg + 1 and _has_space(
                    f, _framesize(cache[4].code if cache[4] is not None else cache[2])
                    + _datastack.INIT_CLEANUP_FRAMESIZE):
                obj = _object_new(tp)
                args = stack[base + 1:]
                args[0] = obj
                del stack[base + 1:]
                stack[base] = obj
                f.pc = nxt
                tail = cache[5]
                if tail is None:
                    # __init__ not run by the interpreter (native, or generator-like)
                    result = init(*args)
                    if result is not None:
                        raise TypeError("__init__() should return None, "
                                        f"not '{type(result).__name__}'")
                    return nxt
                args += tail
                if cache[6]:
                    args += init.__closure__
                frame = Frame(cache[4], args, init.__globals__, init.__builtins__, None, f,
                              f.depth + 1)
                frame.inline = _INIT_CLEANUP
                return _enter_and_push(f, stack, frame, nxt)
    return _deopt(f, stack, site, nxt)


# -- members that call natively -------------------------------------------------------------
def non_py_general(f, stack, site, nxt):
    oparg = site.oparg
    base = len(stack) - oparg - 2
    func = stack[base]
    tf = type(func)
    if (tf is not FunctionType or id(func) in STANDINS) and tf is not MethodType:
        args = stack[base + 2:] if stack[base + 1] is NULL else stack[base + 1:]
        del stack[base:]
        return _call_native(f, stack, func, args, INTERCEPTS.get(id(func)), nxt)
    return _deopt(f, stack, site, nxt)


# type(x), str(x), tuple(x): the callable itself, no self
NO_SELF = Guard("NO_SELF", "{x} is NULL", "the self slot is empty", needs={"NULL": NULL})
TYPE_1 = FAMILY.member(
    "CALL_TYPE_1", stack="callable null arg -- res",
    guards=[IS("callable", type), NO_SELF("null")], op="type(arg)", runs_code=False,
    in_place=False)
STR_1 = FAMILY.member(
    "CALL_STR_1", stack="callable null arg -- res",
    guards=[IS("callable", str), NO_SELF("null")], op="str(arg)", sets_pc=True, in_place=False)
TUPLE_1 = FAMILY.member(
    "CALL_TUPLE_1", stack="callable null arg -- res",
    guards=[IS("callable", tuple), NO_SELF("null")], op="tuple(arg)", sets_pc=True,
    in_place=False)
_ONE_ARGUMENT = {type: TYPE_1, str: STR_1, tuple: TUPLE_1}


def builtin_class(f, stack, site, nxt):
    oparg = site.oparg
    base = len(stack) - oparg - 2
    tp = stack[base]
    cached, special = site.cache
    if tp is not cached:
        if not (type(tp).__flags__ & _TYPE_SUBCLASS and facts.type_has_vectorcall(tp)):
            return _deopt(f, stack, site, nxt)
        special = INTERCEPTS.get(id(tp))
    args = stack[base + 2:] if stack[base + 1] is NULL else stack[base + 1:]
    del stack[base:]
    return _call_native(f, stack, tp, args, special, nxt)


def _c_function_member(flags_required, arity):
    """BUILTIN_O / BUILTIN_FAST / BUILTIN_FAST_WITH_KEYWORDS: any exact builtin
    function whose ml_flags are exactly the member's (not only the one cached)."""
    def member(f, stack, site, nxt):
        oparg = site.oparg
        base = len(stack) - oparg - 2
        fn = stack[base]
        selfless = stack[base + 1] is NULL
        if arity and (oparg if selfless else oparg + 1) != arity:
            return _deopt(f, stack, site, nxt)
        cached, special = site.cache
        if fn is not cached:
            orig = STANDINS.get(id(fn)) if type(fn) is FunctionType else fn
            if type(orig) is not BuiltinFunctionType or _cflags(orig) != flags_required:
                return _deopt(f, stack, site, nxt)
            special = INTERCEPTS.get(id(fn))
        args = stack[base + 2:] if selfless else stack[base + 1:]
        del stack[base:]
        return _call_native(f, stack, fn, args, special, nxt)
    return member


builtin_o = _c_function_member(_METH_O, 1)
builtin_fast = _c_function_member(_METH_FASTCALL, 0)
builtin_fast_with_keywords = _c_function_member(_METH_FAST_KW, 0)
builtin_o.__name__ = "builtin_o"
builtin_fast.__name__ = "builtin_fast"
builtin_fast_with_keywords.__name__ = "builtin_fast_with_keywords"


def call_len(f, stack, site, nxt):
    oparg = site.oparg
    base = len(stack) - oparg - 2
    if stack[base] is _LEN:
        if stack[base + 1] is NULL:
            if oparg == 1:
                arg = stack.pop()
                del stack[-1]
                f.pc = nxt
                stack[-1] = _LEN(arg)
                return nxt
        elif oparg == 0:
            arg = stack.pop()
            f.pc = nxt
            stack[-1] = _LEN(arg)
            return nxt
    return _deopt(f, stack, site, nxt)


def call_isinstance(f, stack, site, nxt):
    oparg = site.oparg
    base = len(stack) - oparg - 2
    if stack[base] is _ISINSTANCE:
        args = stack[base + 2:] if stack[base + 1] is NULL else stack[base + 1:]
        if len(args) == 2:
            del stack[base:]
            f.pc = nxt
            stack.append(_ISINSTANCE(args[0], args[1]))
            return nxt
    return _deopt(f, stack, site, nxt)


def list_append(f, stack, site, nxt):
    # oparg is 1: [list.append, self, item]
    if stack[-3] is _LIST_APPEND:
        lst = stack[-2]
        t = type(lst)
        if t is list:
            item = stack.pop()
            del stack[-2:]
            lst.append(item)
            return nxt + 1          # the POP_TOP that follows is skipped
        if lst is not NULL and issubclass(t, list):
            item = stack.pop()
            del stack[-2:]
            _LIST_APPEND(lst, item)
            return nxt + 1
    return _deopt(f, stack, site, nxt)


def _method_descriptor_member(flags_required, arity):
    """METHOD_DESCRIPTOR_*: any method descriptor with exactly these ml_flags,
    called on an object of exactly the descriptor's class."""
    def member(f, stack, site, nxt):
        oparg = site.oparg
        base = len(stack) - oparg - 2
        descr = stack[base]
        args = stack[base + 2:] if stack[base + 1] is NULL else stack[base + 1:]
        n = len(args)
        if (n != arity) if arity else (n == 0):
            return _deopt(f, stack, site, nxt)
        cached, objclass, special = site.cache
        if descr is not cached:
            if type(descr) is not MethodDescriptorType or _dflags(descr) != flags_required:
                return _deopt(f, stack, site, nxt)
            objclass = descr.__objclass__
            special = INTERCEPTS.get(id(descr))
        if type(args[0]) is not objclass:
            return _deopt(f, stack, site, nxt)
        del stack[base:]
        return _call_native(f, stack, descr, args, special, nxt)
    return member


method_descriptor_noargs = _method_descriptor_member(_METH_NOARGS, 1)
method_descriptor_o = _method_descriptor_member(_METH_O, 2)
method_descriptor_fast = _method_descriptor_member(_METH_FASTCALL, 0)
method_descriptor_fast_with_keywords = _method_descriptor_member(_METH_FAST_KW, 0)
method_descriptor_noargs.__name__ = "method_descriptor_noargs"
method_descriptor_o.__name__ = "method_descriptor_o"
method_descriptor_fast.__name__ = "method_descriptor_fast"
method_descriptor_fast_with_keywords.__name__ = "method_descriptor_fast_with_keywords"
