"""Tracebacks that look like CPython's for interpreted frames.

When an exception passes through an interpreted frame, the loop prepends a
traceback entry for it, as CPython does.  A traceback entry needs a real
frame object whose code carries the user's file, name and positions: each
code object gets one *stand-in* frame, the unstarted frame of a generator
built from a copy of the code; the entry itself carries the exact line and
instruction offset.  Entries for quickening's own functions (the loop, the
handlers, trampolines) are dropped, so the user sees only their program and
the native code it called.
"""

import os
import types

from quickening.interp import facts, host

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# quickening's code that is a program to the interpreter, not part of it: the
# Lib/test harness calls unittest as a native program would, in both modes
_PROGRAM_DIRS = (os.path.join(_PACKAGE_DIR, "cpython_tests") + os.sep,)
_internal_by_code = {}
# code objects of trampolines and generator drivers (registered by functions.py)
INTERNAL_CODES = set()

_RETURN_GENERATOR = host.OPMAP["RETURN_GENERATOR"]
_POP_TOP = host.OPMAP["POP_TOP"]
_NOP = host.OPMAP["NOP"]


def is_internal(code):
    # keyed by identity (a code object hashes by value, which is slow); the entry
    # keeps the code alive, so its id stays its own
    cached = _internal_by_code.get(id(code))
    if cached is not None and cached[0] is code:
        return cached[1]
    filename = code.co_filename
    hit = code in INTERNAL_CODES or (filename.startswith(_PACKAGE_DIR + os.sep)
                                     and not filename.startswith(_PROGRAM_DIRS))
    _internal_by_code[id(code)] = (code, hit)
    return hit


def strip_internal(tb, upto_interpreted=False):
    """The traceback chain without quickening's own entries.

    upto_interpreted: stop at the first entry of an interpreted frame (its stand-in
    frame): everything from there on was cleaned when that entry was added, so
    unwinding N frames costs O(N), not O(N**2)."""
    entries = []
    while tb is not None:
        code = tb.tb_frame.f_code
        if upto_interpreted and id(code) in _STANDIN_CODES:
            break
        if not is_internal(code):
            entries.append(tb)
        tb = tb.tb_next
    rest = tb
    if not entries:
        return rest
    # rebuild the kept entries onto the rest, only where something was dropped
    out = rest
    for entry in reversed(entries):
        if entry.tb_next is out:
            out = entry
        else:
            out = types.TracebackType(out, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return out


# id -> code of every stand-in (activation codes too), kept alive so the ids stay theirs
_STANDIN_CODES = {}


def standin_frame(info, globals_):
    """A real, never-run frame whose code names the same file, function and positions."""
    cache = info.standin
    if cache is not None and cache[0] is globals_:
        return cache[1]
    code = info.code
    body = bytearray(code.co_code)
    if len(body) >= 4:
        body[0:4] = bytes([_RETURN_GENERATOR, 0, _POP_TOP, 0])
    flags = (code.co_flags & ~(host.CO_VARARGS | host.CO_VARKEYWORDS | host.CO_COROUTINE
                               | host.CO_ASYNC_GENERATOR | host.CO_ITERABLE_COROUTINE)) | (
        host.CO_GENERATOR | host.CO_OPTIMIZED | host.CO_NEWLOCALS)
    stand = code.replace(co_code=bytes(body), co_flags=flags, co_argcount=0,
                         co_posonlyargcount=0, co_kwonlyargcount=0, co_exceptiontable=b"")
    INTERNAL_CODES.discard(stand)
    _STANDIN_CODES[id(stand)] = stand
    closure = tuple(types.CellType() for _ in code.co_freevars) or None
    gen = types.FunctionType(stand, globals_ if type(globals_) is dict else {}, code.co_name, None, closure)()
    frame = gen.gi_frame
    info.standin = (globals_, frame, gen)
    return frame


_activation_codes = {}   # (id of real code, bound names) -> (real code, code of activation stand-ins)
_activation_owner = {}   # id(code of activation stand-ins) -> the real code


def activation_frame(frame):
    """The frame object standing for this activation of an interpreted function:
    like standin_frame, but its f_locals are the variables the frame had bound
    when an exception first passed through it, held as a CPython frame in a
    traceback holds them (traceback's capture_locals and suggestions read them;
    they stay alive while the traceback does, and no longer: the frame does not
    keep it, so each entry gets its own (CPython's share the frame's one)."""
    info = frame.info
    code = info.code
    if frame.locals is not None or not code.co_flags & host.CO_OPTIMIZED:
        return standin_frame(info, frame.globals)
    bound = frame.bound_variables()
    names = [name for name, _ in bound]
    values = [value for _, value in bound]
    names = tuple(names)
    # keyed by identity: equal code objects compiled twice are different codes
    key = (id(code), names)
    cached = _activation_codes.get(key)
    if cached is None or cached[0] is not code:
        standin_frame(info, frame.globals)
        stand = info.standin[1].f_code
        # every bound variable a plain positional parameter: calling binds them all
        act = stand.replace(co_varnames=names, co_cellvars=(), co_freevars=(),
                            co_nlocals=len(names), co_argcount=len(names))
        _activation_codes[key] = (code, act)    # (keeps code alive: its id stays its own)
        _activation_owner[id(act)] = code
        _STANDIN_CODES[id(act)] = act
    else:
        act = cached[1]
    globals_ = frame.globals
    gen = types.FunctionType(act, globals_ if type(globals_) is dict else {}, code.co_name)(*values)
    return gen.gi_frame   # (outlives gen: the frame object then owns the variables)


def release_own_entry(frame, exc):
    """exc is caught in `frame`, which goes on running: the variables its traceback
    entry captured are not the frame's any more (CPython's entry shows the live
    frame), so the entry lets go of them rather than keep stale values alive.
    Entries of frames the exception already left keep theirs."""
    tb = exc.__traceback__
    if tb is not None:
        standin = tb.tb_frame
        if _activation_owner.get(id(standin.f_code)) is frame.info.code:
            try:
                standin.clear()
            except RuntimeError:
                pass


def add_entry(exc, frame, lasti):
    """Prepend the traceback entry of an interpreted frame at instruction lasti."""
    info = frame.info
    tb = strip_internal(exc.__traceback__, upto_interpreted=True)
    for chained in (exc.__cause__, exc.__context__):
        # an exception a handler caught and chained (raise ... from err) never left
        # the handler: its traceback holds only the interpreter's frames, which
        # CPython's would not have (nor keep alive)
        if chained is not None:
            ctb = chained.__traceback__
            if ctb is not None and is_internal(ctb.tb_frame.f_code):
                chained.__traceback__ = strip_internal(ctb)
    line = info.line_at(lasti)
    stand = activation_frame(frame)
    if line is not None and line > 0 and id(stand.f_code) in _activation_owner:
        # its f_lineno: the line the frame was at (PEP 626), not the def line
        _set_f_lineno(stand, line)
    exc.__traceback__ = types.TracebackType(tb, stand, lasti * 2,
                                            line if line is not None else -1)


def frame_exits(exc, frame, lasti):
    """An exception leaves an interpreted frame at lasti: the frame object of the
    frame's entry (the traceback's head) ends on that line, as CPython's does."""
    tb = exc.__traceback__
    if tb is None:
        return
    stand = tb.tb_frame
    if _activation_owner.get(id(stand.f_code)) is frame.info.code:
        line = frame.info.line_at(lasti)
        if line is not None and line > 0:
            _set_f_lineno(stand, line)


def _set_f_lineno(frame, line):
    if facts.PROBLEM is None:     # (the offset was checked on a live frame)
        facts.set_frame_lineno(frame, line)


def clean(exc, _seen=None):
    """Strip internal entries from an exception and everything chained to it."""
    if _seen is None:
        _seen = set()
    while exc is not None and id(exc) not in _seen:
        _seen.add(id(exc))
        exc.__traceback__ = strip_internal(exc.__traceback__)
        if isinstance(exc, BaseExceptionGroup):
            for sub in exc.exceptions:
                clean(sub, _seen)
        if exc.__cause__ is not None:
            clean(exc.__cause__, _seen)
        exc = exc.__context__
    return None
