"""Fast locals, cells, globals and names: LOAD_FAST ... STORE_NAME."""

from quickening.interp.ops.registry import NULL, const, handles, name


# -- constants --------------------------------------------------------------
@handles("LOAD_CONST", decode=const)
def load_const(f, stack, arg, nxt):
    stack.append(arg)
    return nxt


# -- fast locals -------------------------------------------------------------
@handles("LOAD_FAST")
def load_fast(f, stack, arg, nxt):
    stack.append(stack[arg])
    return nxt


def unbound_local(f, index):
    return UnboundLocalError(
        f"cannot access local variable '{f.info.localsplus[index]}' where it is not "
        f"associated with a value")


@handles("LOAD_FAST_CHECK")
def load_fast_check(f, stack, arg, nxt):
    value = stack[arg]
    if value is NULL:
        raise unbound_local(f, arg)
    stack.append(value)
    return nxt


@handles("LOAD_FAST_AND_CLEAR")
def load_fast_and_clear(f, stack, arg, nxt):
    fast = stack  # locals and value stack share one list
    stack.append(fast[arg])
    fast[arg] = NULL
    return nxt


def _pair(info, oparg, pc, nxt):
    return (oparg >> 4, oparg & 15)


@handles("LOAD_FAST_LOAD_FAST", decode=_pair)
def load_fast_load_fast(f, stack, arg, nxt):
    fast = stack  # locals and value stack share one list
    stack.append(fast[arg[0]])
    stack.append(fast[arg[1]])
    return nxt


@handles("STORE_FAST")
def store_fast(f, stack, arg, nxt):
    stack[arg] = stack.pop()
    return nxt


@handles("STORE_FAST_LOAD_FAST", decode=_pair)
def store_fast_load_fast(f, stack, arg, nxt):
    fast = stack  # locals and value stack share one list
    fast[arg[0]] = stack[-1]
    stack[-1] = fast[arg[1]]
    return nxt


@handles("STORE_FAST_STORE_FAST", decode=_pair)
def store_fast_store_fast(f, stack, arg, nxt):
    fast = stack  # locals and value stack share one list
    fast[arg[0]] = stack.pop()
    fast[arg[1]] = stack.pop()
    return nxt


@handles("DELETE_FAST")
def delete_fast(f, stack, arg, nxt):
    fast = stack  # locals and value stack share one list
    if fast[arg] is NULL:
        raise unbound_local(f, arg)
    fast[arg] = NULL
    return nxt


# -- cells -------------------------------------------------------------------
@handles("MAKE_CELL")
def make_cell(f, stack, arg, nxt):
    fast = stack  # locals and value stack share one list
    value = fast[arg]
    cell = CellType() if value is NULL else CellType(value)
    fast[arg] = cell
    return nxt


from types import CellType  # noqa: E402


@handles("COPY_FREE_VARS")
def copy_free_vars(f, stack, arg, nxt):
    # the closure cells were placed in the free slots when the frame was made
    return nxt


def unbound_deref(f, index):
    info = f.info
    varname = info.localsplus[index]
    if index < info.free_start:
        return UnboundLocalError(
            f"cannot access local variable '{varname}' where it is not associated with a value")
    return NameError(
        f"cannot access free variable '{varname}' where it is not associated with a value "
        f"in enclosing scope", name=varname)


@handles("LOAD_DEREF")
def load_deref(f, stack, arg, nxt):
    # (errors are raised outside the except clause: CPython's have no __context__
    # from the lookup that failed)
    try:
        stack.append(stack[arg].cell_contents)
        return nxt
    except ValueError:
        pass
    raise unbound_deref(f, arg)


@handles("STORE_DEREF")
def store_deref(f, stack, arg, nxt):
    stack[arg].cell_contents = stack.pop()
    return nxt


@handles("DELETE_DEREF")
def delete_deref(f, stack, arg, nxt):
    # an empty cell raises as LOAD_DEREF's does (deleting its contents would not complain)
    load_deref(f, stack, arg, nxt)
    del stack[-1]
    del stack[arg].cell_contents
    return nxt


@handles("LOAD_FROM_DICT_OR_DEREF")
def load_from_dict_or_deref(f, stack, arg, nxt):
    mapping = stack.pop()
    varname = f.info.localsplus[arg]
    try:
        value = mapping[varname]
    except KeyError:
        value = NULL
    if value is NULL:
        try:
            value = stack[arg].cell_contents
        except ValueError:
            value = NULL
        if value is NULL:
            raise unbound_deref(f, arg)
    stack.append(value)
    return nxt


# -- globals -----------------------------------------------------------------
def _global(info, oparg, pc, nxt):
    return (info.names[oparg >> 1], oparg & 1)


def name_error(varname):
    # .name as _PyEval_FormatExcCheckArg sets it (traceback's "Did you mean" uses it)
    return NameError(f"name '{varname}' is not defined", name=varname)


def load_global_value(f, varname):
    g = f.globals
    if type(g) is dict:
        value = g.get(varname, NULL)
        if value is not NULL:
            return value
    else:
        try:
            return g[varname]
        except KeyError:
            pass
    b = f.builtins
    if type(b) is dict:
        value = b.get(varname, NULL)
        if value is not NULL:
            return value
        raise name_error(varname)
    try:
        return b[varname]
    except KeyError:
        pass
    raise name_error(varname)


@handles("LOAD_GLOBAL", decode=_global)
def load_global(f, stack, arg, nxt):
    varname, push_null = arg
    value = f.globals.get(varname, NULL)
    if value is NULL:
        value = load_global_value(f, varname)
    stack.append(value)
    if push_null:
        stack.append(NULL)
    return nxt


@handles("STORE_GLOBAL", decode=name)
def store_global(f, stack, arg, nxt):
    f.globals[arg] = stack.pop()
    return nxt


@handles("DELETE_GLOBAL", decode=name)
def delete_global(f, stack, arg, nxt):
    try:
        del f.globals[arg]
        return nxt
    except KeyError:
        pass
    raise name_error(arg)


# -- names (module and class bodies) -----------------------------------------
def _no_locals(what, varname):
    return SystemError(f"no locals found when {what} {varname!r}")


@handles("LOAD_NAME", decode=name)
def load_name(f, stack, arg, nxt):
    mapping = f.locals
    if mapping is None:
        raise _no_locals("loading", arg)
    if type(mapping) is dict:
        value = mapping.get(arg, NULL)
        if value is NULL:
            value = load_global_value(f, arg)
        stack.append(value)
    else:
        stack.append(_from_mapping_or_globals(f, mapping, arg))
    return nxt


def _from_mapping_or_globals(f, mapping, name):
    """mapping[name] (any mapping: KeyError means absent), else the global or builtin."""
    try:
        value = mapping[name]
    except KeyError:
        value = NULL
    if value is NULL:
        value = load_global_value(f, name)
    return value


@handles("LOAD_FROM_DICT_OR_GLOBALS", decode=name)
def load_from_dict_or_globals(f, stack, arg, nxt):
    stack.append(_from_mapping_or_globals(f, stack.pop(), arg))
    return nxt


@handles("STORE_NAME", decode=name)
def store_name(f, stack, arg, nxt):
    mapping = f.locals
    if mapping is None:
        raise _no_locals("storing", arg)
    mapping[arg] = stack.pop()
    return nxt


@handles("DELETE_NAME", decode=name)
def delete_name(f, stack, arg, nxt):
    mapping = f.locals
    if mapping is None:
        raise _no_locals("deleting", arg)
    try:
        del mapping[arg]
        return nxt
    except KeyError:
        pass
    raise name_error(arg)


@handles("LOAD_LOCALS")
def load_locals(f, stack, arg, nxt):
    if f.locals is None:
        raise SystemError("no locals found")
    stack.append(f.locals)
    return nxt
