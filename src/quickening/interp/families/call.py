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
from quickening.interp.ops.registry import NULL, SWITCH
from quickening.interp.ops import registry as _registry
from quickening.interp.quicken import pack32
from quickening.interp.spec import FUNCTION_VERSION, IS, OPARG, Family, Guard, Hand
from quickening.interp.typewatch import token
from quickening.interp.families._datastack import framesize as _framesize, has_space as _has_space
from quickening.interp.families import _datastack
from quickening.interp.families.load_attr import CLASS_VERSION
from quickening.interp.families._datastack import state as _ds_state
from quickening.interp.facts import (MEM32 as _MEM32, CFUNC_ML as _CFUNC_ML, FUNC_VERSION as _FV,
                                     TYPE_VERSION_TAG as _TV, METH_O as _METH_O,
                                     METH_NOARGS as _METH_NOARGS, METH_FASTCALL as _METH_FASTCALL,
                                     METH_CONVENTION_MASK as _MASK, cfunction_flags as _cflags,
                                     method_descr_flags as _dflags)

# (assigned, not imported: CPython 3.13 compiles a method call on a name an import
# binds without its method form, which the host cannot specialize -- test_layers.py)
INTERCEPTED_DEFS = _registry.INTERCEPTED_DEFS
INTERCEPTS = _registry.INTERCEPTS

FAMILY = Family("CALL", stats_operands=-2)     # (--stats records the callable's type)

_ML_POINTERS = facts.words_from(_CFUNC_ML)      # [id(builtin) >> 3]: its C function's definition
# 32-bit words starting at the version field's offset: function versions by id(fn) >> 2
_FVS = facts.words_from(_FV, 4)
_METH_FAST_KW = facts.METH_FASTCALL | facts.METH_KEYWORDS
_TYPE_SUBCLASS = 1 << 31
_CO_OPTIMIZED = 0x0001
_CO_COMPLEX = 0x0004 | 0x0008          # CO_VARARGS | CO_VARKEYWORDS
_POP_TOP = host.OPMAP["POP_TOP"]

# interp->callable_cache: the objects captured when the interpreter started (the
# members name them so, not by the builtins' names, which a program may rebind)
_CALLABLE_CACHE = {"LEN": builtins.len, "ISINSTANCE": builtins.isinstance,
                   "LIST_APPEND": list.append}
_LEN, _ISINSTANCE, _LIST_APPEND = _CALLABLE_CACHE.values()


# -- what the members call ----------------------------------------------------------
TRAMPOLINES = functions.TRAMPOLINES
_generic, _new_frame, _wrap = calls.call, functions.new_frame, generators.wrap
_enter, _enter_and_push = loop.enter, loop.enter_and_push
_object_new, _getrecursionlimit = object.__new__, sys.getrecursionlimit
# library code that looks at its caller's frame is called through a native stand-in
# of the interpreted frame, as the generic CALL does
_masquerade, _call_as = masquerade.wants, masquerade.call_as


# Python functions the interpreter installs in place of builtins (sys._getframe,
# sys._getframemodulename, warnings.warn, sys.settrace, sys.gettrace: hostframes.py),
# by id -> the builtin.  CPython calls the builtin, so a site calling a stand-in
# specializes (and guards) as for the builtin it stands for.
STANDINS = {}
for _standin, _orig in hostframes.REPLACEMENTS:
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
    return site.specialize(NON_PY_GENERAL, seen=_native_kind(callable_, stack[base + 1]))


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


def _py_facts(func, version):
    """What PY_* and BOUND_METHOD_* members record: the version (its cells), the
    function seen (held weakly by the version guard's cheap lowering), and how to
    enter the code the version stands for."""
    code = func.__code__
    info = TRAMPOLINES.get(id(code))
    enterable = info is not None and not info.is_generator_like
    return {"func_version": version, "seen": func, "argcount": code.co_argcount, "info": info,
            "tail": info.exact_call_tail if enterable else None,
            "has_free": bool(enterable and info.nfree), "enterable": enterable}


def _specialize_py_call(site, func, nargs, bound_method):
    # PEP 523 (a custom frame evaluator) is never active in this process
    kind = _function_kind(func.__code__)
    if kind == "CODE_NOT_OPTIMIZED":
        return site.fail(kind)
    argcount = func.__code__.co_argcount if kind is None else -1
    version = _FVS[id(func) >> 2]
    if version == 0:
        return site.fail("OUT_OF_VERSIONS")
    found = _py_facts(func, version)
    if argcount == nargs:
        return site.specialize(BOUND_METHOD_EXACT_ARGS if bound_method else PY_EXACT_ARGS,
                               **found)
    if bound_method:
        return site.specialize(BOUND_METHOD_GENERAL, **found)
    return site.specialize(PY_GENERAL, simple=kind is None, **found)


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
    # (a builtin bound to some object: its C function's definition, which any
    # builtin made of it shares, unless an intercepted builtin shares it too)
    ml = facts.cfunction_def(fn) if standin is None and not _masquerade(fn) else None
    if ml in INTERCEPTED_DEFS:
        ml = None
    if standin is not None:
        fn = standin
    found = {"cfunc": fn if keep else None, "special": INTERCEPTS.get(id(fn)), "ml": ml}
    if flags == _METH_O:
        if nargs != 1:
            return site.fail("WRONG_NUMBER_ARGUMENTS")
        if fn is _LEN:
            return site.specialize(LEN)
        return site.specialize(BUILTIN_O, **found)
    if flags == _METH_FASTCALL:
        if nargs == 2 and fn is _ISINSTANCE:
            return site.specialize(ISINSTANCE)
        return site.specialize(BUILTIN_FAST, **found)
    if flags == _METH_FAST_KW:
        return site.specialize(BUILTIN_FAST_WITH_KEYWORDS, **found)
    return site.specialize(NON_PY_GENERAL, seen=None if found["special"] is not None
                           else ("bound", ml) if ml is not None else None)


def _specialize_class_call(site, tp, nargs):
    flags = tp.__flags__
    if flags & facts.TPFLAGS_IMMUTABLETYPE:
        if nargs == 1 and site.oparg == 1:
            member = _ONE_ARGUMENT.get(tp)
            if member is not None:
                return site.specialize(member)
        if facts.type_has_vectorcall(tp):
            return site.specialize(BUILTIN_CLASS, cls=tp, special=INTERCEPTS.get(id(tp)))
        return site.fail("CALL_STR" if tp is str else "CALL_CLASS_NO_VECTORCALL")
    if type(tp) is not type:
        return site.specialize(NON_PY_GENERAL, seen=None)
    if facts.type_new_is_object_new(tp):
        init = _init_for_simple_managed_python_class(site, tp)
        version = facts.type_version(tp)
        if version == 0:
            return site.fail("OUT_OF_VERSIONS")
        if init is not None:
            if init.__code__.co_argcount != nargs + 1:
                return site.fail("WRONG_NUMBER_ARGUMENTS")
            return site.specialize(ALLOC_AND_ENTER_INIT, func_version=version, cls=tp,
                                   entry=_init_cache(init))
    return site.specialize(NON_PY_GENERAL, seen=_native_kind(tp, NULL))


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
    found = {"descr": descr if raw == flags else None, "objclass": descr.__objclass__,
             "special": INTERCEPTS.get(id(descr))}
    if flags == _METH_NOARGS:
        if nargs != 1:
            return site.fail("WRONG_NUMBER_ARGUMENTS")
        return site.specialize(METHOD_DESCRIPTOR_NOARGS, **found)
    if flags == _METH_O:
        if nargs != 2:
            return site.fail("WRONG_NUMBER_ARGUMENTS")
        info = site.info
        pop = site.nxt < len(info.opcodes) and info.opcodes[site.nxt] == _POP_TOP
        if descr is _LIST_APPEND and site.oparg == 1 and pop:
            return site.specialize(LIST_APPEND)
        return site.specialize(METHOD_DESCRIPTOR_O, **found)
    if flags == _METH_FASTCALL:
        return site.specialize(METHOD_DESCRIPTOR_FAST, **found)
    if flags == _METH_FAST_KW:
        return site.specialize(METHOD_DESCRIPTOR_FAST_WITH_KEYWORDS, **found)
    return site.specialize(NON_PY_GENERAL, seen=None)


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


# -- CALL's guards (bytecodes.c's guard ops, each declared once) ---------------------------
NO_SELF = Guard("NO_SELF", "{x} is NULL", "the self slot is empty", needs={"NULL": NULL})
BOUND_METHOD = Guard("BOUND_METHOD", "type({x}) is MethodType", "x is a bound method",
                     needs={"MethodType": MethodType})
# (_CHECK_FUNCTION_VERSION is spec.FUNCTION_VERSION: BINARY_SUBSCR_GETITEM's too)
# _CHECK_FUNCTION_EXACT_ARGS (count: the code's co_argcount) and the total_args tests
# of the builtin members: the self slot, when it holds one, is the first argument.
# Cheap: at a site the count and n are known, so only whether the slot is empty.
EXACT_ARGS = Guard("EXACT_ARGS", "{n} + ({x} is not NULL) == {count}",
                   "the call passes exactly count arguments, the self slot x counted",
                   needs={"NULL": NULL}).lowered(
    "({x} is not NULL) is {with_self}",
    lambda count, n, **_: {"with_self": True if count == n + 1 else False if count == n
                           else None},
    needs={"NULL": NULL})
SOME_ARGS = Guard("SOME_ARGS", "({x} is not NULL or {n} > 0)",
                  "the call passes an argument (self, for a method descriptor)",
                  needs={"NULL": NULL})
# _CHECK_STACK_SPACE: room on the data stack for the callee's frame (_datastack.py) and
# recursion headroom.  Cheap: the callee's frame size known at the site (the version
# pins the code), and the data stack's state bound as `ds` for the frame pushed after.
_RECURSION = "(f.depth < 900 or not DEEP(f))"
STACK_SPACE = Guard(
    "STACK_SPACE", _RECURSION + " and ROOM(f, {x})",
    "the data stack has room for the frame of the function x, and the recursion limit is "
    "not reached", needs={"DEEP": _deep, "ROOM": _room}).lowered(
    _RECURSION + " and {size} < (ds := f.ds or DS_STATE(f))[1] - ds[0]",
    lambda info=None, seen=None, **_: {"size": _framesize(info.code) if info is not None
                                       else _datastack.function_framesize(seen)},
    needs={"DEEP": _deep, "DS_STATE": _ds_state})
# (ALLOC_AND_ENTER_INIT's _CHECK_AND_ALLOCATE_OBJECT tests the class's own version:
# load_attr.CLASS_VERSION, LOAD_ATTR_CLASS's)
NOT_PYTHON = Guard(
    "NOT_PYTHON", "type({x}) is not MethodType and (type({x}) is not FunctionType or id({x}) in STANDINS)",
    "x is neither a bound method nor a Python function (a stand-in for a builtin counts as "
    "the builtin)", needs={"MethodType": MethodType, "FunctionType": FunctionType,
                           "STANDINS": STANDINS})
VECTORCALL_CLASS = Guard(
    "VECTORCALL_CLASS", "type({x}).__flags__ & TYPE_SUBCLASS and HAS_VECTORCALL({x})",
    "x is a class with a vectorcall entry", needs={"TYPE_SUBCLASS": _TYPE_SUBCLASS,
                                                   "HAS_VECTORCALL": facts.type_has_vectorcall})


def _builtin_flags(fn):
    """ml_flags of an exact builtin function (or of the builtin a stand-in stands for);
    -1 for anything else."""
    if type(fn) is FunctionType:
        fn = STANDINS.get(id(fn))
    return _cflags(fn) if type(fn) is BuiltinFunctionType else -1


def _descriptor_flags(descr):
    return _dflags(descr) if type(descr) is MethodDescriptorType else -1


CFUNCTION_FLAGS = Guard("CFUNCTION_FLAGS", "BUILTIN_FLAGS({x}) == {flags}",
                        "x is an exact builtin function whose ml_flags are exactly flags",
                        needs={"BUILTIN_FLAGS": _builtin_flags})
DESCRIPTOR_FLAGS = Guard("DESCRIPTOR_FLAGS", "DESCRIPTOR_FLAGS({x}) == {flags}",
                         "x is an exact method descriptor whose ml_flags are exactly flags",
                         needs={"DESCRIPTOR_FLAGS": _descriptor_flags})
# (a cheap lowering of these: the callable seen at specialization, whose kind and flags
# cannot change, is kept when keeping it keeps nothing alive)
for _guard, _fact in ((CFUNCTION_FLAGS, "cfunc"), (DESCRIPTOR_FLAGS, "descr"),
                      (VECTORCALL_CLASS, "cls")):
    _guard.lowered(f"({{x}} is {{seen_callable}} or {_guard.test})",
                   lambda _fact=_fact, **found: {"seen_callable": found[_fact]},
                   needs=_guard.needs)
SELF_TYPE = Guard("SELF_TYPE", "type({x} if {x} is not NULL else {args}[0]) is {descr}.__objclass__",
                  "the first argument (the self slot, or the first of args) is exactly of the "
                  "method descriptor's class", needs={"NULL": NULL})
LIST_OR_SUBCLASS = Guard("LIST_OR_SUBCLASS", "(type({x}) is list or issubclass(type({x}), list))",
                         "x is a list (PyList_Check)")

_CALL = "callable self_or_null args[oparg] -- res"


# -- members that push a frame ---------------------------------------------------------------
def _push_exact_args(f, stack, site, nxt, callable, self_or_null, info, tail, has_free, ds,
                     size):
    """_INIT_CALL_PY_EXACT_ARGS and _PUSH_FRAME: the callee's locals are the arguments
    (from the self slot when it holds one), then its other locals (and cells).  (ds:
    the data stack's state the lowered STACK_SPACE bound; size: the callee's frame's.)"""
    base = len(stack) - site.oparg - 2
    args = stack[base + 2:] if self_or_null is NULL else stack[base + 1:]
    del stack[base:]
    if tail is None:
        return _enter_other(f, stack, callable, info, args, nxt)
    args += tail
    if has_free:
        args += callable.__closure__
    f.pc = nxt
    callee = Frame(info, args, callable.__globals__, callable.__builtins__, None, f, f.depth + 1)
    callee.ds = (ds[0] + size, ds[1])
    return _enter_and_push(f, stack, callee, nxt)


PY_EXACT_ARGS = FAMILY.member(
    "CALL_PY_EXACT_ARGS", stack=_CALL,
    facts=("func_version", "seen", "argcount", "info", "tail", "has_free", "enterable"),
    guards=[FUNCTION_VERSION("callable", "func_version"),
            EXACT_ARGS(x="self_or_null", n=OPARG, count="argcount"), STACK_SPACE("callable")],
    op=Hand(_push_exact_args))


def _unpack(stack, oparg, method):
    """_INIT_CALL_BOUND_METHOD_EXACT_ARGS: (method, NULL) becomes (function, self)."""
    base = len(stack) - oparg - 2
    stack[base] = method.__func__
    stack[base + 1] = method.__self__


def _push_bound_method(f, stack, site, nxt, callable, info, tail, has_free, ds, size):
    self = stack[len(stack) - site.oparg - 1] = callable.__self__     # (the first argument)
    return _push_exact_args(f, stack, site, nxt, callable.__func__, self, info, tail,
                            has_free, ds, size)


def _unpacked_on_miss(f, stack, site, nxt, callable, self_or_null):
    """CPython unpacks the method before its function's guards: a miss after that
    leaves (function, self) for CALL."""
    if all(test(callable, self_or_null) for test in _UNPACKS_AFTER):
        _unpack(stack, site.oparg, callable)
    return _deopt(f, stack, site, nxt)


# (the function's guards are over the method's: CPython's after it unpacked it)
BOUND_METHOD_EXACT_ARGS = FAMILY.member(
    "CALL_BOUND_METHOD_EXACT_ARGS", stack=_CALL,
    facts=("func_version", "seen", "argcount", "info", "tail", "has_free", "enterable"),
    guards=[NO_SELF("self_or_null"), BOUND_METHOD("callable"),
            FUNCTION_VERSION("callable.__func__", "func_version"),
            EXACT_ARGS(x="callable.__self__", n=OPARG, count="argcount"),
            STACK_SPACE("callable.__func__")],
    op=Hand(_push_bound_method), miss=Hand(_unpacked_on_miss))
_UNPACKS_AFTER = [check.function("callable", "self_or_null")
                  for check in BOUND_METHOD_EXACT_ARGS.guards[:2]]


def _push_general(f, stack, site, nxt, callable, self_or_null, info, tail, has_free,
                  enterable, argcount, simple):
    """_PY_FRAME_GENERAL: the callee's frame binds the arguments as a call does.  A
    simple signature given fewer arguments than it has parameters takes the rest from
    __defaults__ (read on each call: functions sharing a version may have different
    defaults)."""
    base = len(stack) - site.oparg - 2
    args = stack[base + 2:] if self_or_null is NULL else stack[base + 1:]
    del stack[base:]
    if not enterable:
        return _enter_other(f, stack, callable, info, args, nxt)
    f.pc = nxt
    need = argcount - len(args)
    if simple and tail is not None and not has_free and need > 0:
        defaults = callable.__defaults__
        if defaults is not None and len(defaults) >= need:
            args += defaults[len(defaults) - need:]
            args += tail
            callee = Frame(info, args, callable.__globals__, callable.__builtins__, None, f,
                           f.depth + 1)
            return _enter_and_push(f, stack, callee, nxt)
    f.callee = _new_frame(info, callable, args, None, f.depth + 1)
    return SWITCH


PY_GENERAL = FAMILY.member(
    "CALL_PY_GENERAL", stack=_CALL,
    facts=("func_version", "seen", "argcount", "info", "tail", "has_free", "enterable",
           "simple"),
    guards=[FUNCTION_VERSION("callable", "func_version")], op=Hand(_push_general))


def _push_bound_general(f, stack, site, nxt, callable, info, enterable):
    """_EXPAND_METHOD then _PY_FRAME_GENERAL."""
    base = len(stack) - site.oparg - 2
    args = stack[base + 1:]
    args[0] = callable.__self__
    del stack[base:]
    func = callable.__func__
    if not enterable:
        return _enter_other(f, stack, func, info, args, nxt)
    f.callee = _new_frame(info, func, args, None, f.depth + 1)
    f.pc = nxt
    return SWITCH


BOUND_METHOD_GENERAL = FAMILY.member(
    "CALL_BOUND_METHOD_GENERAL", stack=_CALL,
    facts=("func_version", "seen", "argcount", "info", "tail", "has_free", "enterable"),
    guards=[BOUND_METHOD("callable"), FUNCTION_VERSION("callable.__func__", "func_version"),
            NO_SELF("self_or_null")],
    op=Hand(_push_bound_general))


def _init_entry(entry, init):
    """Refresh what ALLOC_AND_ENTER_INIT needs to enter init's current code:
    [init (weakly), its code, co_argcount, CodeInfo, exact-call tail, has cells]."""
    code = init.__code__
    info = TRAMPOLINES.get(id(code))
    enterable = info is not None and not info.is_generator_like
    entry[1:] = [code, code.co_argcount, info, info.exact_call_tail if enterable else None,
                 bool(enterable and info.nfree)]


def _init_cache(init):
    # CPython keeps __init__ on the heap type; the site holds it weakly
    entry = [weakref.ref(init), None, -1, None, None, False]
    _init_entry(entry, init)
    return entry


def _alloc_and_enter_init(f, stack, site, nxt, callable, entry):
    """_CHECK_AND_ALLOCATE_OBJECT's checks on __init__ (its current code: it may change
    without the class changing) -- it takes oparg + 1 arguments, and the data stack has
    room for its frame and the shim's -- then the new object, and __init__'s frame
    over the shim's."""
    oparg = site.oparg
    init = entry[0]()
    if init is not None:
        if init.__code__ is not entry[1]:
            _init_entry(entry, init)
        _, code, argcount, info, tail, has_free = entry
        if argcount == oparg + 1 and _has_space(
                f, _framesize(info.code if info is not None else code)
                + _datastack.INIT_CLEANUP_FRAMESIZE):
            base = len(stack) - oparg - 2
            obj = _object_new(callable)
            args = stack[base + 1:]
            args[0] = obj
            del stack[base + 1:]
            stack[base] = obj       # what the shim returns to the caller
            f.pc = nxt
            if tail is None:
                # __init__ not run by the interpreter (native, or generator-like)
                result = init(*args)
                if result is not None:
                    raise TypeError("__init__() should return None, "
                                    f"not '{type(result).__name__}'")
                return nxt
            args += tail
            if has_free:
                args += init.__closure__
            frame = Frame(info, args, init.__globals__, init.__builtins__, None, f, f.depth + 1)
            frame.inline = _INIT_CLEANUP
            return _enter_and_push(f, stack, frame, nxt)
    return _deopt(f, stack, site, nxt)


ALLOC_AND_ENTER_INIT = FAMILY.member(
    "CALL_ALLOC_AND_ENTER_INIT", stack=_CALL, facts=("func_version", "cls", "entry"),
    guards=[NO_SELF("self_or_null"), CLASS_VERSION("callable", "func_version")],
    op=Hand(_alloc_and_enter_init))


# -- members that call natively -------------------------------------------------------------
def _call_args(f, stack, site, nxt, callable, self_or_null):
    """Call the callable natively with the arguments (the self slot first when it holds
    one), or through its intercept, or as if from the interpreted frame."""
    base = len(stack) - site.oparg - 2
    args = stack[base + 2:] if self_or_null is NULL else stack[base + 1:]
    del stack[base:]
    return _call_native(f, stack, callable, args, INTERCEPTS.get(id(callable)), nxt)


NON_PY_GENERAL = FAMILY.member(
    "CALL_NON_PY_GENERAL", stack=_CALL, facts=("seen",), guards=[NOT_PYTHON("callable")],
    op=Hand(_call_args), fast=lambda handler, oparg, found, _: _fast_general(
        oparg, found["seen"], handler))

# type(x), str(x), tuple(x): the callable itself, no self
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

BUILTIN_CLASS = FAMILY.member(
    "CALL_BUILTIN_CLASS", stack=_CALL, facts=("cls", "special"),
    guards=[VECTORCALL_CLASS("callable")], op=Hand(_call_args),
    fast=lambda handler, oparg, found, _: _fast_native(oparg, found["cls"], found["special"],
                                                       handler))


def _builtin(name, flags, arity=None):
    """BUILTIN_O / BUILTIN_FAST / BUILTIN_FAST_WITH_KEYWORDS: any exact builtin function
    whose ml_flags are exactly the member's (not only the one seen)."""
    guards = [EXACT_ARGS(x="self_or_null", n=OPARG, count=arity)] if arity else []
    return FAMILY.member(
        name, stack=_CALL, facts=("cfunc", "special", "ml"),
        guards=guards + [CFUNCTION_FLAGS("callable", flags)], op=Hand(_call_args),
        fast=lambda handler, oparg, found, _: _fast_native(
            oparg, found["cfunc"], found["special"], handler, found["ml"], arity))


BUILTIN_O = _builtin("CALL_BUILTIN_O", _METH_O, 1)
BUILTIN_FAST = _builtin("CALL_BUILTIN_FAST", _METH_FASTCALL)
BUILTIN_FAST_WITH_KEYWORDS = _builtin("CALL_BUILTIN_FAST_WITH_KEYWORDS", _METH_FAST_KW)

# (interp->callable_cache's len and isinstance; in place in fused runs as any builtin seen)
LEN = FAMILY.member(
    "CALL_LEN", stack=_CALL, needs=_CALLABLE_CACHE,
    guards=[EXACT_ARGS(x="self_or_null", n=OPARG, count=1), IS("callable", "LEN")],
    op=lambda oparg: "LEN(args[0])" if oparg else "LEN(self_or_null)", sets_pc=True,
    in_place=False, fast=lambda handler, oparg, *_: NATIVE_IN_PLACE.facts(handler, _LEN))
ISINSTANCE = FAMILY.member(
    "CALL_ISINSTANCE", stack=_CALL, needs=_CALLABLE_CACHE,
    guards=[EXACT_ARGS(x="self_or_null", n=OPARG, count=2), IS("callable", "ISINSTANCE")],
    op=lambda oparg: ("ISINSTANCE(args[0], args[1])" if oparg == 2
                      else "ISINSTANCE(self_or_null, args[0])"), sets_pc=True,
    in_place=False, fast=lambda handler, oparg, *_: NATIVE_IN_PLACE.facts(handler, _ISINSTANCE))


def _append(f, stack, site, nxt, self, arg):
    del stack[-3:]
    _LIST_APPEND(self, arg)
    return nxt + 1          # the POP_TOP that follows is skipped


# (o.append(x) as a statement: the specializer has seen the POP_TOP after it)
LIST_APPEND = FAMILY.member(
    "CALL_LIST_APPEND", stack="callable self arg --", needs=_CALLABLE_CACHE,
    guards=[IS("callable", "LIST_APPEND"), LIST_OR_SUBCLASS("self")], op=Hand(_append),
    serves=lambda oparg: oparg == 1)


def _method_descriptor(name, flags, arity=None):
    """METHOD_DESCRIPTOR_*: any method descriptor with exactly these ml_flags, called on
    an object of exactly the descriptor's class."""
    count = (EXACT_ARGS(x="self_or_null", n=OPARG, count=arity) if arity
             else SOME_ARGS(x="self_or_null", n=OPARG))
    return FAMILY.member(
        name, stack=_CALL, facts=("descr", "objclass", "special"),
        guards=[count, DESCRIPTOR_FLAGS("callable", flags),
                SELF_TYPE(x="self_or_null", args="args", descr="callable")],
        op=Hand(_call_args),
        fast=lambda handler, oparg, found, _: _fast_descriptor(
            oparg, found["descr"], found["objclass"], found["special"], handler))


METHOD_DESCRIPTOR_NOARGS = _method_descriptor("CALL_METHOD_DESCRIPTOR_NOARGS", _METH_NOARGS, 1)
METHOD_DESCRIPTOR_O = _method_descriptor("CALL_METHOD_DESCRIPTOR_O", _METH_O, 2)
METHOD_DESCRIPTOR_FAST = _method_descriptor("CALL_METHOD_DESCRIPTOR_FAST", _METH_FASTCALL)
METHOD_DESCRIPTOR_FAST_WITH_KEYWORDS = _method_descriptor(
    "CALL_METHOD_DESCRIPTOR_FAST_WITH_KEYWORDS", _METH_FAST_KW)


# -- fast paths of the native members: the callable seen at specialization -------------------
def _fast_native(oparg, callable_, special, general, ml=None, arity=None):
    """A member's handler for a site: when the callable is the one seen at
    specialization (whose kind and flags cannot change) and the self slot is
    empty, call it directly; anything else goes through `general`, the
    member's derived handler (its declared guards)."""
    if special is not None:
        return general
    if callable_ is None:
        if ml is None or arity is not None and oparg != arity:
            return general     # (METH_O: one argument, which only oparg 1 with no self gives)
        return _fast_bound_native(oparg, ml, general)
    if _masquerade(callable_):
        return general
    if oparg == 1:
        def fast(f, stack, site, nxt):
            if stack[-3] is callable_ and stack[-2] is NULL:
                arg = stack.pop()
                del stack[-1]
                f.pc = nxt
                stack[-1] = callable_(arg)
                return nxt
            return general(f, stack, site, nxt)
    else:
        fast = _seen_call(oparg, callable_, general)
    fast.__name__ = general.__name__
    return NATIVE_IN_PLACE.facts(fast, callable_)


def _seen_call(oparg, callable_, general, objclass=None):
    """The callable seen called directly when it is the one on the stack, with the
    self slot empty (objclass None) or holding an object of exactly objclass (a
    method descriptor's self, its first argument)."""
    n = oparg + 2
    first = 2 if objclass is None else 1

    def fast(f, stack, site, nxt):
        base = len(stack) - n
        if stack[base] is callable_ and (stack[base + 1] is NULL if objclass is None
                                         else type(stack[base + 1]) is objclass):
            args = stack[base + first:]
            del stack[base + 1:]
            f.pc = nxt
            stack[-1] = callable_(*args)
            return nxt
        return general(f, stack, site, nxt)
    return fast


def _fast_bound_native(oparg, ml, general):
    """A member's handler for a site calling a builtin bound to some object (not
    kept: that would keep the object alive), with the self slot empty: any builtin
    made of the same C function (its PyMethodDef, whose flags cannot change) is
    called directly."""
    n = oparg + 2

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


def _fast_descriptor(oparg, descr, objclass, special, general):
    """METHOD_DESCRIPTOR_* for a site: the descriptor seen at specialization
    called on (self, args...) with self of exactly its class."""
    if descr is None or special is not None or _masquerade(descr):
        return general
    fast = _seen_call(oparg, descr, general, objclass)
    fast.__name__ = general.__name__
    return DESCRIPTOR_IN_PLACE.facts(fast, descr, objclass)


def _native_kind(callable_, self_or_null):
    """What CALL_NON_PY_GENERAL's fast path keeps of the callable seen: its type, one
    of CPython's own (so that what the member does with it cannot change), and
    whether the self slot was empty; None (no fast path) for a type whose instances
    the interpreter calls on the program's behalf: intercepted builtins, by id;
    masquerade's functions and metaclasses."""
    tp = type(callable_)
    if (tp is FunctionType or tp is MethodType or tp.__flags__ & facts.TPFLAGS_HEAPTYPE
            or _masquerade(callable_) or hasattr(callable_, "__func__")):
        return None
    return ("type", tp, self_or_null is NULL)


def _fast_general(oparg, seen, general):
    """CALL_NON_PY_GENERAL's handler for a site: a callable of the type seen (or a
    builtin of the C function seen) called natively as the member calls it, with
    the self slot as it was then; anything else goes through the member's guards."""
    if seen is None:
        return general
    if seen[0] == "bound":
        return _fast_bound_native(oparg, seen[1], general)
    _, tp, selfless = seen
    n = oparg + 2
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
        return general(f, stack, site, nxt)
    kind = GENERAL_IN_PLACE if selfless else GENERAL_SELF_IN_PLACE
    fast.__name__ = general.__name__
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


# -- CALL_PY_EXACT_ARGS and CALL_ALLOC_AND_ENTER_INIT in place in fused runs (fusion.py) --------
# The member's guard in its cheap lowering (from the declaration), and the callee's
# frame made from the operands as they are (no stack traffic), run right there by
# loop.enter(); the run goes on with its value, or returns RESUME when the loop must
# take over.  A failure is a miss, which the base instruction then runs in place.
# Facts: {c0} the weak reference to the function seen, {c1} its version view, {c2}
# the version, {c3} whether the self slot holds the first argument, {c4} the
# callee's data-stack size, {c5} its CodeInfo, {c6} its locals after the arguments,
# {c7} Frame, {c8} loop.enter, then the objects the guards name.
_EXACT_ARGS_FACTS = {"callable": "{0}", "self_or_null": "{1}", "NULL": "NULL",
                     "seen_ref": "{c0}", "seen_version": "{c1}", "func_version": "{c2}",
                     "with_self": "{c3}", "size": "{c4}"}


def _exact_args_guard(oparg, _made={}):
    """(the guard's template, the objects it names) for this oparg, made once"""
    made = _made.get(oparg)
    if made is None:
        made = _made[oparg] = PY_EXACT_ARGS.guard_template(oparg, _EXACT_ARGS_FACTS, 9)
    return made


def _exact_args_locals(oparg, with_self, free=False):
    """The template of the callee's locals list: its arguments, then NULLs (and cells)."""
    args = ", ".join(f"{{{i}}}" for i in range(1 if with_self else 2, oparg + 2))
    locals_ = f"[{args}{{c6_items}}" if args else "[*{c6}"
    return locals_ + ("]" if not free else ", *{0}.__closure__]")


def _exact_args_shape(oparg, with_self, free=False):
    locals_ = _exact_args_locals(oparg, with_self, free)
    return Shape(
        oparg + 2, ["{r0}"], consts=None, guard=_exact_args_guard(oparg)[0],
        effects=["callee = {c7}({c5}, " + locals_ + ", {0}.__globals__, "
                 "{0}.__builtins__, None, f, f.depth + 1)",
                 "callee.ds = (ds[0] + {c4}, ds[1])",
                 "f.pc = {nxt}",
                 "{drop}{r0} = {c8}(f, callee)",
                 "if {r0} is NULL: f.callee = callee; {kept}return RESUME",
                 "del callee",
                 "if {remade}: {kept}stack.append({r0}); return TRACE"])


def _exact_args_inlined(oparg, with_self):
    """How a fused run may write the callee into itself (fusion._inlining_call): the
    facts' CodeInfo ({c5}), and the callee's frame made as the effects above make it."""
    return {"info_at": 5, "info": "{c5}", "locals": _exact_args_locals(oparg, with_self),
            "ds": "(ds[0] + {c4}, ds[1])", "new_frame": "{c7}"}


PY_EXACT_ARGS_IN_PLACE = SiteShape(lambda oparg: _exact_args_shape(oparg, False),
                                   lambda oparg: _exact_args_inlined(oparg, False))
PY_EXACT_ARGS_SELF_IN_PLACE = SiteShape(lambda oparg: _exact_args_shape(oparg, True),
                                        lambda oparg: _exact_args_inlined(oparg, True))
# (a closure: its cells go in the free slots after the other locals)
PY_EXACT_ARGS_FREE_IN_PLACE = SiteShape(lambda oparg: _exact_args_shape(oparg, False, True))
PY_EXACT_ARGS_SELF_FREE_IN_PLACE = SiteShape(lambda oparg: _exact_args_shape(oparg, True, True))


def _exact_args_in_place(handler, oparg, found, prepared):
    """A site's derived handler marked for fused runs: a function the interpreter runs
    (not a generator's), called with its arguments as they are."""
    tail, with_self = found["tail"], prepared["with_self"]
    if tail is None or with_self is None:
        return handler
    kind = ((PY_EXACT_ARGS_SELF_FREE_IN_PLACE if found["has_free"] else PY_EXACT_ARGS_SELF_IN_PLACE)
            if with_self else
            PY_EXACT_ARGS_FREE_IN_PLACE if found["has_free"] else PY_EXACT_ARGS_IN_PLACE)
    return kind.facts(handler, prepared["seen_ref"], prepared["seen_version"],
                      found["func_version"], with_self, prepared["size"], found["info"], tail,
                      Frame, _enter, *_exact_args_guard(oparg)[1])


PY_EXACT_ARGS.fast = _exact_args_in_place


# ALLOC_AND_ENTER_INIT: the member's guard, then __init__ alive with the code seen, and
# room for its frame and the shim's; __init__'s frame made from the operands and run by
# loop.enter(); the new object is the result (when the loop takes over, it is left on
# the stack where the class was: what the shim returns).  Facts: {c0} the class seen
# (weakly), {c1} its typewatch token, {c2} the version, {c3} __init__ (weakly), {c4} its
# code, {c5} _has_space, {c6} the frames' size, {c7} object.__new__, {c8} the CodeInfo,
# {c9} its locals after the arguments, {c10} Frame, {c11} the shim, {c12} loop.enter.
_INIT_FACTS = {"callable": "{0}", "self_or_null": "{1}", "NULL": "NULL", "cls_ref": "{c0}",
               "token": "{c1}", "func_version": "{c2}"}


def _alloc_and_enter_init_shape(oparg):
    args = "".join(f", {{{i}}}" for i in range(2, oparg + 2))
    guard, _ = ALLOC_AND_ENTER_INIT.guard_template(oparg, _INIT_FACTS, 13)
    return Shape(
        oparg + 2, ["{r0}"], consts=None,
        guard=guard + " and (init := {c3}()) is not None and init.__code__ is {c4}"
                      " and {c5}(f, {c6})",
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


def _alloc_in_place(handler, oparg, found, prepared):
    """A site's derived handler marked for fused runs: __init__ run by the interpreter,
    taking the arguments given."""
    init_ref, code, argcount, info, tail, has_free = found["entry"]
    if tail is None or has_free or argcount != oparg + 1:
        return handler
    return ALLOC_AND_ENTER_INIT_IN_PLACE.facts(
        handler, prepared["cls_ref"], prepared["token"], found["func_version"], init_ref, code,
        _has_space, _framesize(info.code) + _datastack.INIT_CLEANUP_FRAMESIZE, _object_new,
        info, tail, Frame, _INIT_CLEANUP, _enter)


ALLOC_AND_ENTER_INIT.fast = _alloc_in_place
FAMILY.inline_members = lambda oparg: (PY_EXACT_ARGS_IN_PLACE, PY_EXACT_ARGS_SELF_IN_PLACE,
                                       PY_EXACT_ARGS_FREE_IN_PLACE, PY_EXACT_ARGS_SELF_FREE_IN_PLACE,
                                       NATIVE_IN_PLACE, NATIVE_DEF_IN_PLACE, DESCRIPTOR_IN_PLACE,
                                       ALLOC_AND_ENTER_INIT_IN_PLACE)
