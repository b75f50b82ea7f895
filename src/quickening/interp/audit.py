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

Under an instruction's handler, and in generated code, the interpreter still
does work of its own, millions of times: id() of a callable or a type for its
tables, `func.__code__` to find a trampoline, `frame.f_code`.  These raise
`builtins.id` and `object.__getattr__`, and are told apart by the instruction
of the interpreter's code that raised the event (_own_read): an attribute read
written out in its source (LOAD_ATTR: the program's reads of the audited
attributes go through getattr(), lowering.source_attribute), or a call whose
callee is the builtin name `id` (not the program's callable, which a handler
holds in a variable: `id` passed to map() by the program reaches the hook).
Nothing of this runs unless the program added a hook.
"""

import dis
import sys
from _thread import get_ident

from quickening.interp import facts
from quickening.interp.generated import GENERATED_PREFIX as _GENERATED
from quickening.interp.interrupts import in_program
from quickening.interp.quiet import AUDIT_FOR_CALLER_CODE, HOOKED, quietly
from quickening.interp import quiet as _quiet
from quickening.interp.tracebacks import is_internal

# (assigned, not imported: CPython 3.13 compiles a method call on a name an import
# binds without its method form, which the host cannot specialize -- test_layers.py)
_running = _quiet.RUNNING

_orig_addaudithook = sys.addaudithook
_orig_getframe = sys._getframe
_installed = [False]
_host_back = facts.NATIVE_GETTERS["f_back"]    # (the host's chain: frameview replaces f_back)
_OWN_READ_EVENTS = frozenset(("builtins.id", "object.__getattr__", "object.__setattr__",
                              "object.__delattr__"))
_LOAD_ATTR = dis.opmap["LOAD_ATTR"]
_WRITES = {"object.__setattr__": dis.opmap["STORE_ATTR"],
           "object.__delattr__": dis.opmap["DELETE_ATTR"]}
_CALLS = frozenset(dis.opmap[name] for name in ("CALL", "CALL_KW", "CALL_FUNCTION_EX"))
_host_lasti = facts.NATIVE_GETTERS["f_lasti"]    # (frameview's replacement is slower)
# id(code) -> (code, None for code that is not the interpreter's, else the offsets of
# its calls of the name `id`): what _own_read needs.  (The entry keeps the code
# alive, so its id stays its own.)
_own_reads = {}
_MEM64 = facts.MEM64
_WORD = (1 << 64) - 1


def _code_address(frame):
    """id(frame.f_code), read from memory: both id() and f_code raise an event, each
    of which costs a call of the wrapper, more than the rest of its work for the
    interpreter's own id().  The address of a frame is what its hash is made of
    (Py_HashPointer: the pointer rotated right by 4 bits); its interpreter frame's
    first field is the code."""
    rotated = hash(frame) & _WORD
    address = ((rotated << 4) & _WORD) | (rotated >> 60)
    return _MEM64[(_MEM64[(address + facts.FRAME_FRAME) >> 3] + facts.IFRAME_EXECUTABLE) >> 3]


def _code_address_holds():
    frame = _orig_getframe()
    return facts.PROBLEM is None and _code_address(frame) == id(frame.f_code)


_ADDRESS_HOLDS = _code_address_holds()


def _calls_of_id(code):
    """The offsets of the calls in `code` whose callee is the global name `id`: the
    call starts where a LOAD_GLOBAL of `id` does (the callee expression begins
    with the name; without column numbers, on its line)."""
    positions = list(code.co_positions())
    starts = set()
    calls = []
    for ins in dis.get_instructions(code):
        if ins.opname == "LOAD_GLOBAL" and ins.argval == "id":
            starts.add(positions[ins.offset // 2][::2])
        elif ins.opcode in _CALLS:
            calls.append(ins.offset)
    return frozenset(o for o in calls if positions[o // 2][::2] in starts)


def _code_entry(frame):
    """_own_reads' entry for the code host frame `frame` runs."""
    if _ADDRESS_HOLDS:
        entry = _own_reads.get(_code_address(frame))
        if entry is not None:
            return entry
    code = frame.f_code
    entry = _own_reads.get(id(code))
    if entry is None or entry[0] is not code:
        entry = _own_reads[id(code)] = (code, _calls_of_id(code) if is_internal(code) else None)
    return entry


def _own_read(frame, entry, event):
    """Whether the audit event `event` (builtins.id, object.__getattr__ ...) raised in
    host frame `frame`, whose code's _own_reads entry is `entry`, is the
    interpreter's own id() or attribute read (see the module's docstring)."""
    code, id_calls = entry
    if id_calls is None:
        return False        # native code the program called: its operation
    lasti = _host_lasti(frame)
    if event == "builtins.id":
        return lasti in id_calls
    if event == "object.__getattr__":
        return code.co_code[lasti] == _LOAD_ATTR
    # a store written out in the interpreter's own source (generated code writes the
    # program's `o.name = v` out: lowering.store_attr_shape)
    return code.co_code[lasti] == _WRITES[event] and not code.co_filename.startswith(_GENERATED)


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
            if raiser is not None:
                entry = _code_entry(raiser)
                if entry[0] is AUDIT_FOR_CALLER_CODE:
                    raiser = _host_back(_host_back(raiser))    # (quiet.audit_for_caller)
                    entry = _code_entry(raiser) if raiser is not None else None
            # (the cheap test first: the interpreter's own id() is most events)
            if raiser is not None and ((event in _OWN_READ_EVENTS and _own_read(raiser, entry, event))
                                       or not in_program(raiser)):
                return
            hook(event, args)
        finally:
            _running.discard(me)
    return audit


def addaudithook(hook):
    HOOKED[0] = True
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
