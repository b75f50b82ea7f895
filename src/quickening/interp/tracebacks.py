"""Tracebacks that look like CPython's for interpreted frames.

When an exception passes through an interpreted frame, the loop prepends a
traceback entry for it, as CPython does.  A traceback entry needs a real
frame object whose code carries the user's file, name and positions: each
activation that needs one gets its own *stand-in* frame object (frame_object:
the unstarted frame of a generator built from a copy of the code), the one
`sys._getframe()` also gives (frameview.py); the entry itself carries the exact
line and instruction offset.  A stand-in reports the code object CPython's frame
would (shown_code: a function's `__code__`, its trampoline), so libraries that
recognise their frames by code object find them.  Entries for quickening's own
functions (the loop, the handlers, trampolines) are dropped, so the user sees
only their program and the native code it called: when an interpreted frame adds
its entry (frameview.add_entry), and where an exception leaves interpreted code
into a native caller (leaving: a trampoline's handler, a generator driver's, the
runner's), so native code never sees them either.
"""

import os
import sys
import types

from quickening.interp import facts, host
from quickening.interp.ops.registry import NULL

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# quickening's code that is a program to the interpreter, not part of it: the
# Lib/test harness calls unittest as a native program would, in both modes
_PROGRAM_DIRS = (os.path.join(_PACKAGE_DIR, "cpython_tests") + os.sep,)
_internal_by_code = {}
# code objects of trampolines and generator drivers (registered by functions.py)
INTERNAL_CODES = set()
# id(a generator driver's code) -> the CodeInfo of the code it drives (filled by
# generators._driver_for).  An exception thrown into a driver not started yet is
# raised at its start (tb_lasti 2, after RETURN_GENERATOR) without reaching the
# interpreted frame, which CPython's traceback names there
DRIVEN = {}

_getframe = sys._getframe     # (the host's, before hostframes.install replaces it)
_RETURN_GENERATOR = host.OPMAP["RETURN_GENERATOR"]
_POP_TOP = host.OPMAP["POP_TOP"]
_NOP = host.OPMAP["NOP"]


# ids of the code objects found internal (is_internal keeps them alive, so an id
# stays its code's): the test strip_internal makes of most entries it drops
_INTERNAL_IDS = set()


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
    # (a driver's entry may stand for its generator's; a trampoline is what the
    # frame objects of its function's activations report: their entries are kept)
    if hit and id(code) not in DRIVEN and id(code) not in _STANDIN_CODES:
        _INTERNAL_IDS.add(id(code))
    return hit


def is_dropped(code):
    """Whether strip_internal drops a traceback entry of `code`: the interpreter's
    own, not a stand-in frame's (whose code is a trampoline: internal to frame walks)."""
    return id(code) not in _STANDIN_CODES and is_internal(code)


def shown_as_program(code):
    """`code` (a trampoline) is the code object stand-in frames report: their
    traceback entries are the program's (strip_internal keeps them), though a host
    frame running it is the interpreter's (is_internal: frame walks skip it)."""
    _STANDIN_CODES[id(code)] = code
    _INTERNAL_IDS.discard(id(code))


def strip_internal(tb, upto_interpreted=False):
    """The traceback chain without quickening's own entries.

    upto_interpreted: stop at the first entry of an interpreted frame (its stand-in
    frame): everything from there on was cleaned when that entry was added, so
    unwinding N frames costs O(N), not O(N**2)."""
    internal = _INTERNAL_IDS
    while tb is not None and id(tb.tb_frame.f_code) in internal:
        tb = tb.tb_next     # (the entries in front: the loop's, the handlers' ...)
    entries = []
    known = _internal_by_code
    while tb is not None:
        code = tb.tb_frame.f_code
        cid = id(code)
        if cid in _STANDIN_CODES:
            if upto_interpreted:
                break
            entries.append(tb)
            tb = tb.tb_next
            continue
        cached = known.get(cid)      # (is_internal's cache, read here: this loop is hot)
        if not (cached[1] if cached is not None and cached[0] is code else is_internal(code)):
            entries.append(tb)
        elif tb.tb_lasti <= 2 and cid in DRIVEN:
            entries.append(_unstarted_entry(tb))
        tb = tb.tb_next
    rest = tb
    if not entries:
        return rest
    # rebuild the kept entries onto the rest, only where something was dropped
    out = rest
    for entry in reversed(entries):
        if type(entry) is tuple:     # (_unstarted_entry: an entry to make)
            stand, lasti, line = entry
            out = types.TracebackType(out, stand, lasti * 2, line if line is not None else -1)
        elif entry.tb_next is out:
            out = entry
        else:
            line = entry.tb_lineno     # (None for code without line numbers: -1 recomputes it)
            out = types.TracebackType(out, entry.tb_frame, entry.tb_lasti,
                                      line if line is not None else -1)
    return out


# id -> code of every code object stand-in frames report (shown_code), kept alive
# so the ids stay theirs
_STANDIN_CODES = {}
_CellType = types.CellType


def shown_code(info):
    """The code object the frames of info's activations report, as CPython's frame
    reports the code it runs: a function's `__code__` (its trampoline, whose
    location table and local variables are the real code's), else (module code,
    exec) the code itself."""
    code = info.trampoline
    return code if code is not None else info.code


def _standins(info):
    """[code, globals, function, cell slots, the address of the shown code's
    co_code_adaptive, the shown code, how a frame is made to report it
    (facts.owned_code_swap; None: the code is shown)] for the stand-in frames of
    info's code.

    The frame is made from a code that names the same file, names, lines and
    length as info's (so an instruction offset means the same), every fast local
    (cells and free variables too) a plain local, and a body that only makes a
    generator; the function (made for the globals last used) returns such a
    generator.  Once made, the frame reports the shown code (shown_code) instead;
    the cell slots are the fast locals that hold cells (with the shown code, its
    frame holds cells there, as CPython's does: a frame object reads through them;
    with the stand-in's own code, their contents)."""
    cached = info.standin
    if cached is not None:
        return cached
    code = info.code
    body = bytearray(code.co_code)
    if len(body) >= 4:
        body[0:4] = bytes([_RETURN_GENERATOR, 0, _POP_TOP, 0])
    flags = (code.co_flags & ~(host.CO_COROUTINE | host.CO_ASYNC_GENERATOR
                               | host.CO_ITERABLE_COROUTINE)) | host.CO_GENERATOR
    names = info.localsplus
    # (the same parameters: inspect.getargvalues(frame) reads them from f_code)
    stand = code.replace(co_code=bytes(body), co_flags=flags, co_exceptiontable=b"",
                         co_varnames=names, co_cellvars=(), co_freevars=(),
                         co_nlocals=len(names))
    INTERNAL_CODES.discard(stand)
    shown = shown_code(info) if facts.PROBLEM is None else stand
    _STANDIN_CODES[id(stand)] = stand
    shown_as_program(shown)
    cells = tuple(i for i, name in enumerate(names)
                  if i >= info.free_start or name in info.cell_names)
    swap = facts.owned_code_swap(stand, shown) if shown is not stand else None
    cached = info.standin = [stand, None, None, cells, id(shown) + facts.CODE_ADAPTIVE, shown, swap]
    return cached


def frame_object(frame):
    """The real frame object standing for this activation of an interpreted code
    (made the first time something needs one: a traceback entry, sys._getframe(),
    a callee's f_back): a never-started generator's frame, owned by the frame
    object, whose code names the same file, function and positions.  The activation
    keeps it while it runs; sync() writes its position and variables into it.
    (frameview.frame_object also makes its attributes read the live activation.)"""
    stand = frame.standin
    if stand is None:
        cached = _standins(frame.info)
        globals_ = frame.globals
        if cached[1] is not globals_:
            # every parameter has a default: calling it with none makes the frame
            code = cached[0]
            func = types.FunctionType(code, globals_ if type(globals_) is dict else {},
                                      frame.info.code.co_name, (None,) * code.co_argcount)
            kwonly = code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]
            if kwonly:
                func.__kwdefaults__ = dict.fromkeys(kwonly)
            cached[1:3] = globals_, func
        gen = cached[2]()
        stand = facts.NATIVE_GETTERS["gi_frame"](gen)
        gen = None     # the frame object takes its frame over: nothing runs it
        if cached[6] is not None:
            # it reports the shown code (where: once placed)
            facts.set_owned_frame_code(stand, cached[6])
        frame.standin = stand
        if frame.locals is not None and facts.PROBLEM is None:
            # module and class bodies: f_locals is their namespace
            facts.set_frame_locals_mapping(stand, frame.locals)
    return stand


def place(frame, stand, lasti):
    """Write instruction lasti into `stand`, frame's stand-in (facts.place_frame for a
    frame object that owns its frame, its code's address known); True if it moved."""
    return facts.place_owned_frame(stand, frame.info.standin[4], lasti)


def sync(frame, stand, lasti, variables=True):
    """Bring frame object `stand` up to date with the activation: the instruction
    (f_lasti, f_lineno) and, with `variables`, the variables bound now (f_locals,
    as CPython's frame holds them).  True if anything changed."""
    if facts.PROBLEM is not None:
        return False
    changed = lasti >= 0 and place(frame, stand, lasti)
    if not variables:
        return changed
    info = frame.info
    values = frame.stack[:info.nlocalsplus]      # (kept alive while they are written)
    if not values:
        return changed
    cached = _standins(info)
    if cached[5] is cached[0]:
        for i in cached[3]:
            value = values[i]
            if type(value) is _CellType:
                try:
                    values[i] = value.cell_contents
                except ValueError:
                    values[i] = NULL
    else:
        for i in cached[3]:
            value = values[i]
            # (a cell variable before MAKE_CELL: CPython's frame object reads any
            # value in a cell slot as a cell)
            if value is not NULL and type(value) is not _CellType:
                values[i] = _CellType(value)
    return facts.set_frame_fast_all(stand, [0 if v is NULL else id(v) for v in values]) or changed


def _unstarted_entry(tb):
    """(frame object, lasti, line) of the interpreted generator whose driver an
    exception was thrown into before it started (tb is the driver's entry)."""
    inner = tb.tb_frame.f_locals.get("inner")
    frame = inner.frame
    lasti = frame.info.unstarted_lasti
    stand = frame_object(frame)
    place(frame, stand, lasti)
    return stand, lasti, frame.info.line_at(lasti)


def frame_exits(exc, frame, lasti):
    """An exception leaves an interpreted frame at lasti: its frame object ends on
    that instruction with the variables it has then, as CPython's does."""
    stand = frame.standin
    if stand is not None:
        sync(frame, stand, lasti)


def leaving(exc):
    """exc leaves interpreted code into a native caller: called in the exception
    handler of the host frame it leaves from (a trampoline's, a generator driver's,
    run_code's), which then re-raises it as it is (a re-raise adds no entry).  Its
    traceback is made CPython's: the entries CPython added for that frame and for
    the interpreter's own frames between it and the interpreted frame it was
    raised in are dropped (what follows that frame's entry was cleaned when it was
    added)."""
    tb = exc.__traceback__
    if tb is not None and tb.tb_frame is _getframe(1):
        tb = tb.tb_next
    exc.__traceback__ = strip_internal(tb, upto_interpreted=True)


def frame_returns(frame):
    """An interpreted frame that has a frame object returns.  A frame object the
    program (or a traceback) still holds outlives the activation: as CPython's
    takes its frame over, it is given the variables the activation has at its
    end, which it keeps (f_locals) and which are freed with it.  Held by nothing
    else (the activation's reference, this function's and getrefcount's), it is
    left as it is: it goes with the activation."""
    stand = frame.standin
    if _refcount(stand) > 3:
        sync(frame, stand, _only_return(frame.info))


_refcount = sys.getrefcount
_RETURNS = frozenset(host.OPMAP[name] for name in ("RETURN_VALUE", "RETURN_CONST"))
_only_returns = {}    # id(info) -> (info, the code unit of its one return instruction, or -1)


def _only_return(info):
    """Where a frame of `info` that returned is: its code's return instruction when it
    has only one (a frame object outliving the activation reports that line, as
    CPython's does); else -1 (it stays where it was last placed: which of the
    returns ran is not kept)."""
    cached = _only_returns.get(id(info))
    if cached is None or cached[0] is not info:
        opcodes = info.opcodes
        found = [pc for pc in info.starts if opcodes[pc] in _RETURNS]
        cached = _only_returns[id(info)] = (info, found[0] if len(found) == 1 else -1)
    return cached[1]


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
