"""Frame objects for interpreted frames.

`sys._getframe()`, `inspect.currentframe()`, traceback entries and trace
functions get the activation's real frame object (tracebacks.frame_object: a
stand-in made the first time one is needed), so `tb.tb_frame is
sys._getframe()` holds and `types.TracebackType(tb, sys._getframe(), ...)`
works.  `frame_object_linked` writes the activation's instruction into it
(f_lasti; f_lineno when read from C) and links its f_back to its caller's frame
object (made as needed, down to the native frame that called into the
interpreter): a function's callers stay where they are while it runs, so the
chain is linked when its frame object is made; a generator's once in each of
its activations (LINKED_RUNNING), as it may be resumed from elsewhere.

While the activation is alive its frame object reads it, as CPython's frame
object reads its running frame: the frame type's f_lineno, f_lasti, f_locals
and f_trace descriptors are replaced (when the first frame object is made) by
getset descriptors that ask the activation for frame objects standing for one
and do what the originals do for any other frame (end of this module).  When
an exception leaves the activation its frame object is given the variables
the activation had (tracebacks.frame_exits), as CPython's keeps them.

A FrameView is the live view those descriptors read through: f_code, f_lineno,
f_lasti, f_globals, f_builtins, f_locals (a live proxy as in CPython 3.13, see
localsproxy.py), f_back and f_trace of the interpreted frame.
isinstance(view, types.FrameType) is true, so inspect accepts views (the stack
walks of warnings and traceback.*_stack() still use them).
"""


import ctypes
import gc
import sys
import types
import weakref
from weakref import ref as _weakref

from quickening.interp import facts, host, tracebacks
from quickening.interp import codeinfo as _codeinfo
from quickening.interp.frame import thread_state, trace_running
from quickening.interp.generated import is_fused
from quickening.interp.handled import write_unraisable
from quickening.interp.localsproxy import f_locals
from quickening.interp.quiet import AUDITED_READS, HOOKED, audit_for_caller
from quickening.interp.tracebacks import is_dropped, is_internal, place, strip_internal

# (assigned, not imported: CPython 3.13 compiles a method call on a name an import
# binds without its method form, which the host cannot specialize -- test_layers.py)
_INFOS = _codeinfo._INFOS

_orig_getframe = sys._getframe     # (the host's: hostframes.install replaces it later)

_FrameType = types.FrameType
# the frame type's own f_locals getter (the interpreter reads its own frames'
# locals with it, not through the replaced descriptor at the end)
_host_locals = _FrameType.__dict__["f_locals"].__get__
_host_back = facts.NATIVE_GETTERS["f_back"]     # (the same for f_back)


class FrameView:
    # (weakly referenced by its frame, view_of: a view the frame held strongly would
    # make a cycle keeping the activation's variables alive after it returns)
    __slots__ = ("_frame", "__weakref__")

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
        # (what its frame object reports: a function's __code__)
        return tracebacks.shown_code(self._frame.info)

    def _live_lasti(self):
        """The instruction being executed: a running frame's pc lives in its loop."""
        frame = self._frame
        loop = _loop_running(frame, "f")
        if loop is not None:
            if is_fused(loop.f_code):
                return _host_locals(loop)["at"]     # inside a fused run (fusion.py)
            pc = _host_locals(loop)["pc"]
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
        return f_locals(self._frame)

    @property
    def f_back(self):
        frame = self._frame
        loop = _loop_running(frame, "entry")
        if loop is None:
            back = frame.back
            return view_of(back) if back is not None else None
        # an entry frame: its caller is whoever called into the interpreter
        host = _host_back(loop)
        carriers = _carrier_codes()
        bottom = program_bottom()
        while host is not None and host is not bottom:
            if id(host.f_code) in carriers:
                fr = _host_locals(host).get("f")
                if fr is not None:      # (None: a resume() that handed over to run_frame)
                    return view_of(fr)
            elif not is_internal(host.f_code):
                return host
            host = _host_back(host)
        return None

    @property
    def f_trace(self):
        frame = self._frame
        trace = frame.trace
        return trace if trace is not None else frame.trace_pending

    @f_trace.setter
    def f_trace(self, fn):
        # a local trace function is called only while the thread traces
        # (sys.settrace); until then it is only kept (runtime._settrace)
        frame = self._frame
        if fn is None or thread_state().tracer is not None:
            if frame.trace is None and fn is not None:
                trace_running(frame)
            frame.trace = fn
            frame.trace_pending = None
        else:
            frame.trace = None
            frame.trace_pending = fn

    f_trace_lines = True

    @property
    def f_trace_opcodes(self):
        return self._frame.trace_opcodes

    @f_trace_opcodes.setter
    def f_trace_opcodes(self, on):
        self._frame.trace_opcodes = bool(on)

    def clear(self):
        pass

    def __repr__(self):
        code = self._frame.info.code
        return f"<frame at {id(self):#x}, file {code.co_filename!r}, line {self.f_lineno}, code {code.co_name}>"


# the specializer treats a view as the frame object it stands for
facts.STAND_INS[FrameView] = _FrameType

# ids of the codes of host frames that run (or act for) interpreted frames, with
# locals f (the innermost), entry and pc: loop.run_frame, loop.enter and
# generators.on_behalf (each registered by its module)
CARRIERS = set()


def _carrier_codes():
    return CARRIERS


def _loop_running(frame, local):
    """The host frame of the run_frame call whose `local` is this interpreted frame."""
    carriers = _carrier_codes()
    host = sys._getframe(1)
    while host is not None:
        c = host.f_code
        if (id(c) in carriers or (local == "f" and is_fused(c))) and \
                _host_locals(host).get(local) is frame:
            return host
        host = _host_back(host)
    return None


def view_of(frame):
    """The activation's view: the same one while something holds it.  (The frame
    keeps only a weak reference to it: the view keeps the frame alive, as a frame
    object keeps its variables, and a strong reference back would be a cycle that
    only the garbage collector frees: the program's objects would outlive the
    return, their __del__ late.)"""
    ref = frame.view
    view = ref() if ref is not None else None
    if view is None:
        view = FrameView(frame)
        frame.view = _weakref(view)
    return view


_CARRIER, _FUSED, _INTERNAL, _PROGRAM = range(4)
_host_kinds = {}   # id(code) -> (code, kind): by identity, the entry keeps the code alive


def _host_kind(code):
    cached = _host_kinds.get(id(code))
    if cached is not None and cached[0] is code:
        return cached[1]
    if id(code) in _carrier_codes():
        kind = _CARRIER
    elif is_fused(code):
        kind = _FUSED
    elif is_internal(code):
        kind = _INTERNAL
    else:
        kind = _PROGRAM
    _host_kinds[id(code)] = (code, kind)
    return kind


# the host frame `quickening run` runs the program on (set by it): the launcher's
# frames, a console script's or runpy's, lie beyond it: the program's outermost
# frame has no f_back, as under `python`
PROGRAM_BOTTOM = None


def program_bottom():
    """The host frame `quickening run` runs the program on, or None."""
    return PROGRAM_BOTTOM


def _logical_stack(host):
    """The frames a program sees, from host frame `host` outwards: (frame, lasti) for
    each interpreted frame (the instruction it is at), (native frame, None) for
    each native one; the interpreter's own frames are left out."""
    fused = None     # (frame, instruction) of the fused run above the next carrier
    kinds = _host_kinds
    bottom = program_bottom()
    while host is not None and host is not bottom:
        code = host.f_code
        cached = kinds.get(id(code))
        kind = cached[1] if cached is not None and cached[0] is code else _host_kind(code)
        if kind is _INTERNAL:
            pass
        elif kind is _CARRIER:
            loc = _host_locals(host)
            fr, entry, pc = loc.get("f"), loc.get("entry"), loc.get("pc")
            if fr is not None:
                if fused is not None and fused[0] is fr:
                    lasti = fused[1]
                elif type(pc) is int and pc >= 0:
                    lasti = pc
                elif fr.trace_prev >= 0:
                    lasti = fr.trace_prev
                else:
                    lasti = fr.lasti()
                while True:
                    yield fr, lasti
                    if fr is entry:
                        break
                    fr = fr.back
                    if fr is None:
                        break
                    lasti = fr.lasti()
            fused = None
        elif kind is _FUSED:
            if fused is None:
                loc = _host_locals(host)
                fused = (loc.get("f"), loc.get("at"))
        else:
            yield host, None
        host = _host_back(host)


class _LinkedRunning:
    """The type of LINKED_RUNNING (truthy, as any object)."""
    __slots__ = ()

    def __repr__(self):
        return "LINKED_RUNNING"


# `running` of a generator (generators.InterpGenerator) whose frame object was linked
# to its callers in the activation running now: they stay where they are until it
# suspends, so walks outwards stop at it as at a function's.  It is as true as True
# (every reader of `running` tests its truth; gi_running reads True), and every
# suspension, end or throw() sets `running` to False, every resumption to True:
# the mark lasts one activation, with no work of its own on the generator's paths.
LINKED_RUNNING = _LinkedRunning()


def _linked(gen):
    """True when frame.gen `gen` is None (a function's frame) or was linked in this
    activation: its frame object's f_back chain is complete."""
    return gen is None or gen.running is LINKED_RUNNING


def _mark_linked(gens):
    """The generators whose frame objects were just linked out to the bottom of the
    stack (or to a frame object linked before)."""
    for gen in gens:
        if gen.running is True:     # (False: not running, as a frame of its own)
            gen.running = LINKED_RUNNING


def frame_object(frame, live=True):
    """The real frame object standing for this activation (tracebacks.frame_object),
    made the first time something needs one.  live: its attributes read the
    activation while it is alive (register_live); add_entry leaves that to when the
    exception is caught in the activation (an activation that an exception leaves
    is finished, and its frame object keeps what it had then)."""
    if frame.standin is not None:
        return frame.standin
    stand = tracebacks.frame_object(frame)
    if live:
        register_live(stand, frame)
    return stand


def frame_object_linked(frame, lasti=-1, host=None, live=True):
    """The real frame object of interpreted `frame` (see tracebacks.frame_object),
    at instruction lasti (by default where the frame is), with f_back linked to its
    caller's frame object, made as needed, and so on outwards.  A function's
    callers stay where they are while it runs, so a function's frame object is
    linked when it is made, and the walk outwards stops at the first caller that
    had one (placed at its current instruction); a generator's is linked again
    in each activation (it may be resumed from elsewhere), then the walk stops
    at it as at a function's until it suspends (LINKED_RUNNING).  (The instruction is written into
    the frame object for readers that do not go through the attributes, which
    read the live activation.)
    host: the host frame of the loop whose innermost frame is `frame`, if known;
    live: see frame_object."""
    stand = frame.standin
    fresh = stand is None
    if fresh:
        stand = tracebacks.frame_object(frame)     # (frame_object, without a call)
        if live:
            register_live(stand, frame)
    if facts.PROBLEM is not None:
        return stand
    if live and not fresh and id(stand) not in LIVE:
        register_live(stand, frame)     # (made by add_entry)
    gen = frame.gen
    if not fresh and lasti >= 0 and _linked(gen):
        place(frame, stand, lasti)
        return stand
    linked = [] if gen is None else [gen]     # generators whose chains this links
    if host is not None and lasti >= 0:
        loc = _host_locals(host)
        if loc.get("f") is frame:
            # the frames this loop runs, then the ones below it
            place(frame, stand, lasti)
            entry = loc.get("entry")
            prev, fr = stand, frame
            while fr is not entry:
                fr = fr.back
                if fr is None:
                    break
                st = fr.standin
                gen = fr.gen
                if st is None:
                    st = frame_object(fr)
                    place(fr, st, fr.lasti())
                elif _linked(gen):
                    place(fr, st, fr.lasti())
                    facts.set_frame_back(prev, st)
                    _mark_linked(linked)
                    return stand     # linked before (see above)
                else:
                    place(fr, st, fr.lasti())
                facts.set_frame_back(prev, st)
                if gen is not None:
                    linked.append(gen)
                prev = st
            _link(_logical_stack(_host_back(host)), prev, linked)
            return stand
    frames = _logical_stack(_orig_getframe(1))
    for fr, at in frames:
        if fr is frame:
            if lasti < 0:
                lasti = at
            break
    else:
        # not running on this thread (a generator thrown into before it started)
        place(frame, stand, lasti if lasti >= 0 else frame.lasti())
        return stand
    place(frame, stand, lasti)
    _link(frames, stand, linked)
    return stand


def _link(frames, prev, linked):
    """Link frame object prev's f_back to the frame (frame, lasti) `frames` gives
    next, and so on, up to a function's frame object made before or a generator's
    linked in this activation (see frame_object_linked); then mark the generators
    `linked` lists and those passed on the way (their chains are complete)."""
    set_back = facts.set_frame_back
    for fr, at in frames:
        if at is None:          # a native frame: its own f_back goes on from there
            set_back(prev, fr)
            break
        st = fr.standin
        gen = fr.gen
        if st is None:
            st = frame_object(fr)
            place(fr, st, at)
        else:
            place(fr, st, at)
            if gen is None or gen.running is LINKED_RUNNING:
                set_back(prev, st)
                break
        set_back(prev, st)
        if gen is not None:
            linked.append(gen)
        prev = st
    else:
        set_back(prev, None)
    _mark_linked(linked)


def as_frame_object(frame):
    """A frame object for what the frame walks give (a FrameView: the frame object of
    its interpreted frame; a native frame or None as it is)."""
    if type(frame) is FrameView:
        return frame_object_linked(frame._frame)
    return frame


# -- frame objects of live activations read the activation ---------------------------
# A frame object standing for an activation that is still alive answers f_lineno,
# f_lasti, f_locals and f_trace from the activation itself, as a FrameView does (a
# frame object of CPython's reads its running frame): the frame type's getset
# descriptors for them are replaced by ones whose getter asks the activation when
# the frame object is one of ours, else does what the original does.  (A getset
# descriptor, made by PyDescr_NewGetSet, so that the type looks as it did.  A
# getter cannot raise through ctypes: an error is reported as unraisable and
# the attribute reads None.)
LIVE = {}         # id(frame object) -> weakref to the interpreted Frame it stands for
_KEYS = {}        # the weakrefs in LIVE -> their keys
_OVERRIDDEN = {}  # type -> what must stay alive: PyGetSetDefs, callbacks, original descriptors
NATIVE = object()  # a live getter's answer: do what the original descriptor does


def _forget(ref):
    LIVE.pop(_KEYS.pop(ref, None), None)


def register_live(stand, frame):
    """stand is frame's frame object (tracebacks.frame_object): while frame is alive,
    reads of stand's live attributes go to it."""
    ref = weakref.ref(frame, _forget)
    _KEYS[ref] = key = id(stand)
    LIVE[key] = ref
    if _live_pending and facts.PROBLEM is None:
        _override_live()


_live_pending = True


def _override_live():
    global _live_pending
    _live_pending = False
    override_getsets(_FrameType, _FRAME_GETTERS, {"f_trace": _set_live_trace,
                                                  "f_trace_opcodes": _set_live_trace_opcodes})
    _override_clear()


def live_frame(obj):
    """The interpreted frame a frame object stands for, while it is alive."""
    ref = LIVE.get(id(obj))
    if ref is not None:
        frame = ref()
        if frame is not None and frame.standin is obj:
            return frame
    return None


def _live_lineno(obj):
    frame = live_frame(obj) if LIVE else None
    return NATIVE if frame is None else view_of(frame).f_lineno


def _live_lasti(obj):
    frame = live_frame(obj) if LIVE else None
    return NATIVE if frame is None else view_of(frame).f_lasti


def _live_locals(obj):
    frame = live_frame(obj) if LIVE else None
    if frame is None:
        return NATIVE
    return f_locals(frame)


def _live_trace(obj):
    frame = live_frame(obj) if LIVE else None
    return NATIVE if frame is None else view_of(frame).f_trace


def _set_live_trace(obj, value):
    frame = live_frame(obj) if LIVE else None
    if frame is not None:
        view_of(frame).f_trace = value
    return NATIVE     # (the frame object's own field too)


def _live_trace_opcodes(obj):
    frame = live_frame(obj) if LIVE else None
    return NATIVE if frame is None else frame.trace_opcodes


def _set_live_trace_opcodes(obj, value):
    frame = live_frame(obj) if LIVE else None
    if frame is None:
        return NATIVE
    # (not the frame object's own field: its setter would have CPython instrument
    # the code object the frame object shows for opcode events of its own)
    frame.trace_opcodes = bool(value)
    return None


def _runs_interpreted(code):
    info = _INFOS.get(id(code))
    return info is not None and info.code is code


def _host_kind_of(host):
    code = host.f_code
    cached = _host_kinds.get(id(code))
    return cached[1] if cached is not None and cached[0] is code else _host_kind(code)


def _program_back(obj):
    """f_back of a frame object as the program sees it.  A native frame called by the
    interpreter (a library function, a callback a C function calls) has host frames
    of the interpreter's own (the loop, a handler, enter ...) as its f_back: in
    their place, the frame object of the interpreted frame that called it (linked to
    its callers), or the native frame beyond them (None at the program's bottom).
    Any other frame object, the interpreter's own frames' included: its own f_back
    (a stand-in's is linked when it is placed)."""
    back = _host_back(obj)
    if back is None or _host_kind_of(back) is _PROGRAM or _host_kind_of(obj) is not _PROGRAM:
        return back
    if _runs_interpreted(obj.f_code):
        # the frame object of interpreted module, class or exec'd code (its code is
        # the real one, no trampoline): linked when placed, to a function's frame
        # object, whose code is a trampoline
        return back
    first = next(_logical_stack(back), None)
    if first is None:
        return None
    frame, lasti = first
    if lasti is None:
        return frame          # a native frame
    carrier = back
    while carrier is not None and _host_kind_of(carrier) is not _CARRIER:
        carrier = _host_back(carrier)
    return frame_object_linked(frame, lasti, carrier)


_FRAME_GETTERS = {"f_lineno": _live_lineno, "f_lasti": _live_lasti, "f_locals": _live_locals,
                  "f_trace": _live_trace, "f_trace_opcodes": _live_trace_opcodes}
_BACK_GETTER = {"f_back": _program_back}
_back_pending = True


def install_program_back():
    """Frame objects' f_back as the program sees it (_program_back), from now on
    (`quickening run`, before the program starts: a native frame is reachable from
    its start, through sys._getframe, a traceback or a trace function)."""
    global _back_pending
    if _back_pending and facts.PROBLEM is None:
        _back_pending = False
        override_getsets(_FrameType, _BACK_GETTER)


class _GetSetDef(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("get", ctypes.c_void_p), ("set", ctypes.c_void_p),
                ("doc", ctypes.c_void_p), ("closure", ctypes.c_void_p)]


_GETTER = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_void_p)
_SETTER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_void_p, ctypes.c_void_p)
_new_getset = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.py_object, ctypes.c_void_p)(
    ("PyDescr_NewGetSet", ctypes.pythonapi))
_type_modified = ctypes.PYFUNCTYPE(None, ctypes.py_object)(("PyType_Modified", ctypes.pythonapi))


def _make_getter(live, original, type_, audited=None):
    """(audited: the attribute's name if CPython's getter raises object.__getattr__:
    this one raises it for its caller, the program's read or the interpreter's; the
    original's own event, raised here, is the interpreter's -- audit.py)"""
    def get(obj, closure):
        try:
            if audited is not None and HOOKED[0]:
                audit_for_caller("object.__getattr__", obj, audited)
            value = live(obj)
            if value is NATIVE:
                value = original.__get__(obj, type_)
        except BaseException as exc:   # (a getter's error cannot pass through ctypes)
            _report(exc, obj)
            value = None
        facts._incref(id(value))       # the getter returns a new reference
        return id(value)
    return get


def _make_setter(live, original):
    def set_(obj, value_addr, closure):
        try:
            value = ctypes.cast(value_addr, ctypes.py_object).value if value_addr else None
            if live(obj, value) is NATIVE:
                if value_addr:
                    original.__set__(obj, value)
                else:
                    original.__delete__(obj)
        except BaseException as exc:
            _report(exc, obj)
        return 0
    return set_


def _report(exc, obj):
    write_unraisable(exc, obj)


def override_getsets(type_, getters, setters=None):
    """Replace the getset descriptors `getters` names on the built-in type_ by ones
    whose getter is getters[name](obj) (NATIVE: what the original does) and whose
    setter is the original's, or setters[name](obj, value) (NATIVE: then the
    original's too)."""
    setters = setters or {}
    namespace = gc.get_referents(type_.__dict__)[0]
    keep = _OVERRIDDEN.setdefault(type_, [])
    for name, live in getters.items():
        original = namespace[name]
        odef = _GetSetDef.from_address(facts.getset_def(original))
        getter = _GETTER(_make_getter(live, original, type_,
                                      name if name in AUDITED_READS else None))
        setter = _SETTER(_make_setter(setters[name], original)) if name in setters else None
        gdef = _GetSetDef(odef.name, ctypes.cast(getter, ctypes.c_void_p).value,
                          ctypes.cast(setter, ctypes.c_void_p).value if setter else odef.set,
                          odef.doc, odef.closure)
        descr = _new_getset(type_, ctypes.addressof(gdef))
        keep.append((gdef, getter, setter, original, descr))
        namespace[name] = descr
    _type_modified(type_)


# frame.clear() of the frame object of a generator's activation (gi_frame) does what
# CPython's does for the generator's frame: refused while it runs or is suspended,
# and for a generator not started yet it finalizes the generator (a coroutine warns
# that it was never awaited).  Any other frame object: the original method.  (A
# method can raise, unlike a getter: the frame type's `clear` is a function.)
_native_clear = _FrameType.__dict__["clear"]


def _unstarted_inner(frame):
    """The generator object (generators.InterpGenerator) of a frame not started yet:
    the frame does not point back to it until it starts, so it is found among the
    frame's referrers (one call of clear() on it: rare)."""
    if not frame.info.code.co_flags & host.GENERATOR_LIKE:
        return None
    for obj in gc.get_referrers(frame):
        if getattr(obj, "frame", None) is frame and hasattr(type(obj), "finalize_unstarted"):
            return obj
    return None


def _clear(self):
    frame = live_frame(self) if LIVE else None
    if frame is None or frame.pc < 0:
        return _native_clear(self)
    inner = frame.gen if frame.gen is not None else _unstarted_inner(frame)
    if inner is None:
        return _native_clear(self)
    if inner.running:
        raise RuntimeError("cannot clear an executing frame")
    if inner.started:
        raise RuntimeError("cannot clear a suspended frame")
    inner.finalize_unstarted()
    return None


def _override_clear():
    namespace = gc.get_referents(_FrameType.__dict__)[0]
    _clear.__name__ = "clear"
    _clear.__qualname__ = "frame.clear"
    _clear.__doc__ = _native_clear.__doc__
    namespace["clear"] = _clear
    _type_modified(_FrameType)


# -- the traceback entries of interpreted frames ---------------------------------------
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
            if ctb is not None and is_dropped(ctb.tb_frame.f_code):
                chained.__traceback__ = strip_internal(ctb)
    line = info.line_at(lasti)
    # (called by the loop running `frame`, or by a generator's throw() before it started)
    stand = frame_object_linked(frame, lasti, _orig_getframe(1), live=False)
    exc.__traceback__ = types.TracebackType(tb, stand, lasti * 2,
                                            line if line is not None else -1)


def release_own_entry(frame, exc):
    """exc is caught in `frame`, which goes on running: its frame object (the
    traceback's, made by add_entry) reads the live activation from now on.  (It
    holds none of the activation's variables: a frame object is given them only
    when an exception leaves the activation, frame_exits.)"""
    stand = frame.standin
    if stand is not None:
        if id(stand) not in LIVE:
            register_live(stand, frame)
