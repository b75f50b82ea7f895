"""LOAD_SUPER_ATTR and its 2 members.

`super().name` / `super(C, self).name` push (global super, class, self).
The specializer (_Py_Specialize_LoadSuperAttr) succeeds when the global
`super` is the builtin and the class is a type: LOAD_SUPER_ATTR_METHOD for
the method-call form (oparg & 1), else LOAD_SUPER_ATTR_ATTR.  It fails with
SUPER_SHADOWED or SUPER_BAD_CLASS.  Both members guard exactly those two
facts; the base instruction calls the global `super` and reads the attribute.

LOAD_SUPER_ATTR_METHOD pushes (method, self) when the lookup past the class
finds a method descriptor and self's type uses the generic getattro
(_PySuper_Lookup with method_found), else (attribute, NULL); the base
instruction always pushes (attribute, NULL), as CPython's does.
"""

from quickening.interp import facts
from quickening.interp.ops.attrs import load_super_attr as _generic
from quickening.interp.ops.registry import NULL
from quickening.interp.spec import IS, Family, Guard, Hand
from quickening.interp.facts import (TPFLAGS_METHOD_DESCRIPTOR as F_METHOD_DESCRIPTOR,
                                     GENERIC_GETATTR)


F_TYPE_SUBCLASS = 1 << 31
_super = super
_type_mro = type.__dict__["__mro__"].__get__
_type_dict = type.__dict__["__dict__"].__get__


def _decode(info, oparg, pc, nxt):
    return (info.names[oparg >> 2], oparg & 1, oparg & 2)


FAMILY = Family("LOAD_SUPER_ATTR", operands="global_super cls self", generic=_generic,
                decode=_decode, stats_operands=1)
load_super_attr = FAMILY.base_handler


@FAMILY.specializer
def specialize(site, global_super, cls, self_):
    if global_super is not _super:
        return site.fail("SUPER_SHADOWED")
    if not type(cls).__flags__ & F_TYPE_SUBCLASS:
        return site.fail("SUPER_BAD_CLASS")
    if site.oparg & 1:
        return site.specialize(METHOD, cache={}, name=site.arg[0])
    return site.specialize(ATTR, name=site.arg[0])


# -- members: both guard the two facts the specializer checked ---------------------------------
IS_CLASS = Guard("IS_CLASS", "type({x}).__flags__ & TYPE_SUBCLASS",
                 "x is a class (PyType_Check)", needs={"TYPE_SUBCLASS": F_TYPE_SUBCLASS})
ATTR = FAMILY.member(
    "LOAD_SUPER_ATTR_ATTR", stack="global_super cls self -- attr", facts=("name",),
    guards=[IS("global_super", super), IS_CLASS("cls")], op="getattr(super(cls, self), name)",
    serves=lambda oparg: not oparg & 1, in_place=False)


# What the lookup past cls found for an instance of a type, per site: the method
# descriptor, kept while that type's version holds (a change to it or to any class
# of its MRO, cls among them, changes it; versions are never given twice).
# site.cache: {id(type(self)): (id(cls), the type's version then, the method)}
_MEMO_LIMIT = 64
_VERSIONS = facts.words_from(facts.TYPE_VERSION_TAG, 4)     # [id(t) >> 2]
_is_subtype = type.__subclasscheck__


def super_method(cls, self_, name, memo):
    """_PySuper_Lookup(cls, self, name, &method_found) -> (attribute or method, self or NULL)."""
    t = type(self_)
    proxy = _super(cls, self_)           # supercheck: raises as CPython does
    if name != "__class__" and facts.type_getattro(t) == GENERIC_GETATTR:
        mro = _type_mro(proxy.__self_class__)
        n = len(mro)
        i = 0
        while i + 1 < n and mro[i] is not cls:
            i += 1
        i += 1
        while i < n:
            d = _type_dict(mro[i])
            if name in d:
                descr = d[name]
                if type(descr).__flags__ & F_METHOD_DESCRIPTOR:
                    version = _VERSIONS[id(t) >> 2]
                    # (the supercheck passes for any instance of t: t is a subtype of cls)
                    if version and proxy.__self_class__ is t and _is_subtype(cls, t):
                        if len(memo) >= _MEMO_LIMIT:
                            memo.clear()
                        memo[id(t)] = (id(cls), version, descr)
                    return descr, self_
                break
            i += 1
    return getattr(proxy, name), NULL


def method_through_memo(f, stack, site, nxt, cls, self, name):
    del stack[-2:]
    tid = id(type(self))
    found = site.cache.get(tid)
    if found is not None and found[0] == id(cls) and found[1] == _VERSIONS[tid >> 2]:
        stack[-1] = found[2]
        stack.append(self)
        return nxt
    stack[-1], self_or_null = super_method(cls, self, name, site.cache)
    stack.append(self_or_null)
    return nxt


METHOD = FAMILY.member(
    "LOAD_SUPER_ATTR_METHOD", stack="global_super cls self -- attr self_or_null",
    facts=("name",), guards=[IS("global_super", super), IS_CLASS("cls")],
    op=Hand(method_through_memo), serves=lambda oparg: oparg & 1)
