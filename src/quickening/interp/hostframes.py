"""`sys._getframe()`, `sys._getframemodulename()`, `warnings.warn`, `sys.settrace()`
called by *native* code.

Interpreted code calling these is answered by runtime.py's intercepts.  But
native library code asks too, about its callers: `doctest.DocTestSuite()`
finds the calling module with `sys._getframe(depth)`, `namedtuple`, `Enum`
and `NewType` name their `__module__` with `sys._getframemodulename(1)`, and
library code warns with a `stacklevel` meant to reach its caller's line;
`dis` disassembles a function's `__code__`, which for an interpreted function
is its trampoline (dis is pointed at the code the body runs instead).
Natively those see the interpreter's own frames (the loop, a handler)
instead of the interpreted caller.  `install()` replaces the two functions
(and warnings.warn) with versions that walk the host stack and put, in place of each
run of the evaluation loop, the interpreted frames it is running (views,
innermost first); the interpreter's own frames are skipped.  A debugger
(pdb.set_trace, breakpoint()) sets the f_trace of the program's frames and then
calls sys.settrace natively: the host's tracer would trace the interpreter's
frames (pdb stopped in an instruction's handler), so the trace function becomes
the interpreted frames', as sys.settrace called by interpreted code does
(runtime.py); sys.gettrace answers it.  Called from quickening's own code they
behave exactly as the originals.
"""

import sys
import warnings

from quickening.interp import tracing
from quickening.interp import codeinfo as _codeinfo
from quickening.interp.facts import NATIVE_GETTERS
from quickening.interp.frame import thread_state
from quickening.interp.frameview import (_carrier_codes, as_frame_object, install_program_back,
                                         live_frame, program_bottom, view_of)
from quickening.interp.quiet import HOOKED, audit_for_caller, quietly
from quickening.interp.sitestate import LiveCode
from quickening.interp.tracebacks import is_internal

# (assigned, not imported: CPython 3.13 compiles a method call on a name an import
# binds without its method form, which the host cannot specialize -- test_layers.py)
TRAMPOLINES = _codeinfo.TRAMPOLINES

_orig_getframe = sys._getframe
_orig_settrace = sys.settrace
_orig_gettrace = sys.gettrace
_host_locals = type(sys._getframe()).__dict__["f_locals"].__get__
_host_back = NATIVE_GETTERS["f_back"]      # (not the program's view: frameview)
_orig_getframemodulename = getattr(sys, "_getframemodulename", None)
_installed = False


def _walk(host):
    """Frames from host outwards: native frames, and views of interpreted ones."""
    carriers = _carrier_codes()
    bottom = program_bottom()
    while host is not None and host is not bottom:
        code = host.f_code
        if id(code) in carriers:
            f_locals = _host_locals(host)   # (the frame type's own getter: frameview)
            frame, entry = f_locals.get("f"), f_locals.get("entry")
            while frame is not None:
                yield view_of(frame)
                if frame is entry:
                    break
                frame = frame.back
        elif not is_internal(code):
            yield host
        host = _host_back(host)


def _frame_at(caller, depth):
    for frame in _walk(caller):
        if depth <= 0:
            return frame
        depth -= 1
    raise ValueError("call stack is not deep enough")


# (Once the program has added an audit hook, the walks are made quietly, as the
# interpreter's work, and its hooks see the one event CPython's function raises,
# for its caller: quiet.py.  Without one, nothing of that is done.)
def getframe(depth=0, /):
    hooked = HOOKED[0]
    caller = quietly(_orig_getframe, 2) if hooked else _orig_getframe(1)
    if is_internal(caller.f_code):
        return _orig_getframe(depth + 1)
    depth = depth.__index__()
    if not hooked:
        return as_frame_object(_frame_at(caller, depth))
    frame = quietly(_frame_object_at, caller, depth)
    audit_for_caller("sys._getframe", frame)
    return frame


def _frame_object_at(caller, depth):
    return as_frame_object(_frame_at(caller, depth))


def getframemodulename(depth=0):
    hooked = HOOKED[0]
    caller = quietly(_orig_getframe, 2) if hooked else _orig_getframe(1)
    if is_internal(caller.f_code):
        return _orig_getframemodulename(depth + 1)
    depth = depth.__index__()
    if not hooked:
        return _module_name_at(caller, depth)
    audit_for_caller("sys._getframemodulename", depth)
    return quietly(_module_name_at, caller, depth)


def _module_name_at(caller, depth):
    try:
        frame = _frame_at(caller, depth)
    except ValueError:
        return None
    return module_name_of(frame)


def module_name_of(frame):
    """sys._getframemodulename's answer for a frame (or view): its function's
    __module__, else its globals' __name__."""
    func_module = None
    if type(frame).__name__ == "FrameView":
        interpreted = frame._frame
    else:   # the frame object of an interpreted frame, while that is alive (frameview)
        interpreted = live_frame(frame)
    if interpreted is not None:
        func = interpreted.func
        func_module = getattr(func, "__module__", None) if func is not None else None
    if func_module is not None:
        return func_module
    return frame.f_globals.get("__name__")


def settrace(function, /):
    if is_internal(_orig_getframe(1).f_code):
        return _orig_settrace(function)
    ts = thread_state()
    tracing.settrace_from(ts, ts.frame, function)
    return None


def gettrace():
    if is_internal(_orig_getframe(1).f_code):
        return _orig_gettrace()
    return thread_state().tracer


_orig_warn = warnings.warn


def warn(message, category=None, stacklevel=1, source=None, *, skip_file_prefixes=()):
    """warnings.warn called natively: count `stacklevel` over the spliced stack."""
    if isinstance(message, Warning):
        category = message.__class__
    elif category is None:
        category = UserWarning
    if (not (isinstance(category, type) and issubclass(category, Warning))
            or type(skip_file_prefixes) is not tuple or not isinstance(stacklevel, int)):
        return _orig_warn(message, category, stacklevel, source,
                          skip_file_prefixes=skip_file_prefixes)  # CPython words the error
    if skip_file_prefixes:
        stacklevel = max(2, stacklevel)
    frames = _walk(quietly(_orig_getframe, 2) if HOOKED[0] else _orig_getframe(1))
    frame = next(frames, None)
    if stacklevel <= 0 or (frame is not None and _is_importlib_frame(frame)):
        while stacklevel > 1 and frame is not None:
            frame = next(frames, None)
            stacklevel -= 1
    else:
        while stacklevel > 1 and frame is not None:
            frame = next(frames, None)
            while frame is not None and (_is_importlib_frame(frame) or
                                         frame.f_code.co_filename.startswith(skip_file_prefixes)):
                frame = next(frames, None)
            stacklevel -= 1
    if frame is None:
        globals_, filename, lineno = sys.__dict__, "<sys>", 0
    else:
        globals_, filename, lineno = frame.f_globals, frame.f_code.co_filename, frame.f_lineno
    module = globals_["__name__"] if "__name__" in globals_ else "<string>"
    registry = globals_.setdefault("__warningregistry__", {})
    warnings.warn_explicit(message, category, filename, lineno, module, registry, None, source)


# (replacement, original) of each function install() replaces
REPLACEMENTS = ((getframe, _orig_getframe), (getframemodulename, _orig_getframemodulename),
                (warn, _orig_warn), (settrace, _orig_settrace), (gettrace, _orig_gettrace))


def _is_importlib_frame(frame):
    filename = frame.f_code.co_filename
    return "importlib" in filename and "_bootstrap" in filename


def _install_dis():
    """dis shows the bytecode an interpreted function runs, not its trampoline: the
    code object dis finds (through the attributes it reads, as natively) is mapped
    to the real one where dis takes it."""
    import dis
    orig_get_code_object = dis._get_code_object
    orig_recursive = dis._disassemble_recursive

    def _get_code_object(x):
        # the live view: dis(adaptive=True) shows the interpreter's forms
        code = orig_get_code_object(x)
        info = _trampoline_info(code)
        return LiveCode(info) if info is not None else code

    def _disassemble_recursive(co, **kwargs):
        info = _trampoline_info(co)
        return orig_recursive(info.code if info is not None else co, **kwargs)

    dis._get_code_object = _get_code_object
    dis._disassemble_recursive = _disassemble_recursive


def _trampoline_info(code):
    """The CodeInfo whose trampoline `code` is, or None."""
    info = TRAMPOLINES.get(id(code))
    return info if info is not None and info.trampoline is code else None


def install():
    """Answer native calls of sys._getframe / sys._getframemodulename with interpreted frames."""
    global _installed
    if _installed:
        return
    _installed = True
    getframe.__name__ = getframe.__qualname__ = "_getframe"
    getframe.__doc__ = _orig_getframe.__doc__
    sys._getframe = getframe
    if _orig_getframemodulename is not None:
        getframemodulename.__name__ = getframemodulename.__qualname__ = "_getframemodulename"
        getframemodulename.__doc__ = _orig_getframemodulename.__doc__
        sys._getframemodulename = getframemodulename
    warn.__doc__ = _orig_warn.__doc__
    for new, orig in ((settrace, _orig_settrace), (gettrace, _orig_gettrace)):
        new.__doc__ = orig.__doc__
        sys.__dict__[orig.__name__] = new
    for new, orig in REPLACEMENTS:
        if orig is not None:  # as the builtins they stand for (inspect checks)
            new.__text_signature__ = getattr(orig, "__text_signature__", None)
    warnings.warn = warn
    install_program_back()     # (and f_back of a native frame they called)
    _install_dis()


def uninstall():
    global _installed
    if not _installed:
        return
    _installed = False
    sys._getframe = _orig_getframe
    sys.settrace = _orig_settrace
    sys.gettrace = _orig_gettrace
    warnings.warn = _orig_warn
    if _orig_getframemodulename is not None:
        sys._getframemodulename = _orig_getframemodulename
