"""Generators and async: SEND, GET_AWAITABLE, async for / async with."""

import types

from quickening.interp import facts, host
from quickening.interp.ops.exceptions import enter_context, lookup_special
from quickening.interp.ops.registry import NULL, forward, handles, tp_name

CoroutineType = types.CoroutineType
GeneratorType = types.GeneratorType
# a coroutine's own cr_await (a program's reads of cr_await see an interpreted
# coroutine's frame: generators.py)
_cr_await = facts.NATIVE_GETTERS["cr_await"]


@handles("GET_YIELD_FROM_ITER")
def get_yield_from_iter(f, stack, arg, nxt):
    obj = stack[-1]
    t = type(obj)
    if t is CoroutineType:
        if not f.info.flags & (host.CO_COROUTINE | host.CO_ITERABLE_COROUTINE):
            raise TypeError("cannot 'yield from' a coroutine object in a non-coroutine generator")
    elif t is not GeneratorType:
        stack[-1] = iter(obj)
    return nxt


@handles("SEND", decode=forward)
def send(f, stack, arg, nxt):
    value = stack[-1]
    receiver = stack[-2]
    f.pc = nxt
    try:
        if value is None and hasattr(type(receiver), "__next__"):
            result = next(receiver)
        else:
            result = receiver.send(value)
    except StopIteration as stop:
        stack[-1] = stop.value
        return arg
    stack[-1] = result
    return nxt


def _ending(f, stack, ending):
    """The exception on top of the stack, popped, when it is the `ending` one (the
    end of an iteration); any other is raised again as it is (no_tb: the frame's
    line is in its traceback already)."""
    exc = stack.pop()
    if isinstance(exc, ending):
        return exc
    f.no_tb = True
    raise exc


@handles("CLEANUP_THROW")
def cleanup_throw(f, stack, arg, nxt):
    # (sub_iter, last_sent_val, exc -- none, value)
    value = _ending(f, stack, StopIteration).value
    del stack[-1]
    stack[-1] = None
    stack.append(value)
    return nxt


def get_awaitable(obj, where):
    t = type(obj)
    if t is CoroutineType:
        if _cr_await(obj) is not None:
            raise RuntimeError("coroutine is being awaited already")
        return obj
    if t is GeneratorType and obj.gi_code.co_flags & host.CO_ITERABLE_COROUTINE:
        return obj
    getter = lookup_special(obj, "__await__")
    if getter is NULL:
        if where == 1:
            raise TypeError(f"'async with' received an object from __aenter__ that does not "
                            f"implement __await__: {tp_name(t)}")
        if where == 2:
            raise TypeError(f"'async with' received an object from __aexit__ that does not "
                            f"implement __await__: {tp_name(t)}")
        raise TypeError(f"object {tp_name(t)} can't be used in 'await' expression")
    result = getter()
    rt = type(result)
    if rt is CoroutineType or (rt is GeneratorType and result.gi_code.co_flags & host.CO_ITERABLE_COROUTINE):
        raise TypeError("__await__() returned a coroutine")
    if not hasattr(rt, "__next__"):
        raise TypeError(f"__await__() returned non-iterator of type '{tp_name(rt)}'")
    return result


@handles("GET_AWAITABLE")
def get_awaitable_op(f, stack, arg, nxt):
    stack[-1] = get_awaitable(stack[-1], arg)
    return nxt


@handles("GET_AITER")
def get_aiter(f, stack, arg, nxt):
    obj = stack[-1]
    getter = lookup_special(obj, "__aiter__")
    if getter is NULL:
        raise TypeError(f"'async for' requires an object with __aiter__ method, got "
                        f"{tp_name(type(obj))}")
    it = getter()
    if lookup_special(it, "__anext__") is NULL:
        raise TypeError(f"'async for' received an object from __aiter__ that does not "
                        f"implement __anext__: {tp_name(type(it))}")
    stack[-1] = it
    return nxt


@handles("GET_ANEXT")
def get_anext(f, stack, arg, nxt):
    it = stack[-1]
    if type(it) is types.AsyncGeneratorType:
        stack.append(it.__anext__())
        return nxt
    getter = lookup_special(it, "__anext__")
    if getter is NULL:
        raise TypeError(f"'async for' requires an iterator with __anext__ method, got "
                        f"{tp_name(type(it))}")
    f.pc = nxt
    result = getter()
    try:
        stack.append(get_awaitable(result, 0))
    except BaseException as err:
        # _PyErr_FormatFromCause: any failure becomes the cause (and context)
        raise TypeError(f"'async for' received an invalid object from __anext__: "
                        f"{tp_name(type(result))}") from err
    return nxt


@handles("END_ASYNC_FOR")
def end_async_for(f, stack, arg, nxt):
    # (awaitable, exc -- )
    _ending(f, stack, StopAsyncIteration)
    del stack[-1]
    return nxt


@handles("BEFORE_ASYNC_WITH")
def before_async_with(f, stack, arg, nxt):
    return enter_context(f, stack, nxt, "__aenter__", "__aexit__",
                         "asynchronous context manager protocol")
