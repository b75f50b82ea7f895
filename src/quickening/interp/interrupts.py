"""Ctrl-C raised where CPython raises it: in the program.

CPython raises KeyboardInterrupt at an eval-breaker check of the frame running
(a call's start, a loop's back edge), and under `python` that frame is always
the program's or the native code it called.  Under the interpreter the check can
also come in the middle of the interpreter's own work: a fused run being made,
a site being specialized, a frame object being linked, a traceback cleaned, a
generator's state switched, a ctypes callback answering a frame attribute.
Raised there, KeyboardInterrupt leaves that work half done (a generator left
"already executing"), is swallowed (a ctypes callback reports it as
unraisable and the program runs on), or escapes the loop without the program's
frame.

So `quickening run` puts its own SIGINT handler where the default one was
(install): it raises KeyboardInterrupt only where that is an instruction of the
program raising it -- in an instruction's handler, a fused run or another
generated handler, a trampoline starting a function, or native code one of these
called (not a helper's own check, as it starts or loops: that is the middle of an
instruction, where a call's arguments may be off the stack and in no frame yet,
and CPython raises at none) -- and otherwise trips the signal again, so that the next eval-breaker
check asks once more (the interpreter's own work is short: the next check that
lands in the program comes soon).  The program still sees the default handler:
signal.getsignal and signal.signal report signal.default_int_handler for it,
and installing default_int_handler installs this one.
"""

import _thread
import ctypes
import dis
import os
import signal
import threading
import time

from quickening.interp import facts, frameview
from quickening.interp import codeinfo as _codeinfo
from quickening.interp.tracebacks import is_internal

# (assigned, not imported: CPython 3.13 compiles a method call on a name an import
# binds without its method form, which the host cannot specialize -- test_layers.py)
TRAMPOLINES = _codeinfo.TRAMPOLINES

_INTERP_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_host_back = facts.NATIVE_GETTERS["f_back"]    # (the host's chain: frameview replaces f_back)
_GENERATED = _INTERP_DIR + "<"      # (generated.py: every generated source's name)

# modules of the interpreter whose functions do its own work or its bookkeeping
# around the program's instructions (their state must not be left half changed),
# and the loop itself, whose code outside a dispatch would let the exception out
# without the program's frame
# (not the ones that call the program's code on its behalf -- tracing, masquerade,
# the frame walks, the locals proxies: a call there may block, in pdb's prompt)
_OWN_MODULES = frozenset((
    "codeinfo.py", "escapes.py", "facts.py", "fusion.py", "generated.py", "hardening.py",
    "inlining.py", "lowering.py", "quicken.py", "shutdown.py", "sitestate.py", "spec.py",
    "tracebacks.py", "typewatch.py", "frameview.py", "handled.py", "generators.py",
    "functions.py", "loop.py", "interrupts.py", "_datastack.py", "_genframes.py",
))
_SAFE, _OWN, _GO_ON, _HELPER = range(4)
_OWN_CHECKS = frozenset((dis.opmap["RESUME"], dis.opmap["JUMP_BACKWARD"]))
_kinds = {}      # id(code) -> (code, kind), by identity (the entry keeps the code alive)


def _kind(code):
    cached = _kinds.get(id(code))
    if cached is not None and cached[0] is code:
        return cached[1]
    filename = code.co_filename
    if filename.startswith(_GENERATED):
        # a fused run, a derived handler, an unpacking helper; not the module body
        # of generated source, run as it is made
        kind = _OWN if code.co_name == "<module>" else _SAFE
    elif id(code) in TRAMPOLINES:
        kind = _SAFE        # a function of the program starting (its RESUME)
    elif not is_internal(code):
        kind = _GO_ON       # native code: whoever called it decides
    elif (code.co_argcount == 4 and code.co_varnames[:2] == ("f", "stack")
          and code.co_varnames[3] == "nxt"):
        kind = _SAFE        # an instruction's handler: handler(f, stack, arg, nxt)
    elif (os.path.basename(filename) in _OWN_MODULES
          or "specializ" in code.co_name or code.co_name in _OWN_FUNCTIONS):
        kind = _OWN
    else:
        kind = _HELPER      # a helper of a handler (or of a specializer)
    _kinds[id(code)] = (code, kind)
    return kind


# the families' functions, other than specializers, that read the host's state for
# them (a dict's keys table through ctypes)
_OWN_FUNCTIONS = frozenset(("_keys_index", "_probe"))


def in_program(frame):
    """Whether a KeyboardInterrupt raised in host frame `frame` is raised by the
    program: the innermost frame that is not native code is an instruction's
    handler (or generated code, or a trampoline), not the interpreter's own work."""
    bottom = frameview.PROGRAM_BOTTOM
    while frame is not None and frame is not bottom:
        code = frame.f_code
        kind = _kind(code)
        if kind is _SAFE:
            return True
        if kind is _OWN:
            return False
        if kind is _HELPER and code.co_code[frame.f_lasti] in _OWN_CHECKS:
            return False        # (the middle of an instruction: see _verdict)
        frame = _host_back(frame)
    return True


_RAISE, _DEFER_OWN, _DEFER_PROGRAM, _DEFER_MAYBE_BLOCKED = range(4)
_JUMP_BACKWARD, _RESUME = dis.opmap["JUMP_BACKWARD"], dis.opmap["RESUME"]
_CALLS = frozenset(dis.opmap[name] for name in ("CALL", "CALL_KW", "CALL_FUNCTION_EX"))
_CHECKS = frozenset((_JUMP_BACKWARD, _RESUME))


def _verdict(frame):
    """What a SIGINT seen in host frame `frame` does: _RAISE it now; or defer it, the
    interpreter's own work being in the middle (_DEFER_OWN), or the program being
    at an instruction where CPython does not check (_DEFER_PROGRAM), maybe inside
    native code that instruction called, which may block (_DEFER_MAYBE_BLOCKED)."""
    bottom = frameview.PROGRAM_BOTTOM
    innermost = True
    while frame is not None and frame is not bottom:
        code = frame.f_code
        kind = _kind(code)
        if kind is _SAFE:
            return _at_instruction(frame, code) if innermost else _RAISE
        if kind is _OWN:
            if (innermost and code.co_name in _WARMING_STUBS
                    and os.path.basename(code.co_filename) == "fusion.py"
                    and code.co_code[frame.f_lasti] == _RESUME):
                # a stub counting a code object's warmth (fusion.arm) as it starts: the
                # instruction it stands for, nothing done yet
                values = frame.f_locals
                return _check_at(values["f"], values["pc"])
            return _DEFER_OWN
        if kind is _HELPER:
            if code.co_code[frame.f_lasti] in _OWN_CHECKS:
                # the helper's own eval-breaker check (it starts, or loops): the middle of
                # an instruction, where a call's operands may be off the stack and in no
                # frame yet -- not inside native code it called, which may block
                return _DEFER_OWN
        else:
            # native code: its own eval-breaker checks are CPython's
            innermost = False
        frame = _host_back(frame)
    return _RAISE


def _at_instruction(frame, code):
    """The verdict for a SIGINT seen by the host's check in a handler, a fused run or
    a trampoline itself (or a helper of theirs after a native call).  CPython checks
    at RESUME (a function starting, a generator resumed), at JUMP_BACKWARD and after
    a call (its native callee returned, or was interrupted); the host also checks as
    a handler starts or loops and after every native call.  So: at a handler's start
    or back edge it raises only for RESUME and JUMP_BACKWARD; at a fused run's back
    edge it raises as that run's JUMP_BACKWARD; after a native call it raises for a
    call, and for another instruction it is deferred -- unless the program is still
    inside that native call, blocked: the watchdog then interrupts it (_watch)."""
    f, pc = _interpreted_at(frame, code)
    if f is None:
        return _RAISE       # (a trampoline: a function of the program starting)
    host_op = code.co_code[frame.f_lasti]
    if host_op == _JUMP_BACKWARD:
        jump = frame.f_globals.get("_back_edges", _NO_BACK_EDGES).get(frame.f_lineno)
        if jump is not None:
            f.raised_at = jump      # (where the fused run reports it: fusion._build)
            return _RAISE
    if host_op in _OWN_CHECKS:
        return _check_at(f, pc)
    op = f.info.opcodes[pc]
    if op in _CALLS:
        return _RAISE
    return _DEFER_MAYBE_BLOCKED


_NO_BACK_EDGES = {}
_WARMING_STUBS = frozenset(("_warm_jump", "_warm_entry"))


def _check_at(f, pc):
    """Raise at instruction pc of interpreted frame f, about to run, only if CPython
    checks there: JUMP_BACKWARD, RESUME but after a `yield from` or an await."""
    op = f.info.opcodes[pc]
    if op == _JUMP_BACKWARD or (op == _RESUME and f.info.opargs[pc] & 3 < 2):
        return _RAISE
    return _DEFER_PROGRAM


def _interpreted_at(frame, code):
    """(interpreted frame, pc of the instruction it runs) for a handler's or a fused
    run's host frame; (None, None) for a trampoline."""
    names = code.co_varnames
    if code.co_argcount < 4 or names[:2] != ("f", "stack"):
        return None, None
    values = frame.f_locals
    f = values["f"]
    if code.co_name == "fused":
        at = values.get("at")      # (unset as the run starts: at its entry, `arg`)
        return f, (values["arg"] if at is None else at)
    nxt = values.get(names[3])
    if type(nxt) is not int or nxt not in f.info.prev_start:
        return None, None
    return f, f.info.prev_start[nxt]


_pending = [0]      # how many times the SIGINT not raised yet was deferred
_force = [False]    # the watchdog found the program blocked: raise where it is


def _on_sigint(signum, frame):
    if _force[0] and not _pending[0]:
        # the watchdog's, sent as the interrupt it stood for was raised: not another
        _force[0] = False
        return
    verdict = _verdict(frame)
    if verdict is _RAISE or (_force[0] and verdict is not _DEFER_OWN):
        _pending[0] = 0
        _force[0] = False
        signal.default_int_handler(signum, frame)
    # tripped again, as if it arrived now, by a pending call (C, run at the next
    # eval-breaker check): the check after it calls this once more.  (Tripped
    # from here, the check that follows the call would call this again inside
    # this frame, and so on without end; signal.raise_signal checks at once.)
    first = not _pending[0]
    _pending[0] += 1
    _add_pending_call(_SET_INTERRUPT, signal.SIGINT)
    if first:
        _thread.start_new_thread(_watch, (threading.main_thread().ident,))


WATCH_SECONDS = 0.05


def _watch(main_ident):
    """A deferred SIGINT meets an eval-breaker check again at once, unless the
    program is blocked in native code (a read, a sleep) an instruction called:
    when no check has come for two WATCH_SECONDS in a row, interrupt that call as
    CPython would (a second SIGINT, raised where the program is).  (Two: one could
    be a machine too busy to run the program at all, and then a check would take
    this thread's turn with the GIL before calling the handler again.)"""
    seen, quiet = 0, 0
    while _pending[0] and quiet < 2:
        if _pending[0] != seen:
            seen, quiet = _pending[0], 0
        else:
            quiet += 1
        time.sleep(WATCH_SECONDS)
    if _pending[0]:
        _force[0] = True
        signal.pthread_kill(main_ident, signal.SIGINT)


# Py_AddPendingCall(func, arg) with func PyErr_SetInterruptEx (int (*)(int): the
# signal number passed as the pointer-sized argument)
_add_pending_call = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)(
    ("Py_AddPendingCall", ctypes.pythonapi))
_SET_INTERRUPT = ctypes.cast(ctypes.pythonapi.PyErr_SetInterruptEx, ctypes.c_void_p).value
_orig_signal = signal.signal
_orig_getsignal = signal.getsignal
_installed = [False]


def _seen(handler):
    return signal.default_int_handler if handler is _on_sigint else handler


def _signal(signalnum, handler):
    if handler is signal.default_int_handler and signalnum == signal.SIGINT and _installed[0]:
        handler = _on_sigint
    return _seen(_orig_signal(signalnum, handler))


def _getsignal(signalnum):
    return _seen(_orig_getsignal(signalnum))


_signal.__name__ = _signal.__qualname__ = "signal"
_signal.__doc__ = _orig_signal.__doc__
_getsignal.__name__ = _getsignal.__qualname__ = "getsignal"
_getsignal.__doc__ = _orig_getsignal.__doc__


def install():
    """Raise Ctrl-C only in the program (see the module's docstring), if SIGINT has
    the default handler (and this is the main thread); True if installed."""
    if _installed[0]:
        return True
    try:
        if _orig_getsignal(signal.SIGINT) is not signal.default_int_handler:
            return False
        _orig_signal(signal.SIGINT, _on_sigint)
    except ValueError:      # (not the main thread)
        return False
    _installed[0] = True
    signal.signal = _signal
    signal.getsignal = _getsignal
    return True


def uninstall():
    """The default handler back, if this module's is still SIGINT's."""
    if not _installed[0]:
        return
    _installed[0] = False
    signal.signal = _orig_signal
    signal.getsignal = _orig_getsignal
    try:
        if _orig_getsignal(signal.SIGINT) is _on_sigint:
            _orig_signal(signal.SIGINT, signal.default_int_handler)
    except ValueError:
        pass
