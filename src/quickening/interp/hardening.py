"""Keep quickening's own code immune to a program that patches `builtins`.

Interpreted programs may replace builtins (`builtins.len = lru_cache(4)(len)`
in test_functools, `builtins.print = ...`, `del builtins.open` ...); the
interpreter's own modules look their builtins up at run time like any code,
so they would call the program's replacement.  `harden()` gives every
loaded `quickening.*` module a module-level binding of each builtin (module
globals are found before builtins), so the interpreter keeps using the real
ones whatever the program does to the `builtins` module.
"""

import builtins
import sys

_REAL = {name: value for name, value in vars(builtins).items() if not name.startswith("__")}
_hardened = set()


def harden():
    for name, module in list(sys.modules.items()):
        if name in _hardened or not (name == "quickening" or name.startswith("quickening.")):
            continue
        namespace = getattr(module, "__dict__", None)
        if type(namespace) is not dict:
            continue
        for key, value in _REAL.items():
            namespace.setdefault(key, value)
        _hardened.add(name)
