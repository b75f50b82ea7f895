"""quickening: CPython's specializing adaptive interpreter rebuilt in Python,
and a lens on what the real CPython specializer does to a program.

The Python API of the interpreter lives in :mod:`quickening.api`.  The package
itself imports none of its modules (each of them imports it: see _layers.py), so
importing it stays cheap for the lens, which must also load on CPython 3.11 and 3.12.
"""

import sys as _sys

__version__ = "0.1.0"

# what was imported before quickening itself: `quickening run` lets a program's own
# module shadow any other one, as it would natively (commands/run.py)
STARTUP_MODULES = frozenset(_sys.modules)
