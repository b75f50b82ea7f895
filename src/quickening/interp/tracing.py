"""sys.settrace for interpreted code: call, line, return and exception events.

`sys.settrace(fn)` called from interpreted code installs fn for the
interpreter's frames (the host's own tracer would see the interpreter's
frames instead).  A frame whose trace function is set runs through `step`,
which reports a 'line' event before the first instruction of each new line
(and of a line reached again by a jump backwards), as CPython 3.13 does.
"""

from quickening.interp import frameview, host
from quickening.interp.frame import trace_running, traced_from_here

# True while no thread has a trace function set (a list: fused code reads it).  A
# callee written into its caller's run has no frame (inlining.py): only then.
NO_TRACER = [True]
_TRACING = set()    # the thread states with one (their ids)
_JUMPS_BACK = frozenset(host.OPMAP[name] for name in ("JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"))


def set_tracer(ts, fn):
    """Make fn the thread's trace function (sys.settrace), None for none."""
    ts.tracer = fn
    if fn is None:
        _TRACING.discard(id(ts))
    else:
        _TRACING.add(id(ts))
    NO_TRACER[0] = not _TRACING


def settrace_from(ts, frame, tracer):
    """sys.settrace(tracer) called in interpreted frame `frame` (or by native code it
    called): the thread's trace function, and the frames running in this thread keep
    their f_trace -- called only while the thread traces."""
    set_tracer(ts, tracer)
    while frame is not None:
        if tracer is None and frame.trace is not None:
            frame.trace_pending, frame.trace = frame.trace, None
        elif tracer is not None and frame.trace_pending is not None:
            frame.trace, frame.trace_pending = frame.trace_pending, None
            trace_running(frame)
        frame = frame.back


def _call(ts, fn, frame, event, arg):
    if ts.tracing:
        return None
    ts.tracing = True
    try:
        # the frame's frame object, as sys._getframe() gives it (its attributes
        # read the live frame: frameview)
        return fn(frameview.frame_object_linked(frame), event, arg)
    except BaseException:
        set_tracer(ts, None)
        frame.trace = None
        raise
    finally:
        ts.tracing = False


def on_call(ts, frame):
    """A frame starts (or a generator resumes): the global tracer may trace it.

    A resumed generator goes on after the instruction it yielded at, as its
    last one: no 'line' event until the line changes (or a jump goes back)."""
    result = _call(ts, ts.tracer, frame, "call", None)
    if result is not None:
        frame.trace = result
        if frame.info.is_generator_like:
            traced_from_here(frame)
        else:
            frame.trace_line = -1
            frame.trace_prev = -1


def _local(ts, frame, event, arg):
    result = _call(ts, frame.trace, frame, event, arg)
    if result is not None:
        frame.trace = result


def on_return(ts, frame, value):
    _local(ts, frame, "return", value)


def on_exception(ts, frame, exc):
    _local(ts, frame, "exception", (type(exc), exc, exc.__traceback__))


def step(ts, f, stack, pc):
    """Execute one instruction of a traced frame, reporting a new line first (and
    the instruction, when the frame's f_trace_opcodes is set: after the line, as
    CPython 3.13 does; a debugger's set_trace stops so at the instruction after
    its call)."""
    info = f.info
    if pc > info.first_traceable:
        line = info.lines[pc]
        if line is not None and (line != f.trace_line or
                                 (pc < f.trace_prev and pc in info.line_starts)):
            f.trace_line = line
            _local(ts, f, "line", None)
        if f.trace_opcodes and f.trace is not None:
            _local(ts, f, "opcode", None)
    f.trace_prev = pc
    h, arg, nxt = info.plain[pc]     # one by one, never a fused run (fusion.py)
    went_on = h(f, stack, arg, nxt)
    while went_on == pc and info.opcodes[pc] not in _JUMPS_BACK:
        # an adaptive handler specialized its site and has it run again: the same
        # instruction (no second 'opcode' event); only a jump back goes on at itself
        h, arg, nxt = info.plain[pc]
        went_on = h(f, stack, arg, nxt)
    return went_on
