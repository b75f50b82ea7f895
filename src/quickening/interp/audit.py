"""Audit hooks the program adds see the program's events, not the interpreter's.

CPython calls every audit hook (sys.addaudithook) for each audited operation
of the process.  The interpreter's own work is full of them: id() raises
`builtins.id`, reading a frame's f_code or a function's __code__ raises
`object.__getattr__`, making a fused run raises `compile` and `exec`, the
frame walks call sys._getframe.  A program's hook would see all of that, and
an interpreted hook would never return: running it is interpreter work that
raises events, each calling the hook again.

So `install()` replaces sys.addaudithook: the hook the program adds is
registered wrapped.  The wrapper drops an event raised while some wrapped hook
is running on this thread (it is the interpreter's work of running the hook,
or the hook's own nested event, which a hook natively must not cause either)
and an event the interpreter's own work raises (interrupts.in_program: the
innermost of the interpreter's frames under it is bookkeeping, specializing,
fusing, a frame walk); an event raised under an instruction's handler or
generated code is the program's operation, and reaches the hook.  (What the wrapper
does itself -- sys._getframe -- is dropped the same way.)
"""

import sys
from _thread import get_ident

from quickening.interp.interrupts import in_program

_orig_addaudithook = sys.addaudithook
_orig_getframe = sys._getframe
_running = set()     # thread idents inside a wrapped hook (or its classification)
_installed = [False]


def _wrapped(hook):
    def audit(event, args):
        me = get_ident()
        if me in _running:
            return
        _running.add(me)
        try:
            try:
                raiser = _orig_getframe(1)
            except ValueError:       # no Python frame: the program's (start-up, shutdown)
                raiser = None
            if raiser is not None and not in_program(raiser):
                return
            hook(event, args)
        finally:
            _running.discard(me)
    return audit


def quietly(call, *args):
    """call(*args) as the interpreter's own work, whatever frame it runs in: the audit
    events it raises reach no hook the program added (the intercepts of audited
    functions raise the program's event themselves)."""
    me = get_ident()
    if me in _running:
        return call(*args)
    _running.add(me)
    try:
        return call(*args)
    finally:
        _running.discard(me)


def addaudithook(hook):
    return _orig_addaudithook(_wrapped(hook))


def install():
    """Wrap the audit hooks the program adds from now on (see the docstring)."""
    if _installed[0]:
        return
    _installed[0] = True
    addaudithook.__name__ = addaudithook.__qualname__ = "addaudithook"
    addaudithook.__doc__ = _orig_addaudithook.__doc__
    addaudithook.__text_signature__ = getattr(_orig_addaudithook, "__text_signature__", None)
    sys.addaudithook = addaudithook
