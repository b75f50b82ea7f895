"""The evaluation loop.

`run_frame(frame)` executes a frame and every interpreted frame it calls,
in this one loop: a call pushes a frame and a return pops it, so
interpreted-to-interpreted calls use no host stack.  It returns when the
entry frame returns or yields (`frame.retval`/`frame.pc` tell which), and
raises when an exception leaves the entry frame.

Dispatch is an index into the code object's instruction table; a handler
returns the next pc, or a negative signal (registry.SWITCH / RETURN / YIELD)
that this loop turns into a frame switch.
"""

import sys

from quickening.interp import frameview, handled, host, tracebacks, tracing
from quickening.interp.frame import _LOCAL, thread_state
from quickening.interp.ops.registry import (HANDLERS, NULL, RESUME, RETURN, SWITCH, TRACE, YIELD,
                                            traced_on)

_YIELD_VALUE = host.OPMAP["YIELD_VALUE"]

# The recursion limit interpreted frames are held to (their depth counts the
# program's frames, not the interpreter's own host frames): set by
# sys.setrecursionlimit() called from interpreted code (runtime.py).
RECURSION_LIMIT = [sys.getrecursionlimit()]
HOST_LIMIT_SET = [None]   # the host's limit as the interpreter itself last set it (runtime.py)
_host_getrecursionlimit = sys.getrecursionlimit


def program_recursion_limit():
    """The limit interpreted frames are held to (RECURSION_LIMIT), brought up to
    date first: native code may call sys.setrecursionlimit() itself
    (test.support.infinite_recursion(), a functools.partial ...), and when the
    host's limit is not the one the interpreter last set, that native call was
    the program's, so its value is the program's limit."""
    host = _host_getrecursionlimit()
    if host != HOST_LIMIT_SET[0]:
        HOST_LIMIT_SET[0] = host
        RECURSION_LIMIT[0] = host
    return RECURSION_LIMIT[0]


# Each time native code calls back into interpreted code (a C slot running
# __repr__, a native next() resuming a generator) the interpreter's own host
# frames (a trampoline, functions.enter, this loop, a handler) come on top of
# the host stack: CPython counts them against its recursion limit, and a
# program recursing through native code would run out of host frames about
# five times sooner than natively.  So when a re-entry finds the host low on
# frames, the thread's counter is given what the program may still use (the
# program's limit less the depth of the frame entered) plus HOST_ROOM for the
# interpreter's frames of the deepest level and its unwinding, and it is taken
# back when the re-entry returns: the program's frames are held to its limit
# by their depth (RecursionError raised where CPython raises it), and native
# frames find about the room they find natively.  The C stack is not given more:
# a level through native code costs the interpreter about 4.4 KB of it where
# CPython's costs 2.7 KB (measured: a sorted() key recursing, 3.13, 8 MB stack),
# both 4 units of C recursion, so once C_RESERVE units are all that is left the
# host's counter is left as it is: deeper, it raises RecursionError in the
# interpreter's frames, not at the program's depth, where the stack would
# otherwise overflow.
HOST_ROOM = 60
LOW_HOST_ROOM = 40     # (below HOST_ROOM: a re-entry given room does not ask again)
C_RESERVE = 5000       # (of Py_C_RECURSION_LIMIT's 10000)


def with_host_room(ts, depth, run, *args):
    """run(*args) for a re-entry from native code at program depth `depth`, the
    host's counter given the frames the program may still push (see above)."""
    room = ts.host_room
    credit = program_recursion_limit() - depth + HOST_ROOM - room[0]
    if credit <= 0 or room[2] < C_RESERVE:
        return run(*args)
    room[0] += credit
    try:
        return run(*args)
    finally:
        room[0] -= credit


def too_deep():
    """The RecursionError CPython raises pushing a frame beyond the limit."""
    return RecursionError("maximum recursion depth exceeded")


def run_frame(entry, throw=None, saved_handled=NULL):
    """Run `entry` until it returns or yields; return the value.

    With `throw`, the exception is raised at the frame's current instruction
    first (generator.throw()).  After a yield, entry.pc >= 0 (the value is
    returned, not kept); after a return, entry.pc == RETURN.  An entry that
    enter() started and stopped goes on from there (`saved_handled`: the
    exception handled when it was started, restored when it ends).
    """
    try:
        ts = _LOCAL.state       # (thread_state(), without a call: once per generator step)
    except AttributeError:
        ts = thread_state()
    if entry.depth > RECURSION_LIMIT[0] and entry.depth > program_recursion_limit():
        raise too_deep()    # (a class body, a generator resumed from native code)
    if ts.host_room[0] < LOW_HOST_ROOM:
        return with_host_room(ts, entry.depth, run_frame, entry, throw, saved_handled)
    saved_frame = ts.frame
    if saved_handled is NULL:
        saved_handled = handled.current()
    entry.back = saved_frame
    if entry.exc_stack:
        handled.set_handled(entry.exc_stack[-1])
    ts.frame = f = entry
    exc = throw
    throw = None    # (only `exc` holds it: see handled.raise_unchanged)
    pc = f.pc
    stopped = f.stopped
    if stopped is not None:
        # started on the host stack by enter() (functions.enter): on from where it stopped
        f.stopped = None
        if type(stopped) is int:
            pc = stopped
        else:
            exc = stopped
        stopped = None
    else:
        if ts.tracer is not None:
            tracing.on_call(ts, f)
        if exc is not None:
            pc = f.info.prev_start.get(pc, pc)
            if entry.exc_stack:
                # gen.throw(): the exception's context is what the generator is handling
                # (_PyErr_ChainStackItem)
                chain_context(exc, entry.exc_stack[-1])
    try:
        while True:
            if exc is None:
                stack = f.stack
                instrs = f.info.instrs
                try:
                    if f.trace is None:
                        while pc >= 0:
                            h, arg, nxt = instrs[pc]
                            pc = h(f, stack, arg, nxt)
                    else:
                        while pc >= 0 and f.trace is not None:
                            pc = tracing.step(ts, f, stack, pc)
                        if pc >= 0:
                            continue   # tracing was switched off: back to the fast loop
                except BaseException as e:
                    exc = e
                    if f.raised_at >= 0:    # raised inside a fused run: at this instruction
                        pc = f.raised_at
                        f.raised_at = -1
                else:
                    if pc == SWITCH:
                        callee = f.callee
                        f.callee = None
                        if (callee.depth > RECURSION_LIMIT[0]
                                and callee.depth > program_recursion_limit()):
                            exc = RecursionError("maximum recursion depth exceeded")
                            chain_context(exc, handled.current())
                            pc = f.info.prev_start[f.pc]
                            continue
                        callee.back = f
                        ts.frame = f = callee
                        callee = None  # keep no reference to a frame once it returns
                        pc = f.pc
                        if ts.tracer is not None:
                            try:
                                tracing.on_call(ts, f)
                            except BaseException as e:
                                exc = e     # raised by the 'call' event: in the new frame
                        continue
                    if pc == RESUME:
                        callee = f.callee
                        stopped = callee.stopped
                        if stopped is None:      # enter() did not start it: a plain switch
                            pc = SWITCH
                            continue
                        f.callee = None
                        callee.stopped = None
                        ts.frame = f = callee    # (enter() linked it to its caller)
                        callee = None
                        if type(stopped) is int:
                            pc = stopped         # where it stopped: a pc, or a signal
                        else:
                            exc = stopped        # raised at f.pc
                            pc = f.pc
                        stopped = None
                        continue
                    if pc == RETURN:
                        if f.trace is not None:
                            tracing.on_return(ts, f, f.retval)
                        if f.standin is not None:
                            tracebacks.frame_returns(f)
                        if f is entry:
                            value = f.retval
                            f.retval = None
                            f.pc = RETURN
                            if handled.current() is not saved_handled:
                                handled.set_handled(saved_handled)
                            return value
                        back = f.back
                        f.back = None
                        value = f.retval
                        f.retval = None
                        inline = f.inline
                        ts.frame = back
                        if inline is None:
                            back.stack.append(value)
                            value = None  # hold no reference to what was returned
                            f = back
                            pc = f.pc
                            continue
                        # a frame pushed by a specialized instruction decides
                        # where its caller resumes (and may raise there)
                        callee, f = f, back
                        try:
                            pc = inline.on_return(callee, value, f)
                        except BaseException as e:
                            exc = e
                            pc = f.info.prev_start[f.pc]
                        # a generator's frame that finished: it and its generator
                        # object were a cycle, which CPython's are not
                        callee.gen = None
                        callee = value = None
                        continue
                    if pc == YIELD:
                        while True:
                            # its next activation may have another caller (_datastack.state)
                            if f.gen_ds is not None:
                                f.gen_ds = None
                            if f.trace is not None:
                                tracing.on_return(ts, f, f.retval)
                            if f is entry:
                                break
                            # a generator frame run inline by FOR_ITER_GEN / SEND_GEN: its
                            # caller resumes where it was, the value yielded pushed
                            callee = f
                            f = callee.back
                            callee.back = None
                            ts.frame = f
                            callee.inline.on_yield(callee, f)
                            pc = f.pc
                            h, arg, nxt = f.info.instrs[pc]
                            if h is HANDLERS[_YIELD_VALUE] and f.trace is None:
                                # the caller yields the value on at once (a `yield from`
                                # chain): its YIELD_VALUE done here, no round of the loop
                                f.retval = callee.retval
                                f.pc = nxt
                                pc = YIELD
                            else:
                                f.stack.append(callee.retval)
                            callee.retval = None  # the frame keeps no reference to it
                            callee = None
                            if pc != YIELD:
                                break
                        if pc != YIELD:
                            continue
                        # the generator's driver suspends with the innermost exception
                        # state, its own: what the frame handles, not what its caller
                        # did (which CPython's suspended generator does not keep)
                        own = f.exc_stack[-1] if f.exc_stack else None
                        if handled.current() is not own:
                            handled.set_handled(own)
                        value = f.retval
                        f.retval = None  # the frame keeps no reference to what it yielded
                        return value
                    if pc == TRACE:
                        pc = f.pc
                        continue
                    raise SystemError(f"bad handler result {pc}")
            # -- unwinding: exc was raised at instruction pc of frame f --------
            try:
                if f.no_tb:
                    # re-raised with its traceback: the interpreter's entries added
                    # since are in front, and what follows this frame's entry was
                    # cleaned when that entry was added
                    f.no_tb = False
                    exc.__traceback__ = tracebacks.strip_internal(exc.__traceback__,
                                                                  upto_interpreted=True)
                else:
                    frameview.add_entry(exc, f, pc)
                if f.trace is not None:
                    tracing.on_exception(ts, f, exc)
            except BaseException as e:
                # the bookkeeping itself failed (a RecursionError under a very low
                # limit, an exception from the trace function): that is what unwinds
                exc = e
            entry_ = f.info.handlers.get(pc)
            if entry_ is not None:
                stack = f.stack
                del stack[f.info.nlocalsplus + entry_.depth:]
                if entry_.lasti:
                    stack.append(pc if f.entry_lasti < 0 else f.entry_lasti)
                if f.entry_lasti >= 0:
                    f.entry_lasti = -1
                stack.append(exc)
                exc = None
                pc = entry_.target
                continue
            # the frame is finished with an exception
            # (its last instruction: where RERAISE put it back, as CPython's frame)
            tracebacks.frame_exits(exc, f, f.entry_lasti if f.entry_lasti >= 0 else pc)
            if f is entry:
                f.pc = -4
                if handled.current() is not saved_handled:
                    handled.set_handled(saved_handled)
                box = [exc]
                exc = None
                handled.raise_unchanged(box)
            back = f.back
            f.back = None
            if f.inline is not None:
                f.inline.on_unwind(f, exc, back)
                f.gen = None    # (finished: see the return above)
            ts.frame = f = back
            pc = f.info.prev_start[f.pc]
    finally:
        ts.frame = saved_frame
        entry.back = None   # a suspended generator must not keep its last caller alive


# A function's frame pushed by a specialized instruction (or entered from native
# code) is run right where it is pushed, on the host stack (as CPython's
# DISPATCH_INLINED goes on in the same C loop), until it returns: no trip through
# run_frame's switch, and a fused caller goes on in place.  At most this many are
# nested; anything unusual (a call the callee makes through the loop, an
# exception, a trace) stops it and the loop carries on where it stopped.
# (Generator frames go through the loop: see _genframes.py.)
MAX_ENTERED = 8


def enter(caller, f):
    """Run `f`, a function's frame just pushed by `caller`, until it returns; its value.

    For a specialized call in a fused run or a handler, and for a call from
    native code (functions.enter; caller is then the innermost interpreted
    frame, or None).  NULL when the loop must carry on instead: f.stopped is
    None when f was not started (too many nested, traced, too deep), else
    where it stopped (a pc, a signal) or the exception it raised at f.pc.
    The caller then hands f to the loop (caller.callee = f and RESUME, or
    run_frame(f)).

    Its locals are a carrier's (frameview): f the frame it runs, at pc, from f
    out to entry.
    """
    try:
        ts = _LOCAL.state       # (thread_state(), without a call: once per call entered)
    except AttributeError:
        ts = thread_state()
    depth = f.depth
    if (ts.entered >= MAX_ENTERED or ts.tracer is not None
            or depth > RECURSION_LIMIT[0] and depth > program_recursion_limit()):
        return NULL
    entry = f
    f.back = caller
    ts.frame = f
    ts.entered += 1
    stack = f.stack
    instrs = f.info.instrs
    pc = f.pc
    try:
        while pc >= 0:
            h, arg, nxt = instrs[pc]
            pc = h(f, stack, arg, nxt)
    except BaseException as e:
        ts.entered -= 1
        ts.frame = caller
        _stopped_by(f, pc, e)
        return NULL
    ts.entered -= 1
    ts.frame = caller
    if pc == RETURN and f.trace is None:
        f.back = None
        if f.standin is not None:
            tracebacks.frame_returns(f)
        value = f.retval
        f.retval = None
        return value
    f.stopped = pc
    return NULL


def resume(entry):
    """Run `entry`, a generator's frame resumed by a native caller (its object's
    __next__ or send, the value sent pushed), until it yields; the value, as
    run_frame(entry) gives it.

    As enter() runs a function's frame: on the host stack, without run_frame's
    switch, while nothing unusual happens -- no trace, no exception handled by
    the frame or its caller, not stopped by enter(), within the recursion limits.
    Otherwise, and from wherever something unusual happens (a call through the
    loop, an exception, a return), run_frame goes on.  Its locals are a
    carrier's (frameview), as enter()'s.
    """
    try:
        ts = _LOCAL.state
    except AttributeError:
        ts = thread_state()
    depth = entry.depth
    if (entry.stopped is not None or entry.exc_stack or entry.trace is not None
            or ts.tracer is not None or _handled_now() is not None
            or depth > RECURSION_LIMIT[0] or ts.host_room[0] < LOW_HOST_ROOM):
        return run_frame(entry)
    caller = ts.frame
    entry.back = caller
    ts.frame = f = entry
    stack = f.stack
    instrs = f.info.instrs
    pc = f.pc
    try:
        while pc >= 0:
            h, arg, nxt = instrs[pc]
            pc = h(f, stack, arg, nxt)
    except BaseException as e:
        _stopped_by(f, pc, e)
    else:
        if pc == YIELD and f.trace is None and not f.exc_stack and _handled_now() is None:
            f.gen_ds = None     # (as run_frame's yield)
            ts.frame = caller
            f.back = None
            value = f.retval
            f.retval = None
            return value
        f.stopped = pc
    ts.frame = caller
    f.back = None
    # This host frame stays below run_frame's, which runs entry now: a frame walk
    # must not take it for a second run of entry (frameview, hostframes read `f`).
    f = None
    # (the exception handled when it started: none)
    return run_frame(entry, saved_handled=None)


_handled_now = handled.current


def _stopped_by(f, pc, exc):
    """f, run by enter() or resume(), stopped by exc, raised at instruction pc (or
    inside a fused run: at its own instruction); run_frame goes on from there."""
    if f.raised_at >= 0:
        pc = f.raised_at
        f.raised_at = -1
    f.pc = pc
    f.stopped = exc


# the host frames of these run interpreted frames (frame walks find them: frameview)
frameview.CARRIERS.update((id(run_frame.__code__), id(enter.__code__), id(resume.__code__)))


def enter_and_push(caller, stack, f, nxt):
    """A handler's end after pushing the frame f: run it here and end it as the
    loop's return does (its value pushed, or its `inline` hook says where the
    caller resumes: the handler returns this), or hand f to the loop."""
    value = enter(caller, f)
    if value is NULL:
        caller.callee = f
        return RESUME
    inline = f.inline
    if inline is None:
        stack.append(value)
        pc = nxt
    else:
        pc = inline.on_return(f, value, caller)
    if caller.trace is not None and pc >= 0:
        return traced_on(caller, pc)     # (f set its caller's trace function)
    return pc


def chain_context(exc, context):
    """Set exc.__context__ as raising exc while `context` is handled would (_PyErr_SetObject)."""
    if context is None or context is exc:
        return
    o = context
    while True:
        inner = o.__context__
        if inner is None:
            break
        if inner is exc:  # avoid a cycle
            o.__context__ = None
            break
        o = inner
    exc.__context__ = context
