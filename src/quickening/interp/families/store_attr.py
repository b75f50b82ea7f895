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

from types import ModuleType

from quickening.interp import facts
from quickening.interp.families import load_attr as _la
from quickening.interp.lowering import store_attr_shape
from quickening.interp.ops.attrs import store_attr as _generic
from quickening.interp.spec import TYPE_VERSION, Family, Guard
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
        return _la.specialize_dict_access(site, owner, t, name, version, INSTANCE_VALUE, WITH_HINT)
    if kind is _la.OBJECT_SLOT:
        _, offset, refusal = _la.member_slot(descr, t, facts.READONLY, "ATTR_READ_ONLY")
        if refusal:
            return site.fail(refusal)
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


# -- members ----------------------------------------------------------------------------------
# _GUARD_DORV_NO_DICT: no dict has been made for the object, and its inline values
# are valid.  The cheap lowering reads only the dict pointer: an object whose managed
# dict pointer is NULL has valid inline values (they are made valid, and made invalid
# only when a dict takes them over -- the pointer is then set -- or when the object
# is cleared as garbage).
NO_DICT_VALUES_VALID = Guard(
    "NO_DICT_VALUES_VALID", "not DICT_POINTERS[id({x}) >> 3] and MEM8[id({x}) + {valid_offset}]",
    "x has no dict yet and its inline values are valid",
    needs={"DICT_POINTERS": DICT_POINTERS, "MEM8": facts.MEM8})
NO_DICT_VALUES_VALID.lowered("not DICT_POINTERS[id({x}) >> 3]", lambda **_: {},
                             consumes=("valid_offset",), needs={"DICT_POINTERS": DICT_POINTERS})

INSTANCE_VALUE = FAMILY.member(
    "STORE_ATTR_INSTANCE_VALUE", stack="value owner --", cache="version/2 index/1",
    facts=("version", "cls", "index", "name", "valid_offset"),
    guards=[TYPE_VERSION("owner", "version"), NO_DICT_VALUES_VALID("owner", "valid_offset")],
    op="setattr(owner, name, value)", attribute="name", runs_code=False)
WITH_HINT = FAMILY.member(
    "STORE_ATTR_WITH_HINT", stack="value owner --", cache="version/2 hint/1",
    facts=("version", "cls", "hint", "name", "name_id"),
    guards=[TYPE_VERSION("owner", "version"), _la.DICT_HINT("owner", "hint", "name_id")],
    op="setattr(owner, name, value)", attribute="name", in_place=False, runs_code=False)
# A writable object slot: the store goes through the slot's descriptor, which the
# type version pins.
SLOT = FAMILY.member(
    "STORE_ATTR_SLOT", stack="value owner --", cache="version/2 index/1",
    facts=("version", "index", "cls", "name"),
    guards=[TYPE_VERSION("owner", "version")], op="setattr(owner, name, value)",
    attribute="name", runs_code=False)

FAMILY.base_shape = lambda oparg, name: store_attr_shape(name)
FAMILY.base_purity = lambda oparg, name: (
    (_la.plain_access(name, True), 1) if type(name) is str else None)
