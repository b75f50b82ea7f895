"""Mirror the interpreted program's "exception being handled" into the host.

CPython keeps the exception currently being handled in the thread state;
`sys.exception()`, `sys.exc_info()`, implicit chaining (`__context__`) and
bare `raise` in native code all read it.  The interpreter's except blocks run
outside any host `except` clause, so PUSH_EXC_INFO / POP_EXCEPT (and frame
entry and exit) set the host's state through the public C API.

An exception no code can catch (raised by a finalizer, a getter called from C) is
reported as CPython's PyErr_WriteUnraisable reports it: write_unraisable.
"""

import ctypes
import sys

_set = ctypes.pythonapi.PyErr_SetHandledException
_set.argtypes = [ctypes.py_object]
_set.restype = None

current = sys.exception


def set_handled(exc):
    """Make `exc` (an exception or None) the host's handled exception.

    Never call this inside a host `except` or `finally` clause: leaving the
    clause restores the state the clause started with.
    """
    _set(exc)


_incref = ctypes.pythonapi.Py_IncRef
_incref.argtypes = [ctypes.py_object]
_incref.restype = None
_set_raised = ctypes.pythonapi.PyErr_SetRaisedException
_set_raised.argtypes = [ctypes.py_object]
_set_raised.restype = None


def raise_unchanged(box):
    """Raise the exception in `box` (a one-item list, emptied) as it is: a `raise`
    statement would rewrite its __context__ from the handled exception; setting
    the raised exception directly does not (ctypes then reports the pending
    exception to the caller).  (In a list, and the caller's own variable cleared
    first: a frame the exception propagates through must not hold it, or its
    traceback, keeping that frame's locals, makes a cycle that outlives the
    moment CPython frees the exception and what the frames hold.)"""
    now = current()
    if now is None or now is box[0]:
        # what a re-raise mostly meets (the handler's own exception, or none): then
        # a `raise` statement chains nothing (_PyErr_SetObject), and costs far less
        now = None
        raise box.pop()
    now = None
    _incref(box[0])  # PyErr_SetRaisedException steals a reference
    _set_raised(box.pop())
    raise SystemError("PyErr_SetRaisedException did not raise")


def _unraisable_hook_args_type():
    """The type of sys.unraisablehook's argument (not exposed: one instance is
    captured, once, when this module is imported)."""
    captured = []
    saved = sys.unraisablehook
    sys.unraisablehook = captured.append
    try:
        class _Probe:
            def __del__(self):
                raise Exception
        _Probe()
    finally:
        sys.unraisablehook = saved
    return type(captured[0])


_UnraisableHookArgs = _unraisable_hook_args_type()


def write_unraisable(exc, obj):
    """What PyErr_WriteUnraisable(obj) does with exc: hand it to sys.unraisablehook."""
    sys.unraisablehook(_UnraisableHookArgs((type(exc), exc, exc.__traceback__, None, obj)))
