"""CPython's per-thread data stack, modelled for the stack-space guards.

CPython 3.13 allocates every _PyInterpreterFrame of a Python call on the
thread's data stack, a list of chunks (Python/pystate.c): a chunk is 16 KiB
(more for a frame over ~1000 words), starts with a 3-word header (previous,
size, top), and the thread's first ("root") chunk skips its first word.  A
frame takes `co_framesize` words (locals + cells + frees + stack + 9).
_PyThreadState_PushFrame bumps the top when `size < limit - top`, else it
starts a new chunk; popping the first frame of a chunk frees the chunk.

Specialized members that push a frame without going through that function
check the space first and deopt when it is missing:
  _CHECK_STACK_SPACE (CALL_PY_EXACT_ARGS, CALL_BOUND_METHOD_EXACT_ARGS),
  BINARY_SUBSCR_GETITEM, LOAD_ATTR_PROPERTY, LOAD_ATTR_GETATTRIBUTE_OVERRIDDEN:
      size = the callee's co_framesize
  CALL_ALLOC_AND_ENTER_INIT: size = co_framesize + _Py_InitCleanup's (2 + 9),
      the shim frame pushed under __init__.
So a deep recursion misses once at each chunk boundary it crosses, as in
CPython, and the counter shows it.

The position of a frame is a function of the frames under it, so it is
computed from the interpreted frame chain (`back`) and cached on the frame:
(top, limit) in words from the start of its chunk, after the frame.  What
CPython has that the chain does not show is added as CPython would:
  * a generator-like frame lives in its generator, not on the data stack:
    it sits at its resumer's top (not cached: the resumer changes);
  * the frame of an imported module's body runs under importlib's
    _find_and_load .. _call_with_frames_removed (5 frames);
  * __init__ entered by CALL_ALLOC_AND_ENTER_INIT runs over the shim frame;
  * under the outermost interpreted frame, BASE: the frames of whatever runs
    the program natively (none for `python script.py`); in another thread,
    threading's bootstrap frames on that thread's own data stack.
Native Python frames between two interpreted ones (interpreted code called
back from non-interpreted Python code) are not counted.
"""

import _thread
import sys

from quickening.interp import facts
from quickening.interp import codeinfo as _codeinfo
from quickening.interp.facts import (MEM32 as _M32)
from quickening.interp.spec import Guard

# (assigned, not imported: CPython 3.13 compiles a method call on a name an import
# binds without its method form, which the host cannot specialize -- test_layers.py)
TRAMPOLINES = _codeinfo.TRAMPOLINES

CHUNK_BYTES = 16 * 1024          # DATA_STACK_CHUNK_SIZE
MINIMUM_OVERHEAD = 1000
HEADER = 3                       # _PyStackChunk: previous, size, top
FRAME_SPECIALS = 9               # FRAME_SPECIALS_SIZE on 64-bit 3.13
INIT_CLEANUP_FRAMESIZE = 2 + FRAME_SPECIALS
CODE_FRAMESIZE = 76              # PyCodeObject.co_framesize (int)

# the root chunk with nothing on it: the first word skipped
EMPTY = (HEADER + 1, CHUNK_BYTES // 8)



def _verify():
    def probe(a, b, *c, **k):
        x = a
        def inner():
            return x
        return inner
    code = probe.__code__
    nlocalsplus = len(set(code.co_varnames) | set(code.co_cellvars) | set(code.co_freevars))
    return _M32[(id(code) + CODE_FRAMESIZE) >> 2] == nlocalsplus + code.co_stacksize + FRAME_SPECIALS


ENABLED = facts.PROBLEM is None and sys.version_info[:2] == (3, 13) and _verify()


def framesize(code):
    return _M32[(id(code) + CODE_FRAMESIZE) >> 2]


def function_framesize(func):
    """co_framesize of the code CPython would run for func (not of the
    trampoline the interpreter gives functions it makes)."""
    info = TRAMPOLINES.get(id(func.__code__))
    return framesize(info.code if info is not None else func.__code__)


def push(state, size):
    """The state after _PyThreadState_PushFrame(size) from `state`."""
    top, limit = state
    if size < limit - top:
        return (top + size, limit)
    allocate = CHUNK_BYTES
    while allocate < 8 * (size + MINIMUM_OVERHEAD):
        allocate *= 2
    return (HEADER + size, allocate // 8)


def state_of_frames(codes, state=EMPTY):
    for code in codes:
        state = push(state, framesize(code))
    return state


BASE = EMPTY                     # under the outermost interpreted frame
SHIMS = set()                    # ids of `inline` objects of frames pushed over the init shim

_import_chain = []


def _import_sizes():
    if not _import_chain:
        sizes = []
        try:
            bootstrap = sys.modules["_frozen_importlib"]
            external = sys.modules["_frozen_importlib_external"]
            for fn in (bootstrap._find_and_load, bootstrap._find_and_load_unlocked,
                       bootstrap._load_unlocked, external._LoaderBasics.exec_module,
                       bootstrap._call_with_frames_removed):
                sizes.append(framesize(fn.__code__))
        except (KeyError, AttributeError):
            sizes = []
        _import_chain.append(tuple(sizes))
    return _import_chain[0]


_get_ident = _thread.get_ident
_MAIN_THREAD = _thread.get_ident()


def _thread_base(root):
    """Under the outermost frame of another thread: a fresh root chunk with
    threading's Thread._bootstrap, _bootstrap_inner and (unless the program
    overrides it) Thread.run."""
    import threading
    codes = [threading.Thread._bootstrap.__code__, threading.Thread._bootstrap_inner.__code__]
    if root.info.code.co_name != "run":
        codes.append(threading.Thread.run.__code__)
    return state_of_frames(codes)


def _is_import(frame):
    """The frame runs the body of a module being imported."""
    code = frame.info.code
    if code.co_name != "<module>" or frame.locals is not frame.globals:
        return False
    spec = frame.globals.get("__spec__")
    return spec is not None and getattr(spec, "name", None) == frame.globals.get("__name__")


_UNLIMITED = (0, 1 << 62)


def state(f):
    """(top, limit) of the data stack once f's frame is pushed."""
    if not ENABLED:
        return _UNLIMITED
    back = f.back
    if (back is not None and back.ds is not None and f.locals is None and f.inline is None
            and not f.info.is_generator_like and not back.info.is_generator_like):
        # the common case, what the loop below does for it: a function's frame
        # (not a module body's: locals None) pushed over its caller's, no shim
        s = f.ds = push(back.ds, framesize(f.info.code))
        return s
    pending = []
    g = f
    s = None
    while g is not None:
        if not g.info.is_generator_like:
            s = g.ds
            if s is not None:
                break
        else:
            # a generator's frame lives in the generator, not on the data stack: the
            # state while it runs is its caller's, kept until it yields (loop.py)
            s = g.gen_ds
            if s is not None:
                break
        pending.append(g)
        g = g.back
    if s is None:
        s = BASE if _get_ident() == _MAIN_THREAD else _thread_base(pending[-1])
    for g in reversed(pending):
        if g.info.is_generator_like:
            g.gen_ds = s
            continue
        if g.back is not None and _is_import(g):
            for size in _import_sizes():
                s = push(s, size)
        elif id(g.inline) in SHIMS:
            s = push(s, INIT_CLEANUP_FRAMESIZE)
        s = push(s, framesize(g.info.code))
        g.ds = s
    return s


def has_space(f, size):
    """_PyThreadState_HasStackSpace(tstate, size) while f is the current frame."""
    if not ENABLED:
        return True
    s = f.ds
    if s is None:
        s = state(f)
    return size < s[1] - s[0]


# _CHECK_STACK_SPACE / the frame-size test of the members that push a frame
STACK_SPACE = Guard("STACK_SPACE", "has_space(f, {size})",
                    "the thread's data stack has room for a frame of size words",
                    needs={"has_space": has_space})
