"""Builtins that look at their caller's frame, answered for interpreted frames.

`locals()`, `globals()`, `vars()`, `dir()`, zero-argument `super()`,
`exec`/`eval` with default namespaces, `sys._getframe()` and
`inspect.currentframe()` inspect the frame that calls them.  Called natively
from a handler they would see the interpreter's own frame, so the CALL
handlers route these calls here (INTERCEPTS is keyed by the builtin's id).
`__build_class__` is here too: it runs the class body, which must run in the
interpreter with the class namespace as its locals.
"""

import builtins
import inspect
import sys
import types

from quickening.interp import (audit, codeinfo, escapes, facts, fusion, generators, host,
                               hostframes, quicken, tracebacks, tracing)
from quickening.interp import loop as _loop
from quickening.interp.codeinfo import info_for
from quickening.interp.frame import THREAD, Frame, builtins_of, thread_state
from quickening.interp.frameview import as_frame_object, frame_object_linked, view_of
from quickening.interp.functions import entry_depth, interpreted_info, trampoline_for
from quickening.interp import functions as _functions
from quickening.interp.localsproxy import f_locals, hidden_locals
from quickening.interp.loop import run_frame
from quickening.interp.ops.registry import NULL
from quickening.interp.ops import registry as _registry

# (assigned, not imported: CPython 3.13 compiles a method call on a name an import
# binds without its method form, which the host cannot specialize -- test_layers.py)
INTERCEPTED_DEFS = _registry.INTERCEPTED_DEFS
INTERCEPTS = _registry.INTERCEPTS
TRAMPOLINES = _functions.TRAMPOLINES


def engine():
    """The speed engine of code run from outside the interpreter (codeinfo.py): fused
    runs, unless turned off (quicken.Config.fuse)."""
    return fusion if quicken.Config.fuse else None


def remade_info(code):
    """A CodeInfo loaded from a pickle (CodeInfo.__reduce__): its code's, decoded here."""
    return info_for(code, engine())


codeinfo.REMAKE[0] = remade_info


def run_code(code, globals_, locals_=None, *, closure=None, _back=None):
    """Execute a code object in the interpreter, like exec(code, globals, locals)."""
    if not isinstance(code, types.CodeType):
        raise TypeError(f"run_code() needs a code object, not {type(code).__name__}")
    info = info_for(code, engine() if _back is None else _back.info.engine)
    escapes.watch(code)
    if "__builtins__" not in globals_:
        globals_["__builtins__"] = builtins
    fast = [NULL] * info.free_start
    if info.nfree:
        if closure is None or len(closure) != info.nfree:
            raise TypeError("code object requires a closure of exactly length "
                            f"{info.nfree}")
        fast += closure
    optimized = code.co_flags & host.CO_OPTIMIZED
    if locals_ is None and not optimized:
        locals_ = globals_
    back = _back if _back is not None else THREAD.frame
    frame = Frame(info, fast, globals_, builtins_of(globals_),
                  None if optimized else locals_, None, entry_depth(back))
    try:
        return run_frame(frame)
    except BaseException as exc:
        # (a native caller, the import system's, sees CPython's traceback)
        tracebacks.leaving(exc)
        raise


def intercept(*targets):
    def register(fn):
        for target in targets:
            INTERCEPTS[id(target)] = fn
            if type(target) is types.BuiltinFunctionType:
                INTERCEPTED_DEFS.add(facts.cfunction_def(target))
        return fn
    return register


# -- frame locals -----------------------------------------------------------------
def frame_locals(f):
    """What locals() returns in frame f: the namespace, or a snapshot for functions."""
    if f.locals is not None:
        hidden = hidden_locals(f)
        if not hidden:
            return f.locals
        # inside a comprehension inlined in module or class code (PEP 709),
        # CPython gives a fresh dict of the namespace and the comprehension's variables
        merged = dict(f.locals)
        merged.update(hidden)
        return merged
    return dict(f.bound_variables())


def _no_kwargs(name, kwargs):
    if kwargs:
        raise TypeError(f"{name}() takes no keyword arguments")


@intercept(builtins.locals)
def _locals(f, func, args, kwargs):
    if args or kwargs:
        return func(*args, **(kwargs or {}))
    return frame_locals(f)


@intercept(builtins.globals)
def _globals(f, func, args, kwargs):
    if args or kwargs:
        return func(*args, **(kwargs or {}))
    return f.globals


@intercept(builtins.vars)
def _vars(f, func, args, kwargs):
    if args or kwargs:
        return func(*args, **(kwargs or {}))
    return frame_locals(f)


@intercept(builtins.dir)
def _dir(f, func, args, kwargs):
    if args or kwargs:
        return func(*args, **(kwargs or {}))
    names = frame_locals(f)
    return sorted(names.keys() if hasattr(names, "keys") else names)


@intercept(builtins.super)
def _super(f, func, args, kwargs):
    if args or kwargs:
        return func(*args, **(kwargs or {}))
    info = f.info
    code = info.code
    if code.co_argcount == 0 and not code.co_flags & host.CO_VARARGS:
        raise RuntimeError("super(): no arguments")
    first = f.stack[0]
    if type(first) is types.CellType and info.localsplus[0] in info.cell_names:
        try:
            first = first.cell_contents
        except ValueError:
            first = NULL
    if first is NULL:
        raise RuntimeError("super(): arg[0] deleted")
    for i, varname in enumerate(code.co_freevars):
        if varname == "__class__":
            cell = f.stack[info.free_start + i]
            try:
                cls = cell.cell_contents
            except ValueError:
                raise RuntimeError("super(): empty __class__ cell") from None
            if not isinstance(cls, type):
                raise RuntimeError(f"super(): __class__ is not a type ({type(cls).__name__})")
            return super(cls, first)
    raise RuntimeError("super(): __class__ cell not found")


# -- exec / eval -------------------------------------------------------------------
_PyCF_MASK = 0x3E000  # the __future__ feature flags a code object carries
_EXEC_KEYWORDS = ("globals", "locals", "closure")


def _namespaces(f, func, args, kwargs):
    name = func.__name__
    kwargs = dict(kwargs or {})
    params = list(args[1:])
    for key in _EXEC_KEYWORDS[:2]:
        if key in kwargs:
            if len(params) > _EXEC_KEYWORDS.index(key):
                return None
            while len(params) < _EXEC_KEYWORDS.index(key):
                params.append(None)
            params.append(kwargs.pop(key))
    closure = kwargs.pop("closure", None)
    if kwargs or len(params) > 2 or (closure is not None and name != "exec"):
        return None
    globals_ = params[0] if params else None
    locals_ = params[1] if len(params) > 1 else None
    if globals_ is None:
        globals_ = f.globals
        if locals_ is None:
            locals_ = frame_locals(f)
    elif locals_ is None:
        locals_ = globals_
    if type(globals_) is not dict:
        return None
    return globals_, locals_, closure


def _compile_source(f, source, mode, name):
    if isinstance(source, types.CodeType):
        return source
    if isinstance(source, (str, bytes, bytearray, memoryview)):
        if name == "eval" and isinstance(source, str):
            source = source.lstrip(" \t")
        elif name == "eval" and isinstance(source, (bytes, bytearray)):
            source = bytes(source).lstrip(b" \t")
        return compile(source, "<string>", mode, f.info.flags & _PyCF_MASK, True)
    return None


@intercept(builtins.exec, builtins.eval)
def _exec_eval(f, func, args, kwargs):
    if not args:
        return func(*args, **(kwargs or {}))
    spaces = _namespaces(f, func, args, kwargs)
    code = _compile_source(f, args[0], "exec" if func is builtins.exec else "eval", func.__name__) \
        if spaces is not None else None
    if spaces is None or code is None or (code.co_freevars and spaces[2] is None):
        return func(*args, **(kwargs or {}))  # let CPython report the misuse
    globals_, locals_, closure = spaces
    if "__builtins__" not in globals_:
        globals_["__builtins__"] = f.builtins  # PyEval_GetBuiltins(): the caller's, as they are
    sys.audit("exec", code)      # (the program's event, as CPython raises it running the code)
    if code.co_flags & host.GENERATOR_LIKE:
        # top-level await (PyCF_ALLOW_TOP_LEVEL_AWAIT): running the code makes a coroutine
        result = _generator_from_code(f, code, globals_, locals_, closure)
        return None if func is builtins.exec else result
    result = run_code(code, globals_, locals_, closure=closure, _back=f)
    return None if func is builtins.exec else result


def _generator_from_code(f, code, globals_, locals_, closure):
    info = info_for(code, f.info.engine)
    escapes.watch(code)
    fast = [NULL] * info.free_start + list(closure or ())
    optimized = code.co_flags & host.CO_OPTIMIZED
    frame = Frame(info, fast, globals_, builtins_of(globals_),
                  None if optimized else (globals_ if locals_ is None else locals_), None,
                  f.depth + 1)
    return generators.wrap(frame)


# -- frames --------------------------------------------------------------------------
def _frame_at(f, depth):
    """The frame `depth` calls out from interpreted frame f (the one calling us):
    interpreted frames, and past the interpreter's entry the native frames that
    called into it (as hostframes splices them)."""
    if depth <= 0:
        return frame_object_linked(f)
    return as_frame_object(hostframes._frame_at(hostframes._orig_getframe(1), depth))


@intercept(sys._getframe)
def _getframe(f, func, args, kwargs):
    _no_kwargs("_getframe", kwargs)
    depth = args[0] if args else 0
    frame = audit.quietly(_frame_at, f, depth)
    sys.audit("sys._getframe", frame)     # (the program's event, as CPython raises it)
    return frame


@intercept(inspect.currentframe)
def _currentframe(f, func, args, kwargs):
    frame = audit.quietly(_frame_at, f, 0)
    sys.audit("sys._getframe", frame)     # (inspect.currentframe is sys._getframe(1))
    return frame


if hasattr(sys, "_getframemodulename"):
    @intercept(sys._getframemodulename)
    def _getframemodulename(f, func, args, kwargs):
        depth = (args[0] if args else (kwargs or {}).get("depth", 0))
        if type(depth) is not int or len(args) > 1 or set(kwargs or ()) - {"depth"}:
            return func(*args, **(kwargs or {}))   # let CPython word the misuse
        sys.audit("sys._getframemodulename", depth)   # (the program's event)
        try:
            frame = audit.quietly(_frame_at, f, depth) if depth > 0 else None
        except ValueError:
            return None
        if frame is None:   # the caller itself
            return f.func.__module__ if f.func is not None else f.globals.get("__name__")
        return hostframes.module_name_of(frame)


# -- a function's __code__ replaced ---------------------------------------------------
@intercept(types.CodeType.replace)
def _code_replace(f, func, args, kwargs):
    """code.replace(...) of an interpreted function's __code__ (its trampoline):
    the changes apply to the code its body runs, and the result is that code's
    trampoline (`f.__code__ = f.__code__.replace(co_linetable=...)` changes the
    lines the function's frames report, as in CPython)."""
    if len(args) == 1 and type(args[0]) is types.CodeType:
        info = TRAMPOLINES.get(id(args[0]))
        if info is not None and info.trampoline is args[0]:
            return trampoline_for(info_for(info.code.replace(**(kwargs or {})), info.engine))
    return func(*args, **(kwargs or {}))


# -- inspect's generator locals -------------------------------------------------------
def _inner_of(obj, frame_attr):
    """The interpreter's object behind a generator / coroutine / async generator made
    by generators.wrap (the native driver's `inner`), or None."""
    frame = getattr(obj, frame_attr, None)
    if frame is None or frame.f_code not in tracebacks.INTERNAL_CODES:
        return None
    inner = frame.f_locals.get("inner")
    return inner if isinstance(inner, generators.InterpGenerator) else None


def _generator_locals(frame_attr):
    """inspect.get*locals(obj): gi_frame.f_locals is the driver's; the locals are
    the interpreted frame's (while the object is not finished, as in CPython)."""
    def handler(f, func, args, kwargs):
        if len(args) == 1 and not kwargs:
            inner = _inner_of(args[0], frame_attr)
            if inner is not None:
                return f_locals(inner.frame)
        return func(*args, **(kwargs or {}))
    return handler


INTERCEPTS[id(inspect.getgeneratorlocals)] = _generator_locals("gi_frame")
INTERCEPTS[id(inspect.getcoroutinelocals)] = _generator_locals("cr_frame")
INTERCEPTS[id(inspect.getasyncgenlocals)] = _generator_locals("ag_frame")


# -- stacks and warnings, seen from the interpreted frame ------------------------------
import traceback as _traceback  # noqa: E402
import warnings as _warnings  # noqa: E402


def _with_frame(position):
    """traceback.*_stack(f=None, ...): default f is the caller, our interpreted frame."""
    def handler(f, func, args, kwargs):
        kwargs = dict(kwargs or {})
        if len(args) > position or kwargs.get("f") is not None:
            return func(*args, **kwargs)
        kwargs["f"] = view_of(f)
        return func(*args, **kwargs)
    return handler


for _fn in (_traceback.extract_stack, _traceback.format_stack, _traceback.print_stack):
    INTERCEPTS[id(_fn)] = _with_frame(0)


@intercept(_traceback.walk_stack)
def _walk_stack(f, func, args, kwargs):
    if (args and args[0] is not None) or (kwargs or {}).get("f") is not None or \
            len(args) > 1 or set(kwargs or ()) - {"f"}:
        return func(*args, **(kwargs or {}))
    return _walk_stack_from_resumer()


def _walk_stack_from_resumer():
    """traceback.walk_stack(None): 3.13's generator starts, when first resumed, at
    sys._getframe().f_back.f_back.f_back.f_back -- four frames out from its own,
    counted over the frames the interpreted program sees (hostframes)."""
    frames = list(hostframes._walk(hostframes._orig_getframe(0)))  # ours is internal: skipped
    for frame in frames[3:]:
        yield frame, frame.f_lineno


def _is_internal_frame(frame):
    filename = frame.f_code.co_filename
    return "importlib" in filename and "_bootstrap" in filename


def _next_external_frame(frame, skip_file_prefixes):
    frame = frame.f_back
    while frame is not None and (_is_internal_frame(frame) or
                                 frame.f_code.co_filename.startswith(skip_file_prefixes)):
        frame = frame.f_back
    return frame


@intercept(_warnings.warn)
def _warn(f, func, args, kwargs):
    """warnings.warn attributes a warning to a frame `stacklevel` up: count interpreted frames."""
    params = dict(zip(("message", "category", "stacklevel", "source"), args))
    for key, value in (kwargs or {}).items():
        if key in params or key not in ("message", "category", "stacklevel", "source",
                                        "skip_file_prefixes"):
            return func(*args, **(kwargs or {}))  # let CPython word the misuse
        params[key] = value
    if "message" not in params:
        return func(*args, **(kwargs or {}))
    message = params["message"]
    category = params.get("category")
    stacklevel = params.get("stacklevel", 1)
    skip = params.get("skip_file_prefixes", ())
    if isinstance(message, Warning):
        category = message.__class__
    if category is None:
        category = UserWarning
    if (not (isinstance(category, type) and issubclass(category, Warning))
            or not isinstance(skip, tuple) or not isinstance(stacklevel, int)):
        return func(*args, **(kwargs or {}))
    if skip:
        stacklevel = max(2, stacklevel)
    frame = view_of(f)
    if stacklevel <= 1 or _is_internal_frame(frame):
        for _ in range(stacklevel - 1):
            frame = frame.f_back if frame is not None else None
    else:
        for _ in range(stacklevel - 1):
            frame = _next_external_frame(frame, skip)
            if frame is None:
                break
    if frame is None:
        globals_, filename, lineno = sys.__dict__, "<sys>", 0
    else:
        globals_, filename, lineno = frame.f_globals, frame.f_code.co_filename, frame.f_lineno
    module = globals_["__name__"] if "__name__" in globals_ else "<string>"
    registry = globals_.setdefault("__warningregistry__", {})
    # as the C warn(): no module globals (so no loader lookup for the source line)
    _warnings.warn_explicit(message, category, filename, lineno, module, registry, None,
                            params.get("source"))


# -- C code that reads the calling frame's globals or function ---------------------
def call_from_frame(f, func, args, kwargs):
    """Call func natively from a host frame that has f's globals and f's function
    __module__, for C code that looks at its caller (TypeVar & co take __module__
    from the calling function)."""
    globals_ = f.globals
    if not isinstance(globals_, dict):
        return func(*args, **(kwargs or {}))
    helper = types.FunctionType(_call_code, globals_)
    if f.func is not None:
        helper.__module__ = getattr(f.func, "__module__", None)
    return helper(func, args, kwargs or {})


def _call(func, args, kwargs):
    return func(*args, **kwargs)


_call_code = _call.__code__


def _typing_constructor(f, func, args, kwargs):
    # TypeVar, ParamSpec, TypeVarTuple, TypeAliasType: typevarobject.c caller()
    return call_from_frame(f, func, args, kwargs)


try:
    import _typing
except ImportError:  # pragma: no cover
    _typing = None
for _name in ("TypeVar", "ParamSpec", "TypeVarTuple", "TypeAliasType"):
    _cls = getattr(_typing, _name, None)
    if _cls is not None:
        intercept(_cls)(_typing_constructor)


# -- tracing ------------------------------------------------------------------------------
@intercept(sys.settrace)
def _settrace(f, func, args, kwargs):
    _no_kwargs("settrace", kwargs)
    if len(args) != 1:
        return func(*args)
    tracing.settrace_from(thread_state(), f, args[0])
    return None


@intercept(sys.gettrace)
def _gettrace(f, func, args, kwargs):
    if args or kwargs:
        return func(*args, **(kwargs or {}))
    return thread_state().tracer


# -- functions made by hand ------------------------------------------------------------
@intercept(types.FunctionType)
def _function_new(f, func, args, kwargs):
    """FunctionType(code, globals, ...): without globals['__builtins__'] the new
    function takes the builtins of the *calling* frame (bpo-42990)."""
    globals_ = args[1] if len(args) > 1 else (kwargs or {}).get("globals")
    if type(globals_) is not dict or "__builtins__" in globals_:
        return func(*args, **(kwargs or {}))
    globals_["__builtins__"] = f.builtins
    try:
        return func(*args, **(kwargs or {}))
    finally:
        globals_.pop("__builtins__", None)


# -- classes -------------------------------------------------------------------------
@intercept(builtins.__build_class__)
def _build_class(f, func, args, kwargs):
    if len(args) < 2:
        raise TypeError("__build_class__: not enough arguments")
    body, name, *bases = args
    if not isinstance(body, types.FunctionType):
        raise TypeError("__build_class__: func must be a function")
    if not isinstance(name, str):
        raise TypeError("__build_class__: name is not a string")
    info = interpreted_info(body)
    if info is None:
        return func(*args, **(kwargs or {}))
    kwargs = dict(kwargs or {})
    orig_bases = tuple(bases)
    bases = types.resolve_bases(orig_bases)
    meta = kwargs.pop("metaclass", NULL)
    if meta is NULL:
        meta = type(bases[0]) if bases else type
        is_class = True
    else:
        is_class = isinstance(meta, type)
    if is_class:
        meta = _calculate_meta(meta, bases)
    prepare = getattr(meta, "__prepare__", NULL)
    ns = prepare(name, bases, **kwargs) if prepare is not NULL else {}
    if not hasattr(type(ns), "__getitem__"):
        metaname = meta.__name__ if isinstance(meta, type) else "<metaclass>"
        raise TypeError(f"{metaname}.__prepare__() must return a mapping, not {type(ns).__name__}")
    frame = Frame(info, [NULL] * info.free_start + list(body.__closure__ or ()),
                  body.__globals__, body.__builtins__, ns, None,
                  (f.depth + 1))
    cell = run_frame(frame)
    if bases != orig_bases:
        ns["__orig_bases__"] = orig_bases
    cls = meta(name, bases, ns, **kwargs)
    if isinstance(cls, type) and type(cell) is types.CellType:
        try:
            cell_cls = cell.cell_contents
        except ValueError:
            cell_cls = NULL
        if cell_cls is not cls:
            if cell_cls is NULL:
                raise RuntimeError(f"__class__ not set defining {name!r} as {cls!r}. "
                                   f"Was __classcell__ propagated to type.__new__?")
            raise TypeError(f"__class__ set to {cell_cls!r} defining {name!r} as {cls!r}")
    return cls


def _calculate_meta(meta, bases):
    winner = meta
    for base in bases:
        base_meta = type(base)
        if issubclass(winner, base_meta):
            continue
        if issubclass(base_meta, winner):
            winner = base_meta
            continue
        raise TypeError("metaclass conflict: the metaclass of a derived class must be a "
                        "(non-strict) subclass of the metaclasses of all its bases")
    return winner


# -- classes made by calling type ----------------------------------------------------------
def _with_module(f, namespace):
    """type() takes __module__ from the calling frame's globals when the namespace has none."""
    if type(namespace) is dict and "__module__" not in namespace and "__name__" in f.globals:
        namespace = dict(namespace)
        namespace["__module__"] = f.globals["__name__"]
    return namespace


@intercept(type)
def _type(f, func, args, kwargs):
    if len(args) == 3:
        args = (args[0], args[1], _with_module(f, args[2]))
    return func(*args, **(kwargs or {}))


@intercept(type.__new__)
def _type_new(f, func, args, kwargs):
    if len(args) == 4:
        args = (args[0], args[1], args[2], _with_module(f, args[3]))
    return func(*args, **(kwargs or {}))


# -- the recursion limit ---------------------------------------------------------------
# Interpreted frames use no host stack, but every instruction runs a few host
# frames deep: a limit set just above the program's depth (as test code does
# to provoke RecursionError quickly) would leave the interpreter no room.  So
# the limit the program sets holds its interpreted frames (loop.RECURSION_LIMIT,
# checked against frame depths that count the program's frames as CPython
# does), and the host gets the same limit plus room for the interpreter.
_HOST_ROOM = 200


@intercept(sys.setrecursionlimit)
def _setrecursionlimit(f, func, args, kwargs):
    _no_kwargs("setrecursionlimit", kwargs)
    if len(args) != 1 or type(args[0]) is not int or args[0] < 1:
        return func(*args)       # CPython's own TypeError / ValueError
    limit = args[0]
    if f.depth >= limit:
        raise RecursionError(f"cannot set the recursion limit to {limit} at the recursion "
                             f"depth {f.depth}: the limit is too low")
    host = limit + _host_depth() + _HOST_ROOM
    func(host)
    _loop.HOST_LIMIT_SET[0] = host
    _loop.RECURSION_LIMIT[0] = limit
    return None


@intercept(sys.getrecursionlimit)
def _getrecursionlimit(f, func, args, kwargs):
    _no_kwargs("getrecursionlimit", kwargs)
    if args:
        return func(*args)
    return _loop.program_recursion_limit()


def _host_depth():
    """How many host frames are under the caller."""
    depth = 0
    host = sys._getframe(1)
    while host is not None:
        depth += 1
        host = facts.NATIVE_GETTERS["f_back"](host)
    return depth


# interpreted code calling hostframes' replacements of sys._getframe,
# sys._getframemodulename, warnings.warn, sys.settrace and sys.gettrace (`quickening
# run` installs them) gets the intercepts of the originals
for _new, _orig in hostframes.REPLACEMENTS:
    if _orig is not None and id(_orig) in INTERCEPTS:
        INTERCEPTS[id(_new)] = INTERCEPTS[id(_orig)]
