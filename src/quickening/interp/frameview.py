"""What `sys._getframe()` returns for an interpreted frame.

Frame objects cannot be created from Python, so interpreted code sees a
view with the attributes code usually reads: f_code, f_lineno, f_lasti,
f_globals, f_builtins, f_locals (a live proxy as in CPython 3.13, see
localsproxy.py), f_back and f_trace.  isinstance(view, types.FrameType) is
true, so inspect accepts views.
"""


import sys
import types

from quickening.interp import fusion
from quickening.interp.tracebacks import is_internal

_FrameType = types.FrameType


class FrameView:
    __slots__ = ("_frame",)

    def __init__(self, frame):
        self._frame = frame

    @property
    def __module__(self):
        # a frame has no __module__ (inspect.getmodule(frame) relies on that)
        raise AttributeError("'frame' object has no attribute '__module__'")

    @property
    def __class__(self):
        # isinstance(view, types.FrameType) holds (inspect.isframe, inspect.stack ...);
        # type(view) stays FrameView
        return _FrameType

    @property
    def f_code(self):
        return self._frame.info.code

    def _live_lasti(self):
        """The instruction being executed: a running frame's pc lives in its loop."""
        frame = self._frame
        loop = _loop_running(frame, "f")
        if loop is not None:
            if loop.f_code.co_filename == fusion.FILENAME:
                return loop.f_locals["at"]     # inside a fused run (fusion.py)
            pc = loop.f_locals["pc"]
            if pc >= 0:
                return pc
            if frame.trace_prev >= 0:   # a traced frame returning: its last instruction
                return frame.trace_prev
        return frame.lasti()

    @property
    def f_lineno(self):
        return self._frame.info.line_at(self._live_lasti())

    @property
    def f_lasti(self):
        return self._live_lasti() * 2

    @property
    def f_globals(self):
        return self._frame.globals

    @property
    def f_builtins(self):
        return self._frame.builtins

    @property
    def f_locals(self):
        from quickening.interp.localsproxy import f_locals
        return f_locals(self._frame)

    @property
    def f_back(self):
        frame = self._frame
        loop = _loop_running(frame, "entry")
        if loop is None:
            back = frame.back
            return view_of(back) if back is not None else None
        # an entry frame: its caller is whoever called into the interpreter
        host = loop.f_back
        carriers = _carrier_codes()
        while host is not None:
            if id(host.f_code) in carriers:
                return view_of(host.f_locals["f"])
            if not is_internal(host.f_code):
                return host
            host = host.f_back
        return None

    @property
    def f_trace(self):
        frame = self._frame
        trace = frame.trace
        return trace if trace is not None else frame.__dict__.get("trace_pending")

    @f_trace.setter
    def f_trace(self, fn):
        # a local trace function is called only while the thread traces
        # (sys.settrace); until then it is only kept (runtime._settrace)
        frame = self._frame
        from quickening.interp.frame import thread_state
        if fn is None or thread_state().tracer is not None:
            frame.trace = fn
            frame.__dict__.pop("trace_pending", None)
        else:
            frame.trace = None
            frame.trace_pending = fn

    f_trace_lines = True
    f_trace_opcodes = False

    def clear(self):
        pass

    def __repr__(self):
        code = self._frame.info.code
        return f"<frame at {id(self):#x}, file {code.co_filename!r}, line {self.f_lineno}, code {code.co_name}>"


def _run_frame_code():
    from quickening.interp.loop import run_frame
    return run_frame.__code__


_CARRIERS = set()


def _carrier_codes():
    """ids of the codes of host frames that run (or act for) interpreted frames,
    with locals f (the innermost), entry and pc: run_frame, generators.on_behalf."""
    if not _CARRIERS:
        from quickening.interp.generators import on_behalf
        _CARRIERS.update((id(_run_frame_code()), id(on_behalf.__code__)))
    return _CARRIERS


def _loop_running(frame, local):
    """The host frame of the run_frame call whose `local` is this interpreted frame."""
    carriers = _carrier_codes()
    host = sys._getframe(1)
    while host is not None:
        c = host.f_code
        if (id(c) in carriers or (local == "f" and c.co_filename == fusion.FILENAME)) and \
                host.f_locals.get(local) is frame:
            return host
        host = host.f_back
    return None


def view_of(frame):
    view = frame.view
    if view is None:
        view = frame.view = FrameView(frame)
    return view
