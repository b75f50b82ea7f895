"""Calls and function creation: CALL, CALL_KW, CALL_FUNCTION_EX, MAKE_FUNCTION.

A call of a function whose body the interpreter runs pushes a frame: run
right there by loop.enter() when the arguments bind by position, else in
the same loop (registry.SWITCH); anything else is called natively.  A few
builtins look at their caller's frame (locals(), super(), exec ...): those
are answered from the interpreted frame (see runtime.py).
"""

from types import FunctionType, MethodType

from quickening.interp import facts, functions
from quickening.interp.frame import Frame
from quickening.interp.loop import enter_and_push as _enter_and_push
from quickening.interp.masquerade import call_as as _call_as, wants as _masquerade_wants
from quickening.interp.ops.containers import function_str
from quickening.interp.ops.registry import (NULL, SWITCH, handles, star_iterable, tp_name,
                                            traced_on)
from quickening.interp.ops import registry as _registry

# (assigned, not imported: CPython 3.13 compiles a method call on a name an import
# binds without its method form, which the host cannot specialize -- test_layers.py)
INTERCEPTS = _registry.INTERCEPTS

_TRAMPOLINES = functions.TRAMPOLINES
_new_frame = functions.new_frame
_start_generator = functions.start_generator


def call_object(f, stack, func, args, kwargs, nxt):
    """Call func(*args, **kwargs) for frame f; push the result or switch frames."""
    tf = type(func)
    if tf is FunctionType:
        info = _TRAMPOLINES.get(id(func.__code__))
        if info is not None:
            if info.is_generator_like:
                stack.append(_start_generator(info, func, args, kwargs, f.depth + 1))
                return nxt
            f.callee = _new_frame(info, func, args, kwargs, f.depth + 1)
            f.pc = nxt
            return SWITCH
    elif tf is MethodType:
        inner = func.__func__
        if type(inner) is FunctionType:
            info = _TRAMPOLINES.get(id(inner.__code__))
            if info is not None:
                if info.is_generator_like:
                    stack.append(_start_generator(info, inner, (func.__self__, *args), kwargs,
                                                  f.depth + 1))
                    return nxt
                f.callee = _new_frame(info, inner, (func.__self__, *args), kwargs, f.depth + 1)
                f.pc = nxt
                return SWITCH
    f.pc = nxt
    special = INTERCEPTS.get(id(func))
    if special is not None:
        if kwargs and not all(type(k) is str for k in kwargs):
            raise TypeError("keywords must be strings")
        stack.append(special(f, func, args, kwargs))
    elif _masquerade_wants(func):
        stack.append(_call_as(f, func, args, kwargs))
    elif kwargs:
        stack.append(func(*args, **kwargs))
    else:
        stack.append(func(*args))
    if f.trace is not None:
        return traced_on(f, nxt)    # (sys.settrace, a debugger's set_trace ...)
    return nxt


@handles("CALL")
def call(f, stack, arg, nxt):
    base = len(stack) - arg - 2
    func = stack[base]
    args = stack[base + 2:] if stack[base + 1] is NULL else stack[base + 1:]
    del stack[base:]
    if type(func) is FunctionType:
        info = _TRAMPOLINES.get(id(func.__code__))
        if info is not None and info.exact_call_tail is not None and len(args) == info.argcount:
            # the common case: positional arguments matching a simple signature,
            # the frame pushed and run here (as CPython's CALL goes on in the same
            # C loop); `args` is its locals, so nothing here outlives it
            args += info.exact_call_tail
            if info.nfree:
                args += func.__closure__
            f.pc = nxt
            callee = Frame(info, args, func.__globals__, func.__builtins__, None, f, f.depth + 1)
            func = args = None
            return _enter_and_push(f, stack, callee, nxt)
    return call_object(f, stack, func, args, None, nxt)


@handles("CALL_KW")
def call_kw(f, stack, arg, nxt):
    kwnames = stack.pop()
    base = len(stack) - arg - 2
    func = stack[base]
    self_ = stack[base + 1]
    args = stack[base + 2:] if self_ is NULL else stack[base + 1:]
    del stack[base:]
    nkw = len(kwnames)
    kwargs = dict(zip(kwnames, args[len(args) - nkw:]))
    del args[len(args) - nkw:]
    return call_object(f, stack, func, args, kwargs, nxt)


def _star_args_error(func, args):
    return TypeError(f"{function_str(func)} argument after * must be an iterable, "
                     f"not {tp_name(type(args))}")


@handles("CALL_FUNCTION_EX")
def call_function_ex(f, stack, arg, nxt):
    kwargs = stack.pop() if arg & 1 else None
    args = stack.pop()
    self_ = stack.pop()
    func = stack.pop()
    if type(args) is not tuple:
        # CPython checks first (check_args_iterable), then converts
        if not star_iterable(args):
            raise _star_args_error(func, args)
        args = tuple(args)
    if self_ is not NULL:
        args = (self_, *args)
    if kwargs is not None and type(kwargs) is not dict:
        kwargs = dict(kwargs)
    return call_object(f, stack, func, args, kwargs or None, nxt)


class PendingClosure:
    """A function whose closure is not set yet: `__closure__` is read-only, so
    a function with free variables is created by the SET_FUNCTION_ATTRIBUTE
    that follows MAKE_FUNCTION (the compiler always emits the closure first)."""
    __slots__ = ("code", "globals")

    def __init__(self, code, globals_):
        self.code, self.globals = code, globals_


@handles("MAKE_FUNCTION")
def make_function(f, stack, arg, nxt):
    code = stack[-1]
    if code.co_freevars:
        stack[-1] = PendingClosure(code, f.globals)
    else:
        stack[-1] = functions.make_function(code, f.globals, None, f.info.engine)
    return nxt


_FUNCTION_ATTRIBUTES = {1: "__defaults__", 2: "__kwdefaults__", 4: "__annotations__",
                        8: "__closure__", 16: "__type_params__"}


@handles("SET_FUNCTION_ATTRIBUTE")
def set_function_attribute(f, stack, arg, nxt):
    func = stack.pop()
    value = stack.pop()
    if arg == 8:
        func = functions.make_function(func.code, func.globals, value, f.info.engine)
    elif arg == 4 and type(value) is tuple:
        # the compiler passes annotations as a flat (name, value, ...) tuple
        func.__annotations__ = dict(zip(value[::2], value[1::2]))
    elif arg <= 2:
        # (written out, not setattr(): the setters raise object.__setattr__, which an
        # audit hook must not see for this, the interpreter's own store -- audit.py)
        if arg == 1:
            func.__defaults__ = value
        else:
            func.__kwdefaults__ = value
        if facts.PROBLEM is None:
            # CPython's SET_FUNCTION_ATTRIBUTE keeps the version MAKE_FUNCTION
            # gave (the __defaults__ / __kwdefaults__ setters reset it)
            facts.assign_function_version(func)
    else:
        setattr(func, _FUNCTION_ATTRIBUTES[arg], value)
    stack.append(func)
    return nxt
