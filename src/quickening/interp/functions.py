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
from quickening.interp.codeinfo import info_for
from quickening.interp import codeinfo as _codeinfo
from quickening.interp.frame import Frame, builtins_of, thread_state as _thread_state
from quickening.interp.loop import (LOW_HOST_ROOM as _LOW_HOST_ROOM, RECURSION_LIMIT as _RECURSION_LIMIT,
                                   enter as _enter, program_recursion_limit as _program_recursion_limit,
                                   run_frame as _run_frame, too_deep as _too_deep,
                                   with_host_room as _with_host_room)
from quickening.interp.ops.registry import NULL

# (assigned, not imported: CPython 3.13 compiles a method call on a name an import
# binds without its method form, which the host cannot specialize -- test_layers.py)
TRAMPOLINES = _codeinfo.TRAMPOLINES

_OP = host.OPMAP
_CACHES = host.CACHE_ENTRIES
FunctionType = types.FunctionType


def _assemble(instructions):
    """(bytecode, offsets): offsets[i] is the code unit instruction i starts at."""
    out = bytearray()
    offsets = []
    for opname, arg in instructions:
        offsets.append(len(out) // 2)
        op = _OP[opname]
        if arg > 0xFF:
            for shift in (24, 16, 8):
                if arg >> shift:
                    out += bytes([_OP["EXTENDED_ARG"], (arg >> shift) & 0xFF])
        out += bytes([op, arg & 0xFF])
        out += b"\0\0" * _CACHES.get(op, 0)
    return bytes(out), offsets


def _exception_table_entry(start, end, target, depth):
    """One entry of a code object's exception table (the units start..end-1 go to
    `target` with `depth` items on the stack, lasti not pushed): each number in
    6-bit chunks, most significant first, 0x40 on all but the last chunk, 0x80 on
    the entry's first byte."""
    out = bytearray()
    for value in (start, end - start, target, depth << 1):
        chunks = [value & 63]
        value >>= 6
        while value:
            chunks.append(value & 63)
            value >>= 6
        chunks.reverse()
        out += bytes(c | 0x40 for c in chunks[:-1]) + bytes(chunks[-1:])
    out[0] |= 0x80
    return bytes(out)


def _trampoline_code(info, body_returns_tuple=False):
    """Bytecode: call enter(info, globals(), (args..., cells...)).

    The code keeps the real code's co_consts (and co_names) first, so code that
    inspects `f.__code__.co_consts` (a docstring, nested code objects) sees the
    real ones; enter, info, globals and tracebacks.leaving are appended after them.
    It is at least as long as the real code and has its location table, so that an
    instruction offset of the real code has the same line and positions in it: the
    frame objects of the function's activations report it as their code (the
    function's __code__, as in CPython: tracebacks.shown_code).  An exception
    leaving the call is handed to tracebacks.leaving, which drops the traceback
    entries of this frame and of the interpreter's own, and re-raised: the native
    caller gets CPython's traceback."""
    code = info.code
    k = len(code.co_consts)
    ins = []
    if info.nfree:
        ins.append(("COPY_FREE_VARS", info.nfree))
    ins.append(("RESUME", 0))
    protected = len(ins)
    if not body_returns_tuple:
        ins += [("LOAD_CONST", k), ("PUSH_NULL", 0), ("LOAD_CONST", k + 1),
                ("LOAD_CONST", k + 2), ("PUSH_NULL", 0), ("CALL", 0)]
    for i in range(info.nparams):
        ins.append(("LOAD_FAST", i))
    if body_returns_tuple:
        ins += [("BUILD_TUPLE", info.nparams), ("RETURN_VALUE", 0)]
        body, _ = _assemble(ins)
        return code.replace(co_code=body, co_stacksize=info.nparams + info.nfree + 8,
                            co_exceptiontable=b"",
                            co_linetable=_first_line_table(len(body) // 2))
    for j in range(info.nfree):
        ins.append(("LOAD_FAST", info.free_start + j))
    ins += [("BUILD_TUPLE", info.nparams + info.nfree), ("CALL", 3), ("RETURN_VALUE", 0)]
    handler = len(ins)
    # the handler: tracebacks.leaving(exc), then raise exc as it is
    ins += [("LOAD_CONST", k + 3), ("PUSH_NULL", 0), ("COPY", 3), ("CALL", 1), ("POP_TOP", 0),
            ("RERAISE", 0)]
    body, offsets = _assemble(ins)
    table = _exception_table_entry(offsets[protected], offsets[handler], offsets[handler], 0)
    units = len(body) // 2
    real_units = len(code.co_code) // 2
    if units < real_units:
        body += bytes([_OP["NOP"], 0]) * (real_units - units)   # (never reached)
    consts = code.co_consts + (enter, info, globals, tracebacks.leaving)
    return code.replace(co_code=body, co_consts=consts,
                        co_stacksize=info.nparams + info.nfree + 8,
                        co_exceptiontable=table,
                        co_linetable=code.co_linetable + _no_location_table(units - real_units))


def _no_location_table(units):
    """Location table entries giving `units` code units no location."""
    table = bytearray()
    while units > 0:
        n = min(units, 8)
        table.append(0x80 | (15 << 3) | (n - 1))   # PY_CODE_LOCATION_INFO_NONE
        units -= n
    return bytes(table)


def _first_line_table(units):
    """A location table putting every code unit on co_firstlineno (no columns), so
    tracebacks through a binder (made natively) can be formatted."""
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
        tracebacks.shown_as_program(tramp)
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
_host_back = facts.NATIVE_GETTERS["f_back"]     # (the host's chain, not the program's view)


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
        host = _host_back(host)
    return depth


def enter(info, globals_, values):
    """Called by a trampoline: run the body of `info.code` in the interpreter."""
    nparams = info.nparams
    fast = list(values[:nparams]) if info.nfree else list(values)
    fast += [NULL] * (info.free_start - nparams)
    if info.nfree:
        fast += values[nparams:]
    ts = _thread_state()
    back = ts.frame
    depth = entry_depth(back)
    frame = Frame(info, fast, globals_, builtins_of(globals_), None, None, depth)
    if info.is_generator_like:
        return _generator_of(frame, _getframe(1).f_code.co_flags)   # (the trampoline's)
    if depth > _RECURSION_LIMIT[0] and depth > _program_recursion_limit():
        raise _too_deep()       # (as CPython pushing the frame)
    if ts.host_room[0] < _LOW_HOST_ROOM:
        return _with_host_room(ts, depth, _run_body, back, frame)
    # run here while nothing unusual happens; the loop takes over where it stopped
    outer = _handled()
    value = _enter(back, frame)
    if value is not NULL:
        return value
    return _run_frame(frame, saved_handled=outer)


def _run_body(back, frame):
    """enter()'s end, given host room (loop.with_host_room)."""
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
