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

from quickening.interp import host

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_internal_by_code = {}
# code objects of trampolines and generator drivers (registered by functions.py)
INTERNAL_CODES = set()

_RETURN_GENERATOR = host.OPMAP["RETURN_GENERATOR"]
_POP_TOP = host.OPMAP["POP_TOP"]
_NOP = host.OPMAP["NOP"]


def is_internal(code):
    hit = _internal_by_code.get(code)
    if hit is None:
        hit = code in INTERNAL_CODES or code.co_filename.startswith(_PACKAGE_DIR + os.sep)
        _internal_by_code[code] = hit
    return hit


def strip_internal(tb):
    """The traceback chain without quickening's own entries."""
    entries = []
    while tb is not None:
        if not is_internal(tb.tb_frame.f_code):
            entries.append(tb)
        tb = tb.tb_next
    if not entries:
        return None
    # rebuild only if something was dropped
    out = None
    for entry in reversed(entries):
        if entry.tb_next is out:
            out = entry
        else:
            out = types.TracebackType(out, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return out


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
    closure = tuple(types.CellType() for _ in code.co_freevars) or None
    gen = types.FunctionType(stand, globals_ if type(globals_) is dict else {}, code.co_name, None, closure)()
    frame = gen.gi_frame
    info.standin = (globals_, frame, gen)
    return frame


def add_entry(exc, frame, lasti):
    """Prepend the traceback entry of an interpreted frame at instruction lasti."""
    info = frame.info
    tb = strip_internal(exc.__traceback__)
    for chained in (exc.__cause__, exc.__context__):
        # an exception a handler caught and chained (raise ... from err) never left
        # the handler: its traceback holds only the interpreter's frames, which
        # CPython's would not have (nor keep alive)
        if chained is not None:
            ctb = chained.__traceback__
            if ctb is not None and is_internal(ctb.tb_frame.f_code):
                chained.__traceback__ = strip_internal(ctb)
    line = info.line_at(lasti)
    exc.__traceback__ = types.TracebackType(tb, standin_frame(info, frame.globals), lasti * 2,
                                            line if line is not None else -1)


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
