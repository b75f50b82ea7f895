"""What `sys._getframe()` returns for an interpreted frame.

Frame objects cannot be created from Python, so interpreted code sees a
view with the attributes code usually reads: f_code, f_lineno, f_lasti,
f_globals, f_builtins, f_locals (a snapshot for functions, the namespace
otherwise), f_back and f_trace.
"""


class FrameView:
    __slots__ = ("_frame",)

    def __init__(self, frame):
        self._frame = frame

    @property
    def f_code(self):
        return self._frame.info.code

    @property
    def f_lineno(self):
        return self._frame.lineno()

    @property
    def f_lasti(self):
        return self._frame.lasti() * 2

    @property
    def f_globals(self):
        return self._frame.globals

    @property
    def f_builtins(self):
        return self._frame.builtins

    @property
    def f_locals(self):
        from quickening.interp.runtime import frame_locals
        return frame_locals(self._frame)

    @property
    def f_back(self):
        back = self._frame.back
        return view_of(back) if back is not None else None

    f_trace = None
    f_trace_lines = True
    f_trace_opcodes = False

    def clear(self):
        pass

    def __repr__(self):
        code = self._frame.info.code
        return f"<frame at {id(self):#x}, file {code.co_filename!r}, line {self.f_lineno}, code {code.co_name}>"


def view_of(frame):
    view = frame.view
    if view is None:
        view = frame.view = FrameView(frame)
    return view
