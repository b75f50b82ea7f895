"""Counting interpreted code that runs natively anyway ("escapes").

Every code object the interpreter owns is registered here; a sys.monitoring
PY_START callback, enabled only on those code objects, fires exactly when
CPython itself starts executing one of them.  PY_START leaves specialization
alone, and the interpreter never executes through CPython's frames, so in a
clean run the count stays 0.
"""

import collections
import sys

_mon = getattr(sys, "monitoring", None)
TOOL_ID = 4  # one of the ids CPython leaves free for tools
COUNTS = collections.Counter()
_enabled = False


def _on_start(code, offset):
    COUNTS[(code.co_filename, code.co_qualname, code.co_firstlineno)] += 1


def enable():
    global _enabled
    if _mon is None or _enabled:
        return
    try:
        _mon.use_tool_id(TOOL_ID, "quickening-escapes")
    except ValueError:
        return
    _mon.register_callback(TOOL_ID, _mon.events.PY_START, _on_start)
    _enabled = True


def watch(code):
    if _enabled:
        _mon.set_local_events(TOOL_ID, code, _mon.events.PY_START)


def total():
    return sum(COUNTS.values())
