"""An interpreted frame and the per-thread interpreter state."""

import threading
from types import CellType, ModuleType

from quickening.interp.facts import recursion_counter
from quickening.interp.ops.registry import NULL


class Frame:
    """One activation of a code object in the interpreter.

    `stack` is one list holding, as in CPython's frame, the fast locals in
    localsplus order (locals, then cells that are not arguments, then free
    variables: indexes below info.nlocalsplus) followed by the value stack.  `pc` is the code-unit index to resume at; while a frame is
    running, the loop keeps the live pc in a local and stores it here only
    when the frame is suspended (a call, a yield) or inspected.
    """

    # A plain class, not __slots__: the host specializes `Frame(...)` (its
    # CALL_ALLOC_AND_ENTER_INIT needs inline values), which makes a frame about
    # 100 ns cheaper, once per call.  The attributes __init__ sets are laid out
    # inline, in the class's shared keys.  An attribute that is both in those
    # keys and a class attribute is never specialized by the host (3.13's
    # LOAD_ATTR and STORE_ATTR fail on it: the instance may shadow the class), so
    # every attribute calls, generators, exceptions and frame objects use is set
    # by __init__; the rarely set ones (tracing's) default to the class
    # attributes below and stay out of the keys (never read through __dict__,
    # which would make the frame's attributes a dict).
    trace = None           # the frame's local trace function (f_trace)
    trace_pending = None   # f_trace set while the thread does not trace (runtime._settrace)
    trace_line = -1        # the line of the last 'line' event
    trace_prev = -1        # the pc executed last while traced
    trace_opcodes = False  # f_trace_opcodes: an 'opcode' event before each instruction

    def __init__(self, info, fast, globals_, builtins, locals_, back, depth):
        self.info = info
        self.stack = fast
        self.pc = 0
        self.globals = globals_
        self.builtins = builtins
        self.locals = locals_
        self.back = back
        self.depth = depth
        self.ds = None     # (top, limit) of CPython's data stack over this frame (_datastack.py)
        self.callee = None       # the frame this one is calling (handed to the loop)
        self.retval = None       # the value being returned or yielded
        self.gen_ds = None       # a generator frame's data-stack state while it runs (_datastack)
        self.gen = None          # the generator object owning this frame
        self.exc_stack = None    # exceptions a generator frame is handling (restored on resume)
        self.func = None         # the function called, when known
        self.view = None         # a weak reference to the FrameView handed out for this frame
        self.standin = None      # the real frame object standing for it (tracebacks.frame_object)
        self.stopped = None      # a frame loop.enter() ran and handed to the loop: where it
                                 # stopped (a handler's signal or pc, or the exception raised)
        self.inline = None       # for frames pushed by specialized instructions (__init__ of
                                 # CALL_ALLOC_AND_ENTER_INIT, generators of FOR_ITER_GEN and
                                 # SEND_GEN): on_return/on_yield(frame, value, caller) -> caller
                                 # pc, on_unwind(frame, exc, caller)
        self.no_tb = False       # the exception being unwound already has this frame's entry
        self.entry_lasti = -1    # lasti restored by RERAISE, pushed again by a lasti handler
        self.raised_at = -1      # set by a fused run (fusion.py): the instruction that raised

    @property
    def code(self):
        return self.info.code

    def lasti(self):
        """The code unit of the instruction being executed (or last executed)."""
        pc = self.pc
        if pc == 0 and self.info.is_generator_like:
            return self.info.unstarted_lasti     # a generator not started yet
        return self.info.prev_start.get(pc, pc)

    def bound_variables(self):
        """(name, value) of each fast local bound now, cells and free variables read
        (as PyFrame_GetLocals would list them)."""
        info = self.info
        fast = self.stack
        cells = info.cell_names
        free_start = info.free_start
        out = []
        for i, varname in enumerate(info.localsplus):
            value = fast[i]
            if value is NULL:
                continue
            if (i >= free_start or varname in cells) and type(value) is CellType:
                try:
                    value = value.cell_contents
                except ValueError:
                    continue
            out.append((varname, value))
        return out

    def lineno(self):
        return self.info.line_at(self.lasti())

    def __repr__(self):
        code = self.info.code
        return f"<interpreted frame {code.co_qualname} at {code.co_filename}:{self.lineno()}>"


class ThreadState:
    """Per-thread interpreter state: the innermost interpreted frame.

    A plain object, fetched once per loop entry: attributes of a
    threading.local cost several times more on every frame switch.
    """
    __slots__ = ("frame", "tracer", "tracing", "entered", "host_room")

    def __init__(self):
        self.frame = None
        self.tracer = None     # sys.settrace() function installed by interpreted code
        self.tracing = False   # inside a trace function: no events
        self.entered = 0       # frames run on the host stack by loop.enter(), nested
        # the host frames this thread may still push, its limit and its C
        # recursion left (PyThreadState's, writable; loop.with_host_room), or a
        # stand-in that never runs low
        self.host_room = recursion_counter() or [1 << 30, 0, 1 << 30]


_LOCAL = threading.local()


def thread_state():
    try:
        return _LOCAL.state
    except AttributeError:
        state = _LOCAL.state = ThreadState()
        return state


class _CurrentThread:
    """`THREAD.frame`: the innermost interpreted frame of the calling thread."""
    __slots__ = ()

    @property
    def frame(self):
        return thread_state().frame


THREAD = _CurrentThread()


def builtins_of(globals_):
    """The builtins a frame with these globals uses (as CPython: globals['__builtins__'])."""
    b = dict.get(globals_, "__builtins__", NULL) if isinstance(globals_, dict) else NULL
    if b is NULL:
        import builtins
        return builtins.__dict__
    if isinstance(b, ModuleType):
        return b.__dict__
    return b  # any other mapping (a dict subclass, a mappingproxy ...) is used as it is


def trace_running(frame):
    """A running frame is to be traced from where it is (its f_trace set while the
    thread traces, or sys.settrace making the one it kept active): traced_from_here,
    and its code's speed engine told -- a fused run tests only whether it was made
    again, so the engine makes this code's runs again (one running now leaves at
    its next test, and the loop traces the frame from there)."""
    traced_from_here(frame)
    engine = frame.info.engine
    if engine is not None:
        engine.trace_started(frame.info)


def traced_from_here(frame):
    """The frame is traced from where it is (a resumed generator; a running frame
    whose trace function was set meanwhile, by itself or by code it called): the
    instruction before frame.pc is its last one, as CPython's instrumentation
    compares with the frame's previous instruction -- no 'line' event until the
    line changes (or a jump goes back).  A frame not started yet: its first line."""
    pc = frame.pc
    if pc > 0:
        info = frame.info
        prev = info.prev_start.get(pc, pc - 1)
        frame.trace_line = info.lines[prev]
        frame.trace_prev = prev
    else:
        frame.trace_line = -1
        frame.trace_prev = -1
