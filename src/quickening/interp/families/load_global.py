"""LOAD_GLOBAL and its 2 members.

The globals must be an exact dict whose keys are all str.  A name found in
the globals -> MODULE, caching the globals' keys version and the name's
index in the keys.  Otherwise, if the builtins are an exact str-keyed dict
holding the name -> BUILTIN, caching both keys versions and the index.
Guards: the version(s) still match (and the value is there).

Keys versions change when a key is added or deleted or the keys table is
resized, never when an existing name is rebound: rebinding a global never
misses, while adding one makes every site keyed on that dict miss (until its
53rd miss re-specializes with the new version).

The 3.13 cache is counter, module_keys_version, builtin_keys_version, index
(opcode._cache_format lists them in another order); versions are 16-bit, so
a dict whose keys version is above 65535 fails (OUT_OF_RANGE).

Keys versions are handed out lazily by CPython's specializer, from one
interpreter-wide counter (_PyDictKeys_GetVersionForCurrentState); no exported
C function does it.  So when a dict's keys have no version yet, we make
CPython assign it exactly as its own specializer would: a fresh copy of a
tiny native probe function, `return NAME`, bound to the same globals, is
called twice, so its LOAD_GLOBAL specializes natively and gives the keys (of
the globals, and for a builtin also of the builtins) a version.  Reading a
global or builtin str key has no other effect.
"""

import ctypes

from quickening.interp import facts
from quickening.interp.lowering import CALLEE_PROLOGUES, PROLOGUES, Shape, SiteShape
from quickening.interp.ops import locals_ops
from quickening.interp.ops.registry import NULL
from quickening.interp.spec import Family, Guard
from quickening.interp.facts import (MEM32 as _MEM32, MEM64 as _MEM64, DICT_KEYS as _DICT_KEYS,
                                     DICT_VALUES as _DICT_VALUES, KEYS_VERSION as _KEYS_VERSION)

FAMILY = Family("LOAD_GLOBAL", stats_operands=0)

_generic = locals_ops.load_global
_DICT_KEYS_GENERAL = 0


@FAMILY.adaptive()
def load_global(f, stack, site, nxt):
    cells = site.cells
    counter = cells[site.ci]
    if counter < 16:
        specialize(site, f)
        return site.pc
    cells[site.ci] = counter - 16
    return _generic(f, stack, site.arg, nxt)


# -- keys: index of a name, and the version -------------------------------------------
def _keys_index(d, name):
    """Index of `name` in the entries of a str-keyed dict's keys table, or -1."""
    entries = facts.keys_entries(facts.dict_keys_address(d))
    try:
        return entries.index(id(name))
    except ValueError:
        pass
    if name not in d:
        return -1
    # the key is an equal str object that is not `name` itself
    for i, address in enumerate(entries):
        if address and ctypes.cast(address, ctypes.py_object).value == name:
            return i
    return -1


_PROBE = compile("def probe():\n    return NAME\n", "<load_global version probe>",
                 "exec").co_consts[0]


def _probe(globals_, name):
    """Let CPython's own specializer give keys versions (see the module docstring)."""
    import types
    fn = types.FunctionType(_PROBE.replace(co_names=(name,)), globals_)
    for _ in range(2):
        try:
            fn()
        except NameError:
            return


def _keys_version(d):
    return facts.dict_keys_version(d)


# -- the specializer --------------------------------------------------------------
def _dict_refusal(d):
    """Why a globals or builtins mapping cannot be specialized on, or None."""
    if type(d) is not dict:
        return "LOAD_GLOBAL_NON_DICT"
    if facts.keys_kind(facts.dict_keys_address(d)) == _DICT_KEYS_GENERAL:
        return "LOAD_GLOBAL_NON_STRING_OR_SPLIT"
    return None


def _version_refusal(version):
    """Why a keys version cannot be cached (16-bit cells), or None."""
    if not version:
        return "OUT_OF_VERSIONS"
    return "OUT_OF_RANGE" if version > 0xFFFF else None


def specialize(site, f):
    name, push_null = site.arg
    g = f.globals
    refusal = _dict_refusal(g)
    if refusal:
        return site.fail(refusal)
    index = _keys_index(g, name)
    if index >= 0:
        if index > 0xFFFF:
            return site.fail("OUT_OF_RANGE")
        version = _keys_version(g)
        if not version:
            _probe(g, name)
            version = _keys_version(g)
        refusal = _version_refusal(version)
        if refusal:
            return site.fail(refusal)
        # (MODULE leaves the builtin_keys_version cell as it was)
        return _specialize(site, MODULE, version, MODULE_IN_PLACE, (_stamp(g, version),),
                           globals_version=version, index=index, name=name)
    b = f.builtins
    refusal = _dict_refusal(b)
    if refusal:
        return site.fail(refusal)
    index = _keys_index(b, name)
    if not 0 <= index <= 0xFFFF:
        return site.fail("OUT_OF_RANGE")
    if not _keys_version(g) or not _keys_version(b):
        _probe(g, name)
        if not _keys_version(b):
            _probe({"__builtins__": b}, name)
    globals_version, builtins_version = _keys_version(g), _keys_version(b)
    refusal = _version_refusal(globals_version) or _version_refusal(builtins_version)
    if refusal:
        return site.fail(refusal)
    return _specialize(site, BUILTIN, (globals_version, builtins_version), BUILTIN_IN_PLACE,
                       (_stamp(g, globals_version), _stamp(b, builtins_version)),
                       globals_version=globals_version, builtins_version=builtins_version,
                       index=index, name=name)


def _specialize(site, member, cache, kind, stamps, **facts):
    """The declared member's handler and cells, and its form in fused runs: the
    tag-stamp lowering below, with the stamp cells of the keys it tests."""
    handler = kind.facts(member.handler(site.oparg, **facts), facts["name"], stamps[0], _TAGS,
                         _seen, *stamps[1:])
    return site.specialize(member.name, handler, cache, written=member.written(facts))


# -- in place in fused runs ---------------------------------------------------------------
# A fused guard first compares the dict's tag with the one seen when the keys test
# last passed: a dict's tag is stamped anew from one counter of the whole
# interpreter at each change of it (never 0 once changed), so the same tag means the
# same dict not changed since -- the same keys object, the same version.  (Not for
# a split dict: its keys are shared with other dicts, which change them.)  Else the
# keys test runs (_seen), and records the tag when it passes.  One stamp cell per
# keys object and version tested: sites testing the same share it, and their guard
# terms too (a site made for another version of the same keys object has its own: a
# tag recorded for that version says nothing of this one).
_TAGS = facts.words_from(facts.DICT_TAG - _DICT_KEYS)    # [fgk]: the dict's tag
_STAMPS = {}


def _stamp(d, version):
    """The fact of a fused guard (below) for d's keys object at `version`: its stamp
    cell, [tag last seen, keys address, where in MEM32 its version is, the version]."""
    keys = facts.dict_keys_address(d)
    cell = _STAMPS.get((keys, version))
    if cell is None:
        if len(_STAMPS) > 4096:
            _STAMPS.clear()
        cell = _STAMPS[keys, version] = [-1, keys, (keys + _KEYS_VERSION) >> 2, version]
    return cell


def _seen(cell, k, read):
    """The keys test of the stamp cell's keys object and version, for the dict whose keys
    pointer is at MEM64[k]; `read`: the member reads the global from the keys'
    entries, as CPython's does -- false then if the dict is split (its entries hold
    no values: a miss).  A combined dict's tag (unless 0) is what the fast test
    compares next.  (The tag is read first: a change of the dict meanwhile, by a
    finalizer or another thread, leaves a tag that is no longer the dict's.)"""
    tag = _TAGS[k]
    if _MEM64[k] != cell[1] or _MEM32[cell[2]] != cell[3]:
        return False
    if _MEM64[k + 1]:
        return not read
    if tag:
        cell[0] = tag
    return True


# -- members: guards first, then the operation -----------------------------------------
# _GUARD_GLOBALS_VERSION / _GUARD_BUILTINS_VERSION: an exact dict whose keys have the
# cached version; the value is read from the keys' entries, as CPython's does (so a
# split dict, whose entries hold none, misses), and must not be NULL.
DICT_KEYS_VERSION = Guard(
    "DICT_KEYS_VERSION",
    "type({d}) is dict and MEM32[(MEM64[(id({d}) + DICT_KEYS) >> 3] + KEYS_VERSION) >> 2] "
    "== {version}",
    "d is an exact dict whose keys have the cached version",
    needs={"MEM32": _MEM32, "MEM64": _MEM64, "DICT_KEYS": _DICT_KEYS,
           "KEYS_VERSION": _KEYS_VERSION})
COMBINED = Guard("COMBINED", "not MEM64[(id({d}) + DICT_VALUES) >> 3]",
                 "d's values are in its keys' entries (not a split dict)",
                 needs={"MEM64": _MEM64, "DICT_VALUES": _DICT_VALUES})
HOLDS = Guard("HOLDS", "(value := {d}.get({name}, NULL)) is not NULL",
              "d holds name (its value is not NULL)", needs={"NULL": NULL})


def _value(oparg):
    return ["value", "NULL"] if oparg & 1 else "value"


MODULE = FAMILY.member(
    "LOAD_GLOBAL_MODULE", stack="-- res", cache="globals_version/1 unused/1 index/1",
    facts=("globals_version", "index", "name"),
    guards=[DICT_KEYS_VERSION("f.globals", "globals_version"), COMBINED("f.globals"),
            HOLDS("f.globals", "name")],
    op=_value, in_place=False, runs_code=False)
BUILTIN = FAMILY.member(
    "LOAD_GLOBAL_BUILTIN", stack="-- res", cache="globals_version/1 builtins_version/1 index/1",
    facts=("globals_version", "builtins_version", "index", "name"),
    guards=[DICT_KEYS_VERSION("f.globals", "globals_version"),
            DICT_KEYS_VERSION("f.builtins", "builtins_version"), COMBINED("f.builtins"),
            HOLDS("f.builtins", "name")],
    op=_value, in_place=False, runs_code=False)


# in place in fused runs (fusion.py): the same guards and lookup.  A frame's globals
# and builtins never change, so a fused function finds where their keys are
# referenced once, when it starts (PROLOGUES: fgk / fbk, 0 for a mapping that is not
# an exact dict).  Each site then compares the dict's tag with its stamp cell's, else
# tests (_seen) that the keys object is the one whose version it was specialized
# for, and that version: no address arithmetic on big ints per test.  (Exactly the
# version test: a keys object that replaced it has another address, or another
# version if it took the same one.)
def _keys_at(name, attr):
    """The prologue binding {name} (the frame's globals or builtins) and {name}k (where
    its keys pointer is, in MEM64; 0 when not an exact dict).  For the mapping the run
    was made with, a constant: the address arithmetic is on big ints, ~60 ns a line.
    (The same address holding another mapping later gets the same index: the
    guards then test its keys object as they would any.)"""
    computed = f"(id({name}) + {_DICT_KEYS}) >> 3 if type({name}) is dict else 0"

    def line(run):
        d = getattr(run.frame, attr, None)
        if type(d) is not dict:
            return f"{name} = f.{attr}; {name}k = {computed}"
        where, address = run.const((id(d) + _DICT_KEYS) >> 3), run.const(id(d))
        return f"{name}k = {where} if id({name} := f.{attr}) == {address} else ({computed})"
    return line


PROLOGUES["fgk", "fg"] = _keys_at("fg", "globals")
PROLOGUES["fbk", "fb"] = _keys_at("fb", "builtins")
# (a callee written into its caller's run uses the caller's when they are the same)
CALLEE_PROLOGUES["fgk", "fg"] = "{fn}.__globals__ is fg"
CALLEE_PROLOGUES["fbk", "fb"] = "{fn}.__builtins__ is fb"
# ({c0}: the name, {c1} / {c4}: the stamp cells of the globals' / builtins' keys and
# version, {c2}: the tags' view, {c3}: _seen)
_GLOBALS_GUARD = "fgk and ({c2}[fgk] == {c1}[0] or {c3}({c1}, fgk, READS))"
MODULE_IN_PLACE = SiteShape(lambda oparg: Shape(
    0, ["{r0}", "NULL"] if oparg & 1 else ["{r0}"], consts=None,
    guard=_GLOBALS_GUARD.replace("READS", "True") + " and ({r0} := fg.get({c0}, NULL)) is not NULL",
    pure=True))
BUILTIN_IN_PLACE = SiteShape(lambda oparg: Shape(
    0, ["{r0}", "NULL"] if oparg & 1 else ["{r0}"], consts=None,
    guard=_GLOBALS_GUARD.replace("READS", "False") + " and fbk and ({c2}[fbk] == {c4}[0] or"
          " {c3}({c4}, fbk, True)) and ({r0} := fb.get({c0}, NULL)) is not NULL", pure=True))
FAMILY.inline_members = lambda oparg: (MODULE_IN_PLACE, BUILTIN_IN_PLACE)
