"""Running a generator's frame inline, for FOR_ITER_GEN and SEND_GEN.

CPython's FOR_ITER_GEN and SEND_GEN push the generator's own frame onto the
frame stack of the current evaluation loop: a yield resumes the caller just
after the instruction with the value pushed, a return resumes it at the
instruction's exit.  Here the same: FOR_ITER_GEN and SEND_GEN push the frame
of an interpreted generator in the caller's loop (registry.SWITCH): the value
sent is pushed on the generator's stack (unless the frame has not started:
its RETURN_GENERATOR pushes the None itself), the generator is marked
running, the exception it was handling becomes the handled one, and the
frame gets an `inline` object (below) that tells the loop where the caller
resumes (Frame.inline: on_yield, on_return, on_unwind) and restores the
caller's handled exception.  (Unlike a call's frame, it is not run on the
host stack (loop.enter): along a chain of `yield from`, each value would
cross every level through a handler and a mini-loop, slower than the loop's
own switch, measured on bench/ generators and coroutines.)

An interpreted generator is a native *driver* generator (or coroutine)
delegating to an InterpGenerator whose frame runs here (generators.py).  The
InterpGenerator's running / started / pc state is kept exactly as when the
driver resumes it, and the driver is made to enter its `yield from`
(generators.start_driver) once the frame first yields, so that close(),
throw() and finalization of the driver then reach the frame (until then the
frame runs detached: _Inline).

CPython's guard is "the generator's frame is neither executing nor
finished"; for a driver that is the state of its InterpGenerator.  The guards
read the driver's native state (its own gi_yieldfrom, gi_frame ...) through
facts.NATIVE_GETTERS: the attributes a program reads show the interpreted
frame instead (generators.py).
"""

import types

from quickening.interp import facts, generators, handled
from quickening.interp.ops.registry import RETURN, SWITCH
from quickening.interp.facts import (FRAME_EXECUTING as _EXECUTING, FRAME_CREATED as _CREATED,
                                     FRAME_SUSPENDED_YIELD_FROM as _DELEGATING,
                                     NATIVE_GETTERS as _NATIVE_GET)

GeneratorType = types.GeneratorType
CoroutineType = types.CoroutineType

DEOPT = object()     # the guard failed
NATIVE = None        # a generator whose frame CPython runs: advance it natively

_GEN_DRIVERS = generators.GENERATOR_DRIVER_IDS
_CORO_DRIVERS = generators.COROUTINE_DRIVER_IDS
_LAST_WRAPPED = generators.LAST_WRAPPED
_DONE = -4
_STATES = facts.generator_states()     # [id(driver)]: its native gi_frame_state
# what a driver's state is while its frame runs inline, and after: not started
# (detached), or suspended in its `yield from` / `await` (started)
InterpGenerator = generators.InterpGenerator
InterpCoroutine = generators.InterpCoroutine
_current = handled.current
_set_handled = handled.set_handled
_native_locals = _NATIVE_GET["f_locals"]
gi_yieldfrom, gi_running, gi_frame, gi_code = (
    _NATIVE_GET[n] for n in ("gi_yieldfrom", "gi_running", "gi_frame", "gi_code"))
cr_await, cr_running, cr_frame, cr_code = (
    _NATIVE_GET[n] for n in ("cr_await", "cr_running", "cr_frame", "cr_code"))


def _inner_of_unstarted(driver, frame_of):
    """The inner object of a driver not started yet: the one made last (generators.
    LAST_WRAPPED), else the one its frame holds."""
    inner = _LAST_WRAPPED[0]()
    if inner is not None and inner.driver_addr == id(driver):
        return inner
    return _native_locals(frame_of(driver))["inner"]


def generator_state(gen):
    """For an exact generator: DEOPT, NATIVE, or the InterpGenerator to run inline."""
    if gi_running(gen) or gi_frame(gen) is None:
        return DEOPT
    if id(gi_code(gen)) not in _GEN_DRIVERS:
        return NATIVE
    inner = gi_yieldfrom(gen)
    if inner is None:
        # a driver not started yet: it stays so while inner runs here (_Inline)
        inner = _inner_of_unstarted(gen, gi_frame)
        if inner.running or inner.frame.pc < 0:
            return DEOPT
    elif inner.running or inner.frame.pc < 0:
        return DEOPT
    return inner


def coroutine_state(coro):
    """For an exact coroutine: DEOPT, NATIVE, or the InterpCoroutine to run inline."""
    if cr_running(coro) or cr_frame(coro) is None:
        return DEOPT
    if id(cr_code(coro)) not in _CORO_DRIVERS:
        return NATIVE
    inner = cr_await(coro)
    if inner is None:
        inner = _inner_of_unstarted(coro, cr_frame)
        if inner.running or inner.frame.pc < 0:
            return DEOPT
    elif inner.running or inner.frame.pc < 0:
        return DEOPT
    return inner


class _Inline:
    """Where the caller resumes when an inline generator frame yields, returns or raises.

    One per site and kind while the caller handles no exception (the common
    case, shared by nested pushes: it holds nothing per push); otherwise one
    per push, holding the caller's handled exception to restore.

    While the frame runs here its driver (the caller's top of stack, the
    iterator or receiver) is marked executing, as CPython's generator is: a
    send(), throw() or close() reaching it meanwhile raises "generator
    already executing" without touching it (push, then _leave / on_yield).

    A generator whose driver was not started when it was pushed (its first
    step) runs *detached*: the driver is started only when the frame first
    yields, so that close(), throw() and finalization then reach it; a frame
    that returns or raises first has its driver closed instead, which
    finishes an unstarted coroutine without the "never awaited" warning and
    costs no GeneratorExit at its finalization.
    """
    __slots__ = ("exit", "saved")

    def __init__(self, exit_pc, saved=None):
        self.exit = exit_pc
        self.saved = saved          # the exception the caller was handling

    def _leave(self, frame, caller):
        gen = frame.gen
        gen.running = False
        if gen.detached:
            _STATES[gen.driver_addr] = _CREATED
            gen.detached = False
            caller.stack[-1].close()
        else:
            _STATES[gen.driver_addr] = _DELEGATING
        saved = self.saved
        if saved is not None:
            frame.inline = None     # keep no reference to the exception
        if _current() is not saved:
            _set_handled(saved)

    def on_yield(self, frame, caller):
        # frame.pc was set by YIELD_VALUE: the generator resumes there; the caller
        # resumes at caller.pc with the value pushed (the loop does both)
        gen = frame.gen
        gen.running = False
        if gen.detached:
            _STATES[gen.driver_addr] = _CREATED
            gen.detached = False
            generators.start_driver(caller.stack[-1], gen)
        else:
            _STATES[gen.driver_addr] = _DELEGATING
        saved = self.saved
        if saved is not None:
            frame.inline = None
        if _current() is not saved:
            _set_handled(saved)

    def on_unwind(self, frame, exc, caller):
        # finished with an exception: CPython clears the frame, so the generator
        # holds its locals no more (as generators.InterpGenerator._resume does)
        frame.pc = _DONE
        frame.stack.clear()
        frame.exc_stack = None
        frame.standin = None
        self._leave(frame, caller)


class ForIterReturn(_Inline):
    """FOR_ITER_GEN: a return ends the loop (CPython lands on END_FOR, which pops
    the value, then POP_TOP pops the generator: here both at once)."""
    __slots__ = ()

    def on_return(self, frame, value, caller):
        frame.pc = RETURN
        frame.stack.clear()
        self._leave(frame, caller)
        del caller.stack[-1]
        return self.exit


class SendReturn(_Inline):
    """SEND_GEN: a return pushes the value and resumes at SEND's target (END_SEND)."""
    __slots__ = ()

    def on_return(self, frame, value, caller):
        frame.pc = RETURN
        frame.stack.clear()
        self._leave(frame, caller)
        caller.stack.append(value)
        return self.exit


def push(f, site, inner, sent, inline_class, nxt):
    """Push an interpreted generator's frame in the caller's loop (FOR_ITER_GEN,
    SEND_GEN): resume it with `sent` (a fresh frame's RETURN_GENERATOR pushes
    its own None) and say where the caller resumes when it yields or returns."""
    frame = inner.frame
    if inner.started:
        frame.stack.append(sent)
    else:
        inner.started = True
        inner.detached = True     # (its driver has not started either: see _Inline)
        frame.gen = inner         # (linked when the frame starts: generators.InterpGenerator)
    inner.running = True
    _STATES[inner.driver_addr] = _EXECUTING
    saved = _current()
    if saved is None:
        # the caller handles no exception: one hook per site serves every push
        shared = site.cache
        if shared is None:
            shared = site.cache = inline_class(site.arg)
        frame.inline = shared
    else:
        frame.inline = inline_class(site.arg, saved)
    if frame.exc_stack:
        _set_handled(frame.exc_stack[-1])
    f.callee = frame
    f.pc = nxt
    return SWITCH
