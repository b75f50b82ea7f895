"""Mirror the interpreted program's "exception being handled" into the host.

CPython keeps the exception currently being handled in the thread state;
`sys.exception()`, `sys.exc_info()`, implicit chaining (`__context__`) and
bare `raise` in native code all read it.  The interpreter's except blocks run
outside any host `except` clause, so PUSH_EXC_INFO / POP_EXCEPT (and frame
entry and exit) set the host's state through the public C API.
"""

import ctypes
import sys

_set = ctypes.pythonapi.PyErr_SetHandledException
_set.argtypes = [ctypes.py_object]
_set.restype = None

current = sys.exception


def set_handled(exc):
    """Make `exc` (an exception or None) the host's handled exception."""
    _set(exc)
