"""Building and taking apart containers, subscripts, slices and strings."""

from quickening.interp import generated
from quickening.interp.ops.registry import (NULL, handles, star_iterable, statement_handlers,
                                            tp_name)


@handles("BUILD_TUPLE")
def build_tuple(f, stack, arg, nxt):
    if arg:
        items = tuple(stack[-arg:])
        del stack[-arg:]
        stack.append(items)
    else:
        stack.append(())
    return nxt


@handles("BUILD_LIST")
def build_list(f, stack, arg, nxt):
    if arg:
        items = stack[-arg:]
        del stack[-arg:]
        stack.append(items)
    else:
        stack.append([])
    return nxt


@handles("BUILD_SET")
def build_set(f, stack, arg, nxt):
    items = stack[len(stack) - arg:]
    del stack[len(stack) - arg:]
    result = set()
    for item in items:
        result.add(item)
    stack.append(result)
    return nxt


@handles("BUILD_MAP")
def build_map(f, stack, arg, nxt):
    items = stack[len(stack) - 2 * arg:]
    del stack[len(stack) - 2 * arg:]
    result = {}
    for i in range(0, 2 * arg, 2):
        result[items[i]] = items[i + 1]
    stack.append(result)
    return nxt


@handles("BUILD_CONST_KEY_MAP")
def build_const_key_map(f, stack, arg, nxt):
    keys = stack.pop()
    values = stack[len(stack) - arg:]
    del stack[len(stack) - arg:]
    result = {}
    for key, value in zip(keys, values):
        result[key] = value
    stack.append(result)
    return nxt


@handles("BUILD_SLICE")
def build_slice(f, stack, arg, nxt):
    if arg == 3:
        step = stack.pop()
        stop = stack.pop()
        stack[-1] = slice(stack[-1], stop, step)
    else:
        stop = stack.pop()
        stack[-1] = slice(stack[-1], stop)
    return nxt


# (each pops the value first: the container is then arg deep)
statement_handlers(globals(), {
    "LIST_APPEND": "value = stack.pop(); stack[-arg].append(value)",
    "SET_ADD": "value = stack.pop(); stack[-arg].add(value)",
    "MAP_ADD": "value = stack.pop(); key = stack.pop(); stack[-arg][key] = value",
    "SET_UPDATE": "iterable = stack.pop(); stack[-arg].update(iterable)",
})


@handles("LIST_EXTEND")
def list_extend(f, stack, arg, nxt):
    iterable = stack.pop()
    try:
        stack[-arg].extend(iterable)
        return nxt
    except TypeError:
        if star_iterable(iterable):
            raise
    # CPython replaces the error (no context from it) when `*x` is not iterable at all
    raise TypeError(f"Value after * must be an iterable, not {tp_name(type(iterable))}")


@handles("DICT_UPDATE")
def dict_update(f, stack, arg, nxt):
    update = stack.pop()
    target = stack[-arg]
    if isinstance(update, dict) and type(update).__iter__ is dict.__iter__:
        target.update(update)
        return nxt
    # PyDict_Update: any object with keys() (never a sequence of pairs)
    try:
        keys = update.keys()
    except AttributeError:
        keys = NOT_A_MAPPING
    if keys is NOT_A_MAPPING:
        raise TypeError(f"'{tp_name(type(update))}' object is not a mapping")
    for key in keys:
        target[key] = update[key]
    return nxt


NOT_A_MAPPING = object()


def function_str(func):
    """CPython's _PyObject_FunctionStr: how call errors name a callable."""
    try:
        qualname = func.__qualname__
    except AttributeError:
        return str(func)
    module = getattr(func, "__module__", None)
    if module is not None and module != "builtins":
        return f"{module}.{qualname}()"
    return f"{qualname}()"


@handles("DICT_MERGE")
def dict_merge(f, stack, arg, nxt):
    """`f(**m)`: merge m into the keyword dict, as _PyDict_MergeEx(..., 2) and
    format_kwargs_error word it (non-str keys are the callee's to reject)."""
    update = stack.pop()
    target = stack[-arg]
    callable_ = stack[-arg - 3]
    own = isinstance(update, dict) and type(update).__iter__ is dict.__iter__
    try:
        # a dict's own entries (even if keys()/[] are overridden), else keys() and [];
        # PyMapping_Keys lists keys() through its iterator (no length hint asked of it)
        keys = list(dict.keys(update) if own else iter(update.keys()))
    except AttributeError:
        keys = NULL
    if keys is NULL:
        raise TypeError(f"{function_str(callable_)} argument after ** must be a mapping, "
                        f"not {tp_name(type(update))}")
    for key in keys:
        if key in target:
            # 3.13's _PyEval_FormatKwargsError words any repeated key this way ('%S')
            raise TypeError(f"{function_str(callable_)} got multiple values for keyword "
                            f"argument '{str(key)}'")
        target[key] = dict.__getitem__(update, key) if own else update[key]
    return nxt


# -- subscripts and slices -----------------------------------------------------
@handles("BINARY_SUBSCR")
def binary_subscr(f, stack, arg, nxt):
    sub = stack.pop()
    stack[-1] = stack[-1][sub]
    return nxt


@handles("STORE_SUBSCR")
def store_subscr(f, stack, arg, nxt):
    sub = stack.pop()
    container = stack.pop()
    container[sub] = stack.pop()
    return nxt


@handles("DELETE_SUBSCR")
def delete_subscr(f, stack, arg, nxt):
    sub = stack.pop()
    container = stack.pop()
    del container[sub]
    return nxt


@handles("BINARY_SLICE")
def binary_slice(f, stack, arg, nxt):
    stop = stack.pop()
    start = stack.pop()
    stack[-1] = stack[-1][start:stop]
    return nxt


@handles("STORE_SLICE")
def store_slice(f, stack, arg, nxt):
    stop = stack.pop()
    start = stack.pop()
    container = stack.pop()
    container[start:stop] = stack.pop()
    return nxt


# -- unpacking: CPython does the unpacking (and words its errors) -----------------
_unpackers = {}


def _unpacker(count, before=None):
    key = (count, before)
    fn = _unpackers.get(key)
    if fn is None:
        if before is None:
            targets = ", ".join(f"a{i}" for i in range(count)) + ("," if count == 1 else "")
            ret = ", ".join(f"a{i}" for i in reversed(range(count)))
        else:
            after = count
            names = [f"a{i}" for i in range(before)] + ["*rest"] + [f"b{i}" for i in range(after)]
            targets = ", ".join(names) + ("," if len(names) == 1 else "")
            ret = ", ".join([f"b{i}" for i in reversed(range(after))] + ["rest"]
                            + [f"a{i}" for i in reversed(range(before))])
        if count == 0 and before is None:
            src = "def unpack(value):\n    [] = value\n    return ()\n"
        else:
            src = f"def unpack(value):\n    {targets} = value\n    return ({ret},)\n"
        where = f"UNPACK_SEQUENCE {count}" if before is None else f"UNPACK_EX {before} before, {count} after"
        code = generated.compile_registered("unpacker", src, where)
        namespace = generated.namespace(code)
        exec(code, namespace)
        fn = _unpackers[key] = namespace["unpack"]
    return fn


@handles("UNPACK_SEQUENCE", decode=lambda info, oparg, pc, nxt: (_unpacker(oparg), oparg))
def unpack_sequence(f, stack, arg, nxt):
    value = stack.pop()
    n = arg[1]
    if type(value) is tuple and len(value) == n:
        stack.extend(value[::-1])
    elif type(value) is list and len(value) == n:
        stack.extend(value[::-1])
    else:
        stack.extend(arg[0](value))
    return nxt


@handles("UNPACK_EX", decode=lambda info, oparg, pc, nxt: _unpacker(oparg >> 8, oparg & 0xFF))
def unpack_ex(f, stack, arg, nxt):
    stack.extend(arg(stack.pop()))
    return nxt


# -- strings ----------------------------------------------------------------
@handles("BUILD_STRING")
def build_string(f, stack, arg, nxt):
    pieces = stack[len(stack) - arg:]
    del stack[len(stack) - arg:]
    stack.append("".join(pieces))
    return nxt


@handles("FORMAT_SIMPLE")
def format_simple(f, stack, arg, nxt):
    value = stack[-1]
    if type(value) is not str:
        stack[-1] = format(value)
    return nxt


@handles("FORMAT_WITH_SPEC")
def format_with_spec(f, stack, arg, nxt):
    spec = stack.pop()
    stack[-1] = format(stack[-1], spec)
    return nxt


_CONVERTERS = (None, str, repr, ascii)


@handles("CONVERT_VALUE")
def convert_value(f, stack, arg, nxt):
    stack[-1] = _CONVERTERS[arg](stack[-1])
    return nxt
