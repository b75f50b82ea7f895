"""STORE_ATTR and its 3 members.

The specializer (_Py_Specialize_StoreAttr) classifies the name on the owner's
type with analyze_descriptor in store mode (load_attr.py): modules and types
whose tp_setattro is not the generic one fail; a writable object member slot
gives SLOT; an absent name gives INSTANCE_VALUE when the owner's inline values
are valid and the name is in the class's shared keys, else WITH_HINT when the
owner's (combined) dict holds the name; everything else (properties, methods,
class attributes of the same name ...) fails with pystats' kind.

Guards (bytecodes.c):
  INSTANCE_VALUE  type version; no materialized dict; inline values valid
  WITH_HINT       type version; dict present; hint in range; key at the hint is
                  the name; the old value is not NULL
  SLOT            type version
"""

import weakref
from types import ModuleType

from quickening.interp import facts
from quickening.interp.families import load_attr as _la
from quickening.interp.lowering import Shape, SiteShape, store_attr_shape
from quickening.interp.ops.attrs import store_attr as _generic
from quickening.interp.spec import TYPE_VERSION, Family
from quickening.interp.typewatch import token
from quickening.interp.facts import (MEM32 as M32, MEM64 as M64, TYPE_VERSION_TAG as TV,
                                     MANAGED_DICT as MANAGED_DICT_OFFSET)


DICT_POINTERS = facts.words_from(MANAGED_DICT_OFFSET)   # [id(owner) >> 3]: its managed dict


def _decode(info, oparg, pc, nxt):
    return info.names[oparg]


FAMILY = Family("STORE_ATTR", operands="owner", generic=_generic, decode=_decode)
store_attr = FAMILY.base_handler


# -- the specializer ---------------------------------------------------------------------
@FAMILY.specializer
def specialize(site, owner):
    name = site.arg
    t = type(owner)
    if t is ModuleType:
        return site.fail("OVERRIDDEN")
    native = facts.stands_for(t)
    if native is not t:
        return _la.fail_as_native(site, native, name, True)
    tv = M32[(id(t) + TV) >> 2]
    if tv and _la.replay(site, owner, (FAMILY, name, 0, tv, M64[(id(t) + _la.GETATTRO) >> 3])):
        return None
    kind, descr = _la.analyze_descriptor(t, name, True)
    version = facts.type_version(t)
    if version == 0:
        return site.fail("OUT_OF_VERSIONS")
    if kind is _la.ABSENT:
        return _la.specialize_dict_access(site, owner, t, name, version,
                                          "STORE_ATTR_INSTANCE_VALUE", _make_instance_value,
                                          "STORE_ATTR_WITH_HINT", _make_with_hint)
    if kind is _la.OBJECT_SLOT:
        _, offset, mflags = facts.member_def(descr)
        if not type.__subclasscheck__(descr.__objclass__, t):
            return site.fail("EXPECTED_ERROR")
        if mflags & facts.READONLY:
            return site.fail("ATTR_READ_ONLY")
        if offset > 0xFFFF:
            return site.fail("OUT_OF_RANGE")
        return site.specialize(SLOT, version=version, index=offset, cls=t, name=name)
    return site.fail(_FAIL_KIND[kind])


_FAIL_KIND = {
    _la.OVERRIDING: "ATTR_OVERRIDING_DESCRIPTOR", _la.METHOD: "ATTR_METHOD",
    _la.PROPERTY: "ATTR_PROPERTY", _la.DUNDER_CLASS: "ATTR_NON_OBJECT_SLOT",
    _la.OTHER_SLOT: "ATTR_NON_OBJECT_SLOT", _la.MUTABLE: "ATTR_MUTABLE_CLASS",
    _la.GETATTRIBUTE_IS_PYTHON_FUNCTION: "OVERRIDDEN", _la.GETSET_OVERRIDDEN: "OVERRIDDEN",
    _la.BUILTIN_CLASSMETHOD: "ATTR_BUILTIN_CLASS_METHOD_OBJ",
    _la.PYTHON_CLASSMETHOD: "ATTR_CLASS_METHOD_OBJ",
    _la.NON_OVERRIDING: "ATTR_CLASS_ATTR_DESCRIPTOR", _la.NON_DESCRIPTOR: "ATTR_CLASS_ATTR_SIMPLE",
}


# -- members (the type guard as in load_attr.py) ---------------------------------------------
def _make_instance_value(site, tv, t, index):
    name = site.arg
    tid, tview = _la.type_guard(t)
    valid_at = facts.bytes_from(t.__basicsize__ + 3)    # [id(owner)]: inline values valid

    def store_attr_instance_value(f, stack, site, nxt):
        owner = stack[-1]
        if id(type(owner)) == tid and tview[0] == tv:
            a = id(owner)
            if not DICT_POINTERS[a >> 3] and valid_at[a]:
                del stack[-1]
                setattr(owner, name, stack.pop())
                return nxt
        # the base instruction, written out (the hottest member)
        site.misses += 1
        cells = site.cells
        counter = cells[site.ci]
        if counter < 16:
            specialize(site, owner)
            return site.pc
        cells[site.ci] = counter - 16
        del stack[-1]
        setattr(owner, name, stack.pop())
        return nxt
    return INSTANCE_VALUE_IN_PLACE.facts(store_attr_instance_value, weakref.ref(t),
                                         token(t, tv), tv, DICT_POINTERS, valid_at)


# in place in fused runs (fusion.py): the same guard, less the `valid` byte, and the
# store.  (An object whose managed dict pointer is NULL has valid inline values:
# they are made valid, and made invalid only when a dict takes them over -- the
# pointer is then set -- or when the object is cleared as garbage.  One memory
# read less.)
INSTANCE_VALUE_IN_PLACE = SiteShape(lambda oparg: Shape(
    2, effects=["{1}.{name} = {0}"], consts=None,
    guard="type({1}) is {c0}() and {c1}[0] and not {c3}[id({1}) >> 3]", pure=True))
FAMILY.base_shape = lambda oparg, name: store_attr_shape(name)
FAMILY.base_purity = lambda oparg, name: (
    (_la.plain_access(name, True), 1) if type(name) is str else None)
FAMILY.inline_members = lambda oparg: (INSTANCE_VALUE_IN_PLACE, SLOT.in_place(oparg))


def _make_with_hint(site, tv, t, hint):
    name = site.arg
    name_id = id(name)
    entry_ok = _la.hint_entry_ok
    tid, tview = _la.type_guard(t)

    def store_attr_with_hint(f, stack, site, nxt):
        owner = stack[-1]
        if id(type(owner)) == tid and tview[0] == tv and entry_ok(owner, hint, name_id):
            del stack[-1]
            setattr(owner, name, stack.pop())
            return nxt
        site.misses += 1
        return store_attr(f, stack, site, nxt)
    return store_attr_with_hint


# A writable object slot: the store goes through the slot's descriptor, which the
# type version pins.
SLOT = FAMILY.member(
    "STORE_ATTR_SLOT", stack="value owner --", facts=("version", "index", "cls", "name"),
    guards=[TYPE_VERSION("owner", "version")], op="setattr(owner, name, value)",
    attribute="name", runs_code=False)
