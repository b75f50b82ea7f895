"""The interpreter's own work, marked so that no audit hook the program added sees
its events (audit.py reads the mark; this module sits low, for the layers that
do such work for the program: making a masquerade's stub, walking frames)."""

import sys
from _thread import get_ident

RUNNING = set()     # thread idents inside a wrapped hook, its classification, or quietly()
HOOKED = [False]    # whether the program has added an audit hook (audit.addaudithook)

# the attributes whose read raises object.__getattr__ (CPython 3.11-3.13: the getters
# func_get_code, func_get_defaults, func_get_kwdefaults, frame_getcode, the generators'
# code and frame getters, and the members flagged Py_AUDIT_READ)
AUDITED_READS = frozenset(("__code__", "__defaults__", "__kwdefaults__", "f_code", "tb_frame",
                           "gi_code", "gi_frame", "cr_code", "cr_frame", "ag_code", "ag_frame"))


def quietly(call, *args):
    """call(*args) as the interpreter's own work, whatever frame it runs in: the audit
    events it raises reach no hook the program added (the intercepts of audited
    functions raise the program's event themselves)."""
    me = get_ident()
    if me in RUNNING:
        return call(*args)
    RUNNING.add(me)
    try:
        return call(*args)
    finally:
        RUNNING.discard(me)


def audit_for_caller(event, *args):
    """sys.audit(event, *args) raised for the code that called the caller of this: a
    getter of the interpreter's answering the program's read of an audited attribute
    (gi_frame, gi_code ...) raises the event CPython's getter raises, and the hooks
    see it if that read is the program's (audit.py tells, as for the event raised
    there)."""
    sys.audit(event, *args)


AUDIT_FOR_CALLER_CODE = audit_for_caller.__code__
