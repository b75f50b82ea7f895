"""Per-site state as CPython reports it: (offset, form, counter, cached class[, cells]).

The same decoding (quickening.lens.decode) reads CPython's live
`_co_code_adaptive` and the interpreter's quickened streams, so a site of
either can be compared: the fidelity command and the per-family tests use it.
A cached type version is resolved to the class that currently has it, and
reported by qualified name (versions differ between processes).

With cells=True each site also carries its decoded cache cells, each resolved
to what it stands for in the process that holds it (Resolver), so that two
processes' sites compare: type versions as classes, function versions as
functions, dict-keys versions as "globals" / "builtins" / a module / the
class's shared keys (or "stale" when the dict's keys changed since), pointers
as the object they point to (found by identity among the cached class's
attributes), indexes and hints as they are.  Only the fields the site's form
reads are reported: CPython leaves the others as an earlier form wrote them.
"""

import gc
import sys
import types

from quickening.interp import facts
from quickening.interp import codeinfo as _codeinfo
from quickening.lens import decode as _decode

# (assigned, not imported: CPython 3.13 compiles a method call on a name an import
# binds without its method form, which the host cannot specialize -- test_layers.py)
_INFOS = _codeinfo._INFOS
TRAMPOLINES = _codeinfo.TRAMPOLINES

_tables = []


def tables():
    if not _tables:
        _tables.append(_decode.Tables.current())
    return _tables[0]


_HEAPTYPE = 1 << 9      # Py_TPFLAGS_HEAPTYPE


def live_classes():
    """Every class the garbage collector tracks (the heap types: a static type,
    int or str, is not tracked), found through the subclass lists from object:
    a quarter of the time of a pass over every tracked object (taken at each
    capture of a per-family test), and no weakref.proxy to a class passes for
    one (isinstance sees through a proxy; its memory holds no type version)."""
    seen = {}
    pending = [object]
    while pending:
        cls = pending.pop()
        if id(cls) not in seen:
            seen[id(cls)] = cls
            pending.extend(type.__subclasses__(cls))
    return [cls for cls in seen.values() if cls.__flags__ & _HEAPTYPE]


def types_by_version():
    table = {}
    for cls in live_classes():
        v = facts.type_version(cls)
        if v:
            table[v] = cls
    return table


def _class_name(site, versions):
    if isinstance(versions, Resolver):
        versions = versions.types
    if site.type_version and versions is not None:
        cls = versions.get(site.type_version)
        if cls is not None:
            return _name(cls)
        return "?"
    return None


def _name(obj):
    return f"{getattr(obj, '__module__', None)}.{getattr(obj, '__qualname__', '?')}"


# What each (3.13) form reads of its cache, by decoded field: "type" a type
# version, "function" a function version, "index" an index or hint (the low
# cell), "keys" a dict-keys version (16 bits in LOAD_GLOBAL, 32 elsewhere),
# "shared_keys" the version of the cached class's shared keys, "object" a
# pointer.  A form not listed reads no cache field.
_READS = {form: reads for forms, reads in (
    (("LOAD_GLOBAL_MODULE",), {"module_keys_version": "keys16", "index": "index"}),
    (("LOAD_GLOBAL_BUILTIN",), {"module_keys_version": "keys16",
                                "builtin_keys_version": "keys16", "index": "index"}),
    (("LOAD_ATTR_INSTANCE_VALUE", "LOAD_ATTR_SLOT", "LOAD_ATTR_WITH_HINT"),
     {"version": "type", "keys_version": "index"}),
    (("LOAD_ATTR_MODULE",), {"version": "keys", "keys_version": "index"}),
    (("LOAD_ATTR_CLASS",), {"version": "type", "descr": "object"}),
    (("LOAD_ATTR_PROPERTY", "LOAD_ATTR_GETATTRIBUTE_OVERRIDDEN"),
     {"version": "type", "keys_version": "function", "descr": "object"}),
    (("LOAD_ATTR_METHOD_WITH_VALUES", "LOAD_ATTR_NONDESCRIPTOR_WITH_VALUES"),
     {"version": "type", "keys_version": "shared_keys", "descr": "object"}),
    (("LOAD_ATTR_METHOD_NO_DICT", "LOAD_ATTR_NONDESCRIPTOR_NO_DICT"),
     {"version": "type", "descr": "object"}),
    (("LOAD_ATTR_METHOD_LAZY_DICT",),
     {"version": "type", "keys_version": "index", "descr": "object"}),
    (("STORE_ATTR_INSTANCE_VALUE", "STORE_ATTR_SLOT", "STORE_ATTR_WITH_HINT"),
     {"version": "type", "index": "index"}),
    (("TO_BOOL_ALWAYS_TRUE",), {"version": "type"}),
    (("CALL_PY_EXACT_ARGS", "CALL_PY_GENERAL", "CALL_BOUND_METHOD_EXACT_ARGS",
      "CALL_BOUND_METHOD_GENERAL"), {"func_version": "function"}),
    (("CALL_ALLOC_AND_ENTER_INIT",), {"func_version": "type"}),
) for form in forms}



class Resolver:
    """What version numbers and pointers stand for in this process, now.

    Versions and addresses differ between processes; what they resolve to
    (a class, a function, a dict, an object found by identity) does not."""

    def __init__(self, globals_=None):
        from quickening.interp import facts
        self.globals = globals_
        # (a comprehension, not a loop calling facts.type_version: a snapshot
        # is taken at every capture of a per-family test)
        classes = live_classes()
        mem32, at = facts.MEM32, facts.TYPE_VERSION_TAG
        self.types = {v: cls for cls, v in zip(classes, [mem32[(id(c) + at) >> 2] for c in classes])
                      if v}
        self._keys = self._live = self._roots = None
        self._function_names = {}

    def function(self, version):
        """What function version `version` stands for, or None.

        3.13's MAKE_FUNCTION gives a function its code object's version, so a
        version also names the code of a function no longer alive (CPython's
        own cache of functions by version keeps none alive): the live
        functions having it ("A.m | B.m" for closures of one code), else the
        first code object having it in a walk from the live functions' code
        (an interpreted function's version is its trampoline's).  The live
        functions are taken at the first question; the code walk stops where
        the version is found (a whole walk per capture was most of the
        per-family tests' time)."""
        if version in self._function_names:
            return self._function_names[version]
        if self._live is None:
            functions = [obj for obj in gc.get_objects() if isinstance(obj, types.FunctionType)]
            mem32, at = facts.MEM32, facts.FUNC_VERSION
            self._live = functions, [mem32[(id(fn) + at) >> 2] for fn in functions]
        functions, versions = self._live
        names = {_name(fn) for fn, v in zip(functions, versions) if v == version}
        found = " | ".join(sorted(names)) if names else self._code_named(version)
        self._function_names[version] = found
        return found

    def _code_named(self, version):
        """The name of the first code object with `version`, in the order of a
        depth-first walk from the live functions' code (None when none has it)."""
        if self._roots is None:
            self._roots = []
            for fn in self._live[0]:
                info = TRAMPOLINES.get(id(fn.__code__))
                self._roots.append((fn.__module__, info.code if info is not None else fn.__code__))
        # (facts.code_version read in place and no generator per code: the walk
        # passes thousands of code objects, once per capture that needs it)
        mem32, at, code_type = facts.MEM32, facts.CODE_VERSION, types.CodeType
        roots, seen = list(self._roots), set()
        while roots:
            module, code = roots.pop()
            key = id(code)
            if key in seen:
                continue
            seen.add(key)
            if mem32[(key + at) >> 2] == version:
                return f"{module}.{code.co_qualname}"
            trampoline = getattr(_INFOS.get(key), "trampoline", None)
            if trampoline is not None and mem32[(id(trampoline) + at) >> 2] == version:
                return f"{module}.{code.co_qualname}"
            for k in code.co_consts:
                if type(k) is code_type:
                    roots.append((module, k))
        return None

    @property
    def keys(self):
        """dict-keys version -> the dict ("globals", "builtins", "module NAME")."""
        if self._keys is None:
            import builtins
            import sys
            from quickening.interp import facts
            keys = {}
            for name, module in list(sys.modules.items()):
                d = getattr(module, "__dict__", None)
                if type(d) is dict:
                    keys.setdefault(facts.dict_keys_version(d), f"module {name}")
            keys[facts.dict_keys_version(builtins.__dict__)] = "builtins"
            if self.globals is not None:
                keys[facts.dict_keys_version(self.globals)] = "globals"
            keys.pop(0, None)   # (no version assigned)
            self._keys = keys
        return self._keys

    def resolve(self, form, fields):
        """{field: what it stands for} for the fields `form` reads."""
        reads = _READS.get(form)
        if not reads:
            return {}
        from quickening.interp import facts
        out = {}
        cls = None
        for field, kind in reads.items():
            value = fields.get(field, 0)
            if kind == "type":
                cls = self.types.get(value)
                out[field] = _name(cls) if cls is not None else ("?" if value else 0)
            elif kind == "function":
                name = self.function(value) if value else None
                out[field] = name if name is not None else ("?" if value else 0)
            elif kind == "index":
                out["index"] = value & 0xFFFF     # (LOAD_ATTR keeps it in keys_version's cell)
            elif kind in ("keys", "keys16"):
                mask = 0xFFFF if kind == "keys16" else 0xFFFFFFFF
                named = {v & mask: name for v, name in self.keys.items()}
                out[field] = named.get(value, "stale" if value else 0)
            elif kind == "shared_keys":
                keys = facts.shared_keys_address(cls) if cls is not None else 0
                current = facts.MEM32[(keys + facts.KEYS_VERSION) >> 2] if keys else None
                out[field] = ("shared keys of the class" if value and value == current
                              else "stale" if value else 0)
            elif kind == "object":
                out[field] = self._object(value, cls)
        return out

    def _object(self, address, cls):
        """A cached pointer, as the attribute of cls (or of its metaclass) that
        it points to; "?" when none is (the raw address means nothing in
        another process)."""
        if not address:
            return 0
        if cls is None:
            return "?"
        for owner in (*cls.__mro__, *type(cls).__mro__):
            for name, value in list(vars(owner).items()):
                if id(value) == address:
                    return f"{_name(owner)}.{name}"
                fget = getattr(value, "fget", None) if isinstance(value, property) else None
                if fget is not None and id(fget) == address:
                    return f"{_name(owner)}.{name}.fget"
        return "?"


def resolver(globals_=None):
    """A Resolver for this process now (a walk over every object: once per snapshot)."""
    return Resolver(globals_)


def _row(site, versions, cells):
    row = (site.offset, site.opname, site.counter_raw, _class_name(site, versions))
    if not cells:
        return row
    resolved = (versions.resolve(site.opname, site.fields)
                if site.state == "specialized" and isinstance(versions, Resolver) else {})
    return row + (resolved,)


def native_sites(code, versions=None, cells=False):
    """Sites of a code object as CPython itself left them.  `versions` is
    types_by_version() or a Resolver (which cells=True needs)."""
    return [_row(s, versions, cells)
            for s in _decode.decode(tables(), code.co_code, code._co_code_adaptive)]


def interpreted_sites(info, versions=None, cells=False):
    """Sites of a code object as the interpreter's quickened stream holds them."""
    return [_row(s, versions, cells)
            for s in _decode.decode(tables(), info.code.co_code, info.quickened.tobytes())]


def info_of(fn_or_code):
    """The CodeInfo the interpreter runs for a function or code object."""
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
