"""Native calls made as if from the interpreted frame.

Some library code looks at the frame that called it: importlib words
ImportWarnings with `stacklevel`, namedtuple/Enum/typing take `__module__`
from their caller's globals, logging records the caller's file, line and
function.  Called from a handler, they would see the interpreter's frame.
For those callables the call goes through a *masquerade*: a tiny native
function whose code carries the interpreted frame's file, name and current
line, run with its globals, so the frame such code finds is the user's.
"""

import types

from quickening.interp import tracebacks
from quickening.interp.quiet import HOOKED, quietly

_TEMPLATE = compile("def __masquerade__(func, args, kwargs):\n    return func(*args, **kwargs)\n",
                    "<masquerade>", "exec").co_consts[0]
_codes = {}
IDS = set()      # id of a function (or of a bound method's __func__) to masquerade for
TYPES = set()    # metaclasses whose instances, when called, are masqueraded for


def masquerade_code(info, line):
    key = (id(info), line)
    code = _codes.get(key)
    if code is None:
        real = info.code
        code = _TEMPLATE.replace(co_filename=real.co_filename, co_name=real.co_name,
                                 co_qualname=real.co_qualname, co_firstlineno=line or 1)
        # every instruction of the stub reports `line`
        code = code.replace(co_linetable=_flat_linetable(code))
        _codes[key] = code
        tracebacks.INTERNAL_CODES.add(code)
    return code


def named_code(filename, name, line):
    """The stub's code with any file, name and line (for frames that are not
    interpreted ones: native frames the interpreter's caller chain passes)."""
    key = (filename, name, line)
    code = _codes.get(key)
    if code is None:
        code = _TEMPLATE.replace(co_filename=filename, co_name=name, co_qualname=name,
                                 co_firstlineno=line or 1)
        code = code.replace(co_linetable=_flat_linetable(code))
        _codes[key] = code
        tracebacks.INTERNAL_CODES.add(code)
    return code


def _flat_linetable(code):
    # one "no column" entry per code unit, all on co_firstlineno (line delta 0)
    units = len(code.co_code) // 2
    table = bytearray()
    while units > 0:
        n = min(units, 8)
        table.append(0x80 | (13 << 3) | (n - 1))   # PY_CODE_LOCATION_INFO_NO_COLUMNS
        table.append(0)                              # line delta 0 (signed varint)
        units -= n
    return bytes(table)


def call_as(f, func, args, kwargs):
    """func(*args, **kwargs), called from a native frame that looks like f."""
    info = f.info
    line = info.line_at(f.info.prev_start.get(f.pc, f.pc))
    if HOOKED[0]:
        # (making the stub is the interpreter's work: its code.__new__ and
        # function.__new__ events are no hook's; the call through it is the program's)
        stub = quietly(_stub, info, line, f.globals)
    else:
        stub = types.FunctionType(masquerade_code(info, line), f.globals)
    return stub(func, args, kwargs or {})


def _stub(info, line, globals_):
    return types.FunctionType(masquerade_code(info, line), globals_)


def wants(func):
    target = getattr(func, "__func__", func)
    return id(target) in IDS or type(func) in TYPES


def register_defaults():
    import collections
    import enum
    import logging
    import typing
    for fn in (collections.namedtuple, typing.NamedTuple, typing.TypedDict, typing.NewType,
               logging.Logger.debug, logging.Logger.info, logging.Logger.warning,
               logging.Logger.error, logging.Logger.exception, logging.Logger.critical,
               logging.Logger.log, logging.debug, logging.info, logging.warning,
               logging.error, logging.exception, logging.critical, logging.log):
        IDS.add(id(fn))
    TYPES.add(enum.EnumType)


register_defaults()
