"""Ctrl-C under `quickening run` is raised in the program, never in the
interpreter's own work (src/quickening/interp/interrupts.py): a SIGINT that lands
in the interpreter's own frames is asked about again at the next eval-breaker check,
and the program sees the default handler.  (tests/commands/test_ctrl_c.py sends
real SIGINTs to running programs; this checks the decision where it is made.)"""

import os
import signal

import pytest

from quickening.interp import interrupts

_INTERP = os.path.dirname(interrupts.__file__)


def _frame_in(filename, name="work", args="()"):
    """A live frame of a function whose code says it is in `filename` of the
    interpreter's package (the frame walk reads only file names and signatures)."""
    source = f"def {name}{args}:\n    import sys\n    return sys._getframe()\n"
    namespace = {}
    exec(compile(source, os.path.join(_INTERP, filename), "exec"), namespace)
    fn = namespace[name]
    return fn(*([None] * fn.__code__.co_argcount))


@pytest.fixture
def installed():
    # (the shell that started the tests may have had SIGINT ignored -- a background
    # job -- so Python left it so: the default handler is put there for the test)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    assert interrupts.install()
    try:
        yield
    finally:
        interrupts.uninstall()
        signal.signal(signal.SIGINT, previous)


def test_own_work_defers_then_the_program_gets_it(installed):
    own = _frame_in("fusion.py")
    assert not interrupts.in_program(own)
    deferred = []
    with pytest.raises(KeyboardInterrupt):
        interrupts._on_sigint(signal.SIGINT, own)     # deferred: no exception here
        deferred.append(True)
        for _ in range(1000):      # (the next eval-breaker checks: a loop's back edge)
            pass
    assert deferred


def test_handlers_and_native_code_raise_at_once(installed):
    handler = _frame_in("ops/misc.py", "pop_top", "(f, stack, arg, nxt)")
    assert interrupts.in_program(handler)
    specializer = _frame_in("families/call.py", "specialize", "(site, f, stack)")
    assert not interrupts.in_program(specializer)
    with pytest.raises(KeyboardInterrupt):
        interrupts._on_sigint(signal.SIGINT, handler)


def test_the_program_sees_the_default_handler(installed):
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    assert previous is signal.default_int_handler
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert interrupts._orig_getsignal(signal.SIGINT) is interrupts._on_sigint
