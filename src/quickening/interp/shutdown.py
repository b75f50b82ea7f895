"""The interpreter's modules while the host shuts down.

CPython's finalization empties sys.modules before it frees what module globals
held.  An interpreted generator freed then is closed (its `finally` and `with`
blocks run, as natively), and the interpreter's own functions import some of
its modules inside their bodies (the modules import each other): such an
import fails once sys.modules is empty ("sys.meta_path is None, Python is
likely shutting down").  So the interpreter's modules are remembered at exit
(atexit handlers run before finalization) and put back when a generator is
closed while the host shuts down.
"""

import atexit
import sys

_MODULES = {}
# the standard modules the interpreter's functions import in their bodies
_IMPORTED_INSIDE = frozenset({"builtins", "sys", "dis", "gc", "_typing"})


def _remember():
    _MODULES.update((name, module) for name, module in list(sys.modules.items())
                    if name == "quickening" or name.startswith("quickening.")
                    or name in _IMPORTED_INSIDE)


# (registered when the interpreter is imported, before the program's own handlers:
# it runs after them, when whatever they imported is there too)
atexit.register(_remember)


def bring_back():
    """Put the remembered modules back into sys.modules."""
    modules = sys.modules
    for name, module in _MODULES.items():
        if modules.get(name) is not module:
            modules[name] = module
