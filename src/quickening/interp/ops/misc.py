"""Intrinsics, annotations, class building and other one-offs."""

import sys
import types

from quickening.interp import host
from quickening.interp.generators import AsyncGenWrapped
from quickening.interp.ops.exceptions import prep_reraise_star
from quickening.interp.ops.imports import import_star
from quickening.interp.ops.registry import handles, tp_name

_OP = host.OPMAP


def _native_intrinsic(kind, number):
    """A tiny native function that runs CALL_INTRINSIC_<kind> <number> on its arguments.

    The typing intrinsics (TypeVar, Generic[...], `type X = ...`) build objects
    that cannot be made lazily from Python; CPython makes them for us.
    """
    if kind == 1:
        def template(a):
            return a
        body = [("RESUME", 0), ("LOAD_FAST", 0), ("CALL_INTRINSIC_1", number), ("RETURN_VALUE", 0)]
    else:
        def template(a, b):
            return a
        body = [("RESUME", 0), ("LOAD_FAST", 0), ("LOAD_FAST", 1), ("CALL_INTRINSIC_2", number),
                ("RETURN_VALUE", 0)]
    raw = b"".join(bytes([_OP[name], arg]) for name, arg in body)
    code = template.__code__.replace(co_code=raw, co_stacksize=4, co_linetable=b"",
                                     co_exceptiontable=b"")
    import builtins
    return types.FunctionType(code, {"__builtins__": builtins, "__name__": "quickening"})


def _print(f, value):
    hook = getattr(sys, "displayhook", None)
    if hook is None:
        raise RuntimeError("lost sys.displayhook")
    hook(value)
    return None


def _stopiteration_error(f, exc):
    flags = f.info.flags
    msg = None
    if isinstance(exc, StopIteration):
        msg = "generator raised StopIteration"
        if flags & host.CO_ASYNC_GENERATOR:
            msg = "async generator raised StopIteration"
        elif flags & host.CO_COROUTINE:
            msg = "coroutine raised StopIteration"
    elif flags & host.CO_ASYNC_GENERATOR and isinstance(exc, StopAsyncIteration):
        msg = "async generator raised StopAsyncIteration"
    if msg is None:
        return exc
    error = RuntimeError(msg)
    error.__cause__ = exc
    error.__context__ = exc
    return error


def _async_gen_wrap(f, value):
    return AsyncGenWrapped(value)


_INTRINSIC_1 = {
    "INTRINSIC_PRINT": _print,
    "INTRINSIC_IMPORT_STAR": import_star,
    "INTRINSIC_STOPITERATION_ERROR": _stopiteration_error,
    "INTRINSIC_ASYNC_GEN_WRAP": _async_gen_wrap,
    "INTRINSIC_UNARY_POSITIVE": lambda f, v: +v,
    "INTRINSIC_LIST_TO_TUPLE": lambda f, v: tuple(v),
}
_INTRINSIC_2 = {
    "INTRINSIC_PREP_RERAISE_STAR": lambda f, orig, excs: prep_reraise_star(orig, excs),
}


def _intrinsic(table, descs, kind):
    def decode(info, oparg, pc, nxt):
        fn = table.get(descs[oparg])
        if fn is None:
            native = _native_intrinsic(kind, oparg)

            def fn(f, *args, native=native):
                # typing objects take __module__ from the function running the
                # intrinsic: make that the interpreted frame's module
                func = f.func
                native.__module__ = (getattr(func, "__module__", None) if func is not None
                                     else f.globals.get("__name__"))
                return native(*args)
            table[descs[oparg]] = fn
        return fn
    return decode


@handles("CALL_INTRINSIC_1", decode=_intrinsic(_INTRINSIC_1, host.INTRINSIC_1, 1))
def call_intrinsic_1(f, stack, arg, nxt):
    f.pc = nxt
    stack[-1] = arg(f, stack[-1])
    return nxt


@handles("CALL_INTRINSIC_2", decode=_intrinsic(_INTRINSIC_2, host.INTRINSIC_2, 2))
def call_intrinsic_2(f, stack, arg, nxt):
    value1 = stack.pop()
    f.pc = nxt
    stack[-1] = arg(f, stack[-1], value1)
    return nxt


@handles("SETUP_ANNOTATIONS")
def setup_annotations(f, stack, arg, nxt):
    mapping = f.locals
    if mapping is None:
        raise SystemError("no locals found when setting up annotations")
    if type(mapping) is dict:
        if "__annotations__" not in mapping:
            mapping["__annotations__"] = {}
    else:
        try:
            mapping["__annotations__"]
        except KeyError:
            mapping["__annotations__"] = {}
    return nxt


@handles("LOAD_BUILD_CLASS")
def load_build_class(f, stack, arg, nxt):
    b = f.builtins
    try:
        stack.append(b["__build_class__"])
    except KeyError:
        raise NameError("__build_class__ not found") from None
    return nxt


@handles("EXIT_INIT_CHECK")
def exit_init_check(f, stack, arg, nxt):
    value = stack.pop()
    if value is not None:
        raise TypeError(f"__init__() should return None, not '{tp_name(type(value))}'")
    return nxt


@handles("RESERVED", "ENTER_EXECUTOR")
def never_in_co_code(f, stack, arg, nxt):
    raise SystemError("an instruction that CPython never writes to co_code")
