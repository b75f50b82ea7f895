"""Every generic handler, registered in `registry.HANDLERS` (importing this module
imports each module of handlers; the package's __init__ does not, as they import it)."""

from quickening.interp.ops import (  # noqa: F401  (imported for registration)
    stack_ops, locals_ops, arith, containers, control, calls, attrs,
    exceptions, imports, matching, gens, misc,
)
