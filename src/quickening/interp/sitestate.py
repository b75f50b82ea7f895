"""Per-site state as CPython reports it: (offset, form, counter, cached class).

The same decoding (quickening.lens.decode) reads CPython's live
`_co_code_adaptive` and the interpreter's quickened streams, so a site of
either can be compared: the fidelity command and the per-family tests use it.
A cached type version is resolved to the class that currently has it, and
reported by qualified name (versions differ between processes).
"""

import gc

from quickening.lens import decode as _decode

_tables = []


def tables():
    if not _tables:
        _tables.append(_decode.Tables.current())
    return _tables[0]


def types_by_version():
    from quickening.interp import facts
    table = {}
    for obj in gc.get_objects():
        if isinstance(obj, type):
            v = facts.type_version(obj)
            if v:
                table[v] = obj
    return table


def _class_name(site, versions):
    if site.type_version and versions is not None:
        cls = versions.get(site.type_version)
        if cls is not None:
            return f"{cls.__module__}.{cls.__qualname__}"
        return "?"
    return None


def native_sites(code, versions=None):
    """Sites of a code object as CPython itself left them."""
    return [(s.offset, s.opname, s.counter_raw, _class_name(s, versions))
            for s in _decode.decode(tables(), code.co_code, code._co_code_adaptive)]


def interpreted_sites(info, versions=None):
    """Sites of a code object as the interpreter's quickened stream holds them."""
    return [(s.offset, s.opname, s.counter_raw, _class_name(s, versions))
            for s in _decode.decode(tables(), info.code.co_code, info.quickened.tobytes())]


def info_of(fn_or_code):
    """The CodeInfo the interpreter runs for a function or code object."""
    from quickening.interp.codeinfo import _INFOS
    from quickening.interp.functions import TRAMPOLINES
    code = getattr(fn_or_code, "__code__", fn_or_code)
    info = TRAMPOLINES.get(id(code))
    if info is None:
        info = _INFOS.get(id(code))
    return info


class LiveCode:
    """A code object seen through the interpreter's quickened stream.

    `_co_code_adaptive` is the interpreter's live stream (with the cache cells
    zeroed: dis walks every code unit as an instruction), so `dis(adaptive=True)`
    names the forms the interpreter's sites have now; everything else is the
    real code object's.
    """

    def __init__(self, info):
        self._code = info.code
        stream = bytearray(info.quickened.tobytes())
        for pc, entry in enumerate(info.instrs):
            if entry is None:   # a cache cell
                stream[2 * pc] = stream[2 * pc + 1] = 0
        self._co_code_adaptive = bytes(stream)

    def __getattr__(self, name):
        return getattr(self._code, name)
