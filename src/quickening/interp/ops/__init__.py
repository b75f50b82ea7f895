"""Generic instruction handlers, grouped by what they do.

Importing this package registers every handler in `registry.HANDLERS`.
A handler is ``handler(frame, stack, arg, nxt) -> next pc``; it returns a
negative number to ask the loop to switch frames (see loop.py).
"""

from quickening.interp.ops import (  # noqa: F401  (imported for registration)
    stack_ops, locals_ops, arith, containers, control, calls, attrs,
    exceptions, imports, matching, gens, misc,
)
