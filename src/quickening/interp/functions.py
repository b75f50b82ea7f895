"""Real function objects whose bodies run in the interpreter.

MAKE_FUNCTION builds a genuine `types.FunctionType` whose `__code__` is a
*trampoline*: a copy of the real code object with the same signature, names,
flags and free variables, whose bytecode only hands the bound arguments and
closure cells to `enter()`.  So when native code calls the function
(sorted's key, a C slot, unittest), CPython binds the arguments and the body
still runs here; when interpreted code calls it, the loop recognizes the
trampoline and pushes a frame instead.

Argument binding for interpreted calls is done in Python on the success path;
when it detects an error it asks CPython to bind the same call through a
*binder* function of the same signature, so the exception is CPython's own.
"""

import sys
import types

from quickening.interp import escapes, facts, frameview, host, tracebacks
from quickening.interp import generators as _generators
from quickening.interp.handled import current as _handled
from quickening.interp.codeinfo import TRAMPOLINES, info_for
from quickening.interp.frame import Frame, builtins_of, thread_state as _thread_state
from quickening.interp.loop import enter as _enter, run_frame as _run_frame
from quickening.interp.ops.registry import NULL

_OP = host.OPMAP
_CACHES = host.CACHE_ENTRIES
FunctionType = types.FunctionType


def _assemble(instructions):
    out = bytearray()
    for opname, arg in instructions:
        op = _OP[opname]
        if arg > 0xFF:
            for shift in (24, 16, 8):
                if arg >> shift:
                    out += bytes([_OP["EXTENDED_ARG"], (arg >> shift) & 0xFF])
        out += bytes([op, arg & 0xFF])
        out += b"\0\0" * _CACHES.get(op, 0)
    return bytes(out)


def _trampoline_code(info, body_returns_tuple=False):
    """Bytecode: call enter(info, globals(), (args..., cells...)).

    The code keeps the real code's co_consts (and co_names) first, so code that
    inspects `f.__code__.co_consts` (a docstring, nested code objects) sees the
    real ones; enter, info and globals are appended after them."""
    code = info.code
    k = len(code.co_consts)
    ins = []
    if info.nfree:
        ins.append(("COPY_FREE_VARS", info.nfree))
    ins.append(("RESUME", 0))
    if not body_returns_tuple:
        ins += [("LOAD_CONST", k), ("PUSH_NULL", 0), ("LOAD_CONST", k + 1),
                ("LOAD_CONST", k + 2), ("PUSH_NULL", 0), ("CALL", 0)]
    for i in range(info.nparams):
        ins.append(("LOAD_FAST", i))
    if not body_returns_tuple:
        for j in range(info.nfree):
            ins.append(("LOAD_FAST", info.free_start + j))
        ins += [("BUILD_TUPLE", info.nparams + info.nfree), ("CALL", 3), ("RETURN_VALUE", 0)]
    else:
        ins += [("BUILD_TUPLE", info.nparams), ("RETURN_VALUE", 0)]
    consts = code.co_consts + ((enter, info, globals) if not body_returns_tuple else ())
    body = _assemble(ins)
    return code.replace(co_code=body, co_consts=consts,
                        co_stacksize=info.nparams + info.nfree + 8,
                        co_exceptiontable=b"", co_linetable=_first_line_table(len(body) // 2))


def _first_line_table(units):
    """A location table putting every code unit on co_firstlineno (no columns), so
    tracebacks through a trampoline (made natively) can be formatted."""
    table = bytearray()
    while units > 0:
        n = min(units, 8)
        table += bytes([0x80 | (13 << 3) | (n - 1), 0])  # NO_COLUMNS, line delta 0
        units -= n
    return bytes(table)


def trampoline_for(info):
    tramp = info.trampoline
    if tramp is None:
        tramp = info.trampoline = _trampoline_code(info)
        TRAMPOLINES[id(tramp)] = info
        tracebacks.INTERNAL_CODES.add(tramp)
        escapes.watch(info.code)
    return tramp


def make_function(code, globals_, closure, engine):
    """MAKE_FUNCTION: a real function whose body runs in the interpreter (engine: the
    speed engine of the code that makes it, codeinfo.py)."""
    info = info_for(code, engine)
    func = FunctionType(trampoline_for(info), globals_, None, None, closure)
    if facts.PROBLEM is None:
        facts.assign_function_version(func)   # as MAKE_FUNCTION does (CALL specializes on it)
    return func


def interpreted_info(func):
    """The CodeInfo to run for a function, or None if it should run natively."""
    return TRAMPOLINES.get(id(func.__code__))


# -- entering from native code -------------------------------------------------
_getframe = sys._getframe


def entry_depth(back):
    """The recursion depth of a frame entered from native code.

    Under an interpreted frame: one more.  Outermost: one more than the
    Python frames of the program's own (native) callers, as CPython counts
    them (the interpreter's own frames are not counted)."""
    if back is not None:
        return back.depth + 1
    depth = 1
    host = _getframe(2)
    bottom = frameview.PROGRAM_BOTTOM      # (the host frame the program runs on)
    while host is not None and host is not bottom:
        if not tracebacks.is_internal(host.f_code):
            depth += 1
        host = host.f_back
    return depth


def enter(info, globals_, values):
    """Called by a trampoline: run the body of `info.code` in the interpreter."""
    nparams = info.nparams
    fast = list(values[:nparams]) if info.nfree else list(values)
    fast += [NULL] * (info.free_start - nparams)
    if info.nfree:
        fast += values[nparams:]
    back = _thread_state().frame
    frame = Frame(info, fast, globals_, builtins_of(globals_), None, None, entry_depth(back))
    if info.is_generator_like:
        return _generator_of(frame, _getframe(1).f_code.co_flags)   # (the trampoline's)
    # run here while nothing unusual happens; the loop takes over where it stopped
    outer = _handled()
    value = _enter(back, frame)
    if value is not NULL:
        return value
    return _run_frame(frame, saved_handled=outer)


def _generator_of(frame, function_code_flags):
    """The generator, coroutine or async generator running a new frame.  The
    function's __code__ may carry flags set after it was made (types.coroutine):
    the code runs with those flags."""
    info = frame.info
    extra = function_code_flags & host.CO_ITERABLE_COROUTINE
    if extra and not info.flags & extra:
        frame.info = _flagged_info(info, extra)
    return _generators.wrap(frame)


def start_generator(info, func, args, kwargs, depth):
    """Interpreted code calls a generator-like function: the generator, coroutine
    or async generator it returns, made here (not through the trampoline)."""
    obj = _generator_of(new_frame(info, func, args, kwargs, depth), func.__code__.co_flags)
    obj.__name__ = func.__name__           # as CPython names it: after the function
    obj.__qualname__ = func.__qualname__
    return obj


_FLAGGED = {}  # (id of the CodeInfo, extra flags) -> CodeInfo of the flagged code


def _flagged_info(info, extra):
    key = (id(info), extra)
    flagged = _FLAGGED.get(key)
    if flagged is None or flagged[0] is not info:
        flagged = _FLAGGED[key] = (info, info_for(info.code.replace(co_flags=info.flags | extra),
                                                        info.engine))
    return flagged[1]


# -- binding for interpreted calls ---------------------------------------------
def bind(info, func, args, kwargs):
    """The fast locals of a call of func(*args, **kwargs), bound as CPython would."""
    n = len(args)
    argcount = info.argcount
    if not kwargs and n == argcount and info.nparams == n:
        fast = list(args)
    else:
        fast = _bind_general(info, func, args, kwargs)
        if fast is None:
            fast = _bind_natively(info, func, args, kwargs)
    fast += [NULL] * (info.free_start - info.nparams)
    if info.nfree:
        fast += func.__closure__
    return fast


def _bind_general(info, func, args, kwargs):
    """Bind on the success path; None when CPython would raise (it will say why)."""
    n = len(args)
    argcount = info.argcount
    kwonly = info.kwonlycount
    fast = [NULL] * info.nparams
    if n > argcount:
        if info.varargs_index < 0:
            return None
        fast[:argcount] = args[:argcount]
        fast[info.varargs_index] = tuple(args[argcount:])
    else:
        fast[:n] = args
        if info.varargs_index >= 0:
            fast[info.varargs_index] = ()
    kwdict = None
    if info.varkw_index >= 0:
        kwdict = fast[info.varkw_index] = {}
    if kwargs:
        param_index = info.param_index
        for key, value in kwargs.items():
            if type(key) is not str:
                return None
            index = param_index.get(key)
            if index is None:
                if kwdict is None:
                    return None
                kwdict[key] = value
            elif fast[index] is not NULL:
                return None
            else:
                fast[index] = value
    if n < argcount:
        defaults = func.__defaults__ or ()
        first_default = argcount - len(defaults)
        for i in range(n, argcount):
            if fast[i] is NULL:
                if i < first_default:
                    return None
                fast[i] = defaults[i - first_default]
    if kwonly:
        kwdefaults = func.__kwdefaults__
        names = info.code.co_varnames
        for i in range(argcount, argcount + kwonly):
            if fast[i] is NULL:
                if kwdefaults is None or names[i] not in kwdefaults:
                    return None
                fast[i] = kwdefaults[names[i]]
    return fast


def _bind_natively(info, func, args, kwargs):
    """Let CPython bind (and raise its own error) through a same-signature binder."""
    binder_code = info.binder_code
    if binder_code is None:
        binder_code = info.binder_code = _trampoline_code(info, body_returns_tuple=True)
        tracebacks.INTERNAL_CODES.add(binder_code)
    closure = tuple(types.CellType() for _ in range(info.nfree)) or None
    binder = FunctionType(binder_code, func.__globals__, func.__name__, func.__defaults__, closure)
    binder.__kwdefaults__ = func.__kwdefaults__
    binder.__qualname__ = func.__qualname__
    return list(binder(*args, **(kwargs or {})))


def new_frame(info, func, args, kwargs, depth):
    """A frame for an interpreted call of func (its body not yet started)."""
    globals_ = func.__globals__
    frame = Frame(info, bind(info, func, args, kwargs), globals_, func.__builtins__, None, None, depth)
    frame.func = func
    return frame
