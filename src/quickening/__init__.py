"""quickening: CPython's specializing adaptive interpreter rebuilt in Python,
and a lens on what the real CPython specializer does to a program.

The Python API of the interpreter lives in :mod:`quickening.api`; the most
used entry points are re-exported here lazily (importing the package stays
cheap for the lens, which must also load on CPython 3.11 and 3.12).
"""

__version__ = "0.1.0"

_API_NAMES = ("run_path", "run_module", "run_code", "call", "Interpreter")


def __getattr__(name):
    if name in _API_NAMES:
        from quickening import api
        return getattr(api, name)
    raise AttributeError(f"module 'quickening' has no attribute {name!r}")
