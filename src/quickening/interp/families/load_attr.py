"""LOAD_ATTR and its 12 members.

The base instruction counts down; at zero the specializer classifies the
owner on its *live* value (Python/specialize.c's _Py_Specialize_LoadAttr):

1. an exact module whose dict has str keys, no `__getattr__` and the name at
   an index < 2**16                                   -> MODULE
2. a class (metaclass exactly `type`, the name not on `type`) whose attribute
   is a plain value or a method descriptor            -> CLASS
3. anything else: `analyze_descriptor` classifies the name on type(owner):
   absent (instance attribute)    -> INSTANCE_VALUE (inline values) / WITH_HINT (dict)
   object member slot, __class__  -> SLOT
   property with a simple 1-arg Python getter         -> PROPERTY (pushes a frame)
   Python __getattribute__ (2 args, no __getattr__)   -> GETATTRIBUTE_OVERRIDDEN (frame)
   method, method-call form       -> METHOD_WITH_VALUES / METHOD_NO_DICT / METHOD_LAZY_DICT
   plain class value, plain load  -> NONDESCRIPTOR_WITH_VALUES / NONDESCRIPTOR_NO_DICT
   and every other case fails with pystats' kind.

Each member checks CPython's guards (the type version, inline values valid,
keys versions, the slot or dict entry non-NULL ...) by reading memory through
facts; a failed guard counts a miss and jumps into the base instruction,
which counts down to re-specialization at the 53rd miss.  When the guards
pass, the fast operation may use getattr: the guards guarantee it computes
what CPython's specialized instruction would.

The method-call form (oparg & 1) pushes (method, self) when CPython does
(_PyObject_GetMethod in the base instruction, the METHOD_* members), and
(attribute, NULL) otherwise.
"""

import weakref
from types import (BuiltinMethodType, FunctionType, MethodType, MethodWrapperType,
                   ModuleType, MemberDescriptorType, ClassMethodDescriptorType)

from quickening.interp import facts, loop as _loop
from quickening.interp.families import _datastack
from quickening.interp.codeinfo import TRAMPOLINES
from quickening.interp.frame import Frame
from quickening.interp.lowering import Shape, SiteShape, source_attribute
from quickening.interp.ops.registry import NULL
from quickening.interp.spec import TYPE_VERSION, Family
from quickening.interp.typewatch import token
from quickening.interp.facts import (MEM8 as M8, MEM32 as M32, MEM64 as M64,
                                     TYPE_VERSION_TAG as TV, TYPE_GETATTRO as GETATTRO,
                                     FUNC_VERSION as FV, MODULE_DICT, DICT_KEYS, KEYS_VERSION,
                                     GENERIC_GETATTR, GENERIC_SETATTR,
                                     TPFLAGS_INLINE_VALUES as F_INLINE_VALUES,
                                     TPFLAGS_MANAGED_DICT as F_MANAGED_DICT,
                                     TPFLAGS_IMMUTABLETYPE as F_IMMUTABLE,
                                     TPFLAGS_METHOD_DESCRIPTOR as F_METHOD_DESCRIPTOR,
                                     type_lookup as _type_lookup)

FAMILY = Family("LOAD_ATTR", stats_operands=1)

MANAGED_DICT_OFFSET = facts.MANAGED_DICT          # -24
F_TYPE_SUBCLASS = 1 << 31
CO_VARARGS, CO_VARKEYWORDS, CO_OPTIMIZED = 0x04, 0x08, 0x01


# -- what tp_getattro is (CPython's own slot functions, learned from probe classes) --
class _HookProbe:
    def __getattr__(self, name):
        raise AttributeError(name)


class _SlotProbe:
    def __getattribute__(self, name):
        return None


_SlotProbe().probe      # the first call replaces the hook by _Py_slot_tp_getattro
GETATTR_HOOK = facts.type_getattro(_HookProbe)        # _Py_slot_tp_getattr_hook
SLOT_GETATTRO = facts.type_getattro(_SlotProbe)       # _Py_slot_tp_getattro
OBJECT_GETATTRIBUTE = object.__dict__["__getattribute__"]
OBJECT_CLASS = object.__dict__["__class__"]

# -- analyze_descriptor's classification ---------------------------------------------------
OVERRIDING = "OVERRIDING"
METHOD = "METHOD"
PROPERTY = "PROPERTY"
OBJECT_SLOT = "OBJECT_SLOT"
OTHER_SLOT = "OTHER_SLOT"
NON_OVERRIDING = "NON_OVERRIDING"
BUILTIN_CLASSMETHOD = "BUILTIN_CLASSMETHOD"
PYTHON_CLASSMETHOD = "PYTHON_CLASSMETHOD"
NON_DESCRIPTOR = "NON_DESCRIPTOR"
MUTABLE = "MUTABLE"
ABSENT = "ABSENT"
DUNDER_CLASS = "DUNDER_CLASS"
GETSET_OVERRIDDEN = "GETSET_OVERRIDDEN"
GETATTRIBUTE_IS_PYTHON_FUNCTION = "GETATTRIBUTE_IS_PYTHON_FUNCTION"


def analyze_descriptor(t, name, store):
    """(kind, descriptor) of `name` on type t, as specialize.c classifies it."""
    has_getattr = False
    if store:
        if facts.type_setattro(t) != GENERIC_SETATTR:
            return GETSET_OVERRIDDEN, None
    else:
        getattro = facts.type_getattro(t)
        if getattro != GENERIC_GETATTR:
            if getattro != GETATTR_HOOK and getattro != SLOT_GETATTRO:
                return GETSET_OVERRIDDEN, None
            getattribute = _type_lookup(t, "__getattribute__", NULL)
            custom = getattribute is not NULL and getattribute is not OBJECT_GETATTRIBUTE
            has_getattr = _type_lookup(t, "__getattr__", NULL) is not NULL
            if custom:
                if (getattro == SLOT_GETATTRO and not has_getattr
                        and type(getattribute) is FunctionType):
                    return GETATTRIBUTE_IS_PYTHON_FUNCTION, getattribute
                return GETSET_OVERRIDDEN, None
    descr = _type_lookup(t, name, NULL)
    if descr is NULL:      # (a class attribute may be None: that is no descriptor)
        return ABSENT, None
    dt = type(descr)
    flags = dt.__flags__
    if not flags & F_IMMUTABLE:
        return MUTABLE, descr
    if facts.type_has_descr_set(dt):
        if dt is MemberDescriptorType:
            mtype = facts.member_def(descr)[0]
            if mtype == facts.T_OBJECT_EX or mtype == facts.T_OBJECT:
                return OBJECT_SLOT, descr
            return OTHER_SLOT, descr
        if dt is property:
            return (GETSET_OVERRIDDEN if has_getattr else PROPERTY), descr
        if name == "__class__" and descr is OBJECT_CLASS:
            return DUNDER_CLASS, descr
        if store:
            return OVERRIDING, descr
    if facts.type_has_descr_get(dt):
        if flags & F_METHOD_DESCRIPTOR:
            return METHOD, descr
        if dt is ClassMethodDescriptorType:
            return BUILTIN_CLASSMETHOD, descr
        if dt is classmethod:
            return PYTHON_CLASSMETHOD, descr
        return NON_OVERRIDING, descr
    return NON_DESCRIPTOR, descr


# -- the base operation without code of the program ---------------------------------------
# A callee written into its caller (inlining.py) runs a polymorphic site's base
# operation in place (a miss) only where, for the owner's type, it runs no code of
# the program: the type's own generic getattr (setattr), and the name nothing, a
# plain class attribute, a method or a slot -- no property, no descriptor of the
# program's, not __dict__ (made on first access) nor __class__.  Decided once per
# type, and kept while its version holds (a change to it or to a base changes it).
_PLAIN_KINDS = frozenset({ABSENT, NON_DESCRIPTOR, METHOD, OBJECT_SLOT})
_UNPLAIN_NAMES = frozenset({"__dict__", "__class__", "__weakref__"})
_VERSIONS = facts.words_from(TV, 4)     # [id(t) >> 2]: a type's version tag


def plain_access(name, store):
    """A test of an owner: true when `owner.name` (its store, with store) runs no code
    of the program."""
    decided = {}     # id(type) -> (its version then, the answer)

    def runs_no_code(owner):
        t = type(owner)
        key = id(t)
        version = _VERSIONS[key >> 2]
        known = decided.get(key)
        if known is not None and known[0] == version and version:
            return known[1]
        plain = _plain(t, name, store)
        if version:
            decided[key] = (version, plain)
        return plain
    return runs_no_code


def _plain(t, name, store):
    if name in _UNPLAIN_NAMES or facts.stands_for(t) is not t:
        return False
    if (facts.type_setattro(t) != GENERIC_SETATTR if store
            else facts.type_getattro(t) != GENERIC_GETATTR):
        return False
    return analyze_descriptor(t, name, store)[0] in _PLAIN_KINDS


FAMILY.base_purity = lambda oparg, name: (
    None if oparg & 1 or type(name) is not str else (plain_access(name, False), 0))


# load_attr_fail_kind (pystats build): the failure of a kind that cannot specialize
FAIL_KIND = {
    OVERRIDING: "ATTR_OVERRIDING_DESCRIPTOR", METHOD: "ATTR_METHOD", PROPERTY: "ATTR_PROPERTY",
    OBJECT_SLOT: "ATTR_OBJECT_SLOT", OTHER_SLOT: "ATTR_NON_OBJECT_SLOT", DUNDER_CLASS: "OTHER",
    MUTABLE: "ATTR_MUTABLE_CLASS", GETSET_OVERRIDDEN: "OVERRIDDEN",
    GETATTRIBUTE_IS_PYTHON_FUNCTION: "OVERRIDDEN", BUILTIN_CLASSMETHOD: "ATTR_BUILTIN_CLASS_METHOD",
    PYTHON_CLASSMETHOD: "ATTR_CLASS_METHOD_OBJ", NON_OVERRIDING: "ATTR_NON_OVERRIDING_DESCRIPTOR",
    NON_DESCRIPTOR: "ATTR_NOT_DESCRIPTOR", ABSENT: "ATTR_INSTANCE_ATTRIBUTE",
}


def fail_as_native(site, native, name, store):
    """An object standing for an instance of the native type `native` (a
    FrameView for a frame): attribute sites fail as CPython's do on that type,
    whose attributes are getset/member descriptors (its methods, which CPython
    would specialize in the method-call form, fail here too)."""
    kind, _ = analyze_descriptor(native, name, store)
    if kind is ABSENT:
        return site.fail("ATTR_NOT_MANAGED_DICT")
    return site.fail(FAIL_KIND.get(kind, "OTHER"))


def function_check_args(fn, expected_argcount):
    """None if fn is a simple function of `expected_argcount` parameters, else the kind."""
    code = fn.__code__
    flags = code.co_flags
    if flags & (CO_VARARGS | CO_VARKEYWORDS) or code.co_kwonlyargcount:
        return "CODE_COMPLEX_PARAMETERS"
    if not flags & CO_OPTIMIZED:
        return "CODE_NOT_OPTIMIZED"
    if code.co_argcount != expected_argcount:
        return "WRONG_NUMBER_ARGUMENTS"
    return None


def managed_dict_lookup(owner, name):
    """(status, index) of name in an instance's managed dict: status is None when
    found, else the failure kind (NO_DICT, ATTR_NON_STRING_OR_SPLIT, ATTR_NOT_IN_DICT)."""
    d = facts.managed_dict(owner)
    if not d or M64[(d + 8) >> 3] != id(dict):
        return "NO_DICT", -1
    if M64[(d + facts.DICT_VALUES) >> 3]:
        return "ATTR_NON_STRING_OR_SPLIT", -1
    index = facts.keys_lookup_index(M64[(d + facts.DICT_KEYS) >> 3], name)
    if index < 0:
        return "ATTR_NOT_IN_DICT", -1
    if index > 0xFFFF:
        return "OUT_OF_RANGE", -1
    return None, index


def specialize_dict_access(site, owner, t, name, version, values_member, make_values,
                           hint_member, make_hint):
    """specialize_dict_access: an instance attribute in inline values or in the dict."""
    flags = t.__flags__
    if not flags & F_MANAGED_DICT:
        return site.fail("ATTR_NOT_MANAGED_DICT")
    if flags & F_INLINE_VALUES and facts.inline_values_valid(owner):
        index = facts.keys_lookup_index(facts.shared_keys_address(t), name)
        if index < 0:
            return site.fail("ATTR_NOT_IN_KEYS")
        if index > 0xFFFF:
            return site.fail("OUT_OF_RANGE")
        return _specialize(site, values_member, make_values(site, version, t, index),
                           version=version, w3=index, memo=(owner, "values"))
    status, index = managed_dict_lookup(owner, name)
    if status is not None:
        return site.fail(status)
    return _specialize(site, hint_member, make_hint(site, version, t, index), version=version, w3=index)


_NO_OBJECT = object()    # (obj=None is a pointer to None, as LOAD_ATTR_CLASS caches it)


def _specialize(site, member, handler=None, cache=None, version=None, w3=None, w34=None,
                obj=_NO_OBJECT, memo=None, **facts):
    """Rewrite the site, writing only the cache words CPython writes for `member`;
    with memo=(owner, check), remember it for the owner's type (see MEMO).  A declared
    member (spec.Member) derives its handler and cells from its facts."""
    written = []
    if not isinstance(member, str):
        facts_ = dict(facts, version=version)
        handler, written = member.handler(site.oparg, **facts_), member.written(facts_)
        member = member.name
    elif version is not None:
        written += [(0, version & 0xFFFF), (1, version >> 16)]
    if w3 is not None:
        written.append((2, w3))
    if w34 is not None:
        written += [(2, w34 & 0xFFFF), (3, w34 >> 16)]
    if obj is not _NO_OBJECT:
        p = id(obj)
        written += [(4, p & 0xFFFF), (5, (p >> 16) & 0xFFFF), (6, (p >> 32) & 0xFFFF),
                    (7, (p >> 48) & 0xFFFF)]
    if memo is not None:
        owner, check = memo
        t = type(owner)
        key = (site.family, site.arg, site.oparg & 1 if site.family is FAMILY else 0, version,
               M64[(id(t) + GETATTRO) >> 3])
        if len(MEMO) >= MEMO_LIMIT:
            MEMO.clear()
        MEMO[key] = (check, member, handler, written, cache)
    site.specialize(member, handler, cache, written=written)


# -- the base instruction ---------------------------------------------------------------
def _decode(info, oparg, pc, nxt):
    return info.names[oparg >> 1]




def load_method(owner, name):
    """_PyObject_GetMethod: (method, self) when the type's generic lookup finds a
    method descriptor not shadowed by the instance, else (attribute, NULL)."""
    attr = getattr(owner, name)
    ta = type(attr)
    if ta is MethodType:      # (the common case first: a Python function of the class)
        if attr.__self__ is owner:
            func = attr.__func__
            tf = type(func)
            if ((tf is FunctionType or tf.__flags__ & F_METHOD_DESCRIPTOR)
                    and M64[(id(type(owner)) + GETATTRO) >> 3] == GENERIC_GETATTR):
                return func, owner
    elif (ta is BuiltinMethodType or ta is MethodWrapperType) and attr.__self__ is owner:
        t = type(owner)
        if M64[(id(t) + GETATTRO) >> 3] == GENERIC_GETATTR:
            descr = _type_lookup(t, name)
            if descr is not None and type(descr).__flags__ & F_METHOD_DESCRIPTOR:
                return descr, owner
    return attr, NULL


@FAMILY.adaptive(decode=_decode)
def load_attr(f, stack, site, nxt):
    cells = site.cells
    counter = cells[site.ci]
    if counter < 16:
        specialize(site, stack[-1])
        return site.pc
    cells[site.ci] = counter - 16
    if site.oparg & 1:
        stack[-1], self_ = load_method(stack[-1], site.arg)
        stack.append(self_)
    else:
        stack[-1] = getattr(stack[-1], site.arg)
    return nxt


def _deopt(f, stack, site, nxt):
    site.misses += 1
    return load_attr(f, stack, site, nxt)


# -- the specializer -----------------------------------------------------------------------
# Successful specializations whose outcome depends only on the type (its version
# and tp_getattro) and on facts re-checked here are remembered, so that a
# polymorphic site re-targeting every 53 misses does not redo the analysis:
# (family, name, oparg & 1, type version, tp_getattro) -> (check, member, handler,
# cache words written, cache).  `check` is what must still hold for the owner: "values" (inline
# values valid: the name's index in the shared keys never changes once there),
# a shared-keys address whose version must be unchanged, or None.
MEMO = {}
MEMO_LIMIT = 4096


def replay(site, owner, key):
    """Re-apply a remembered specialization if it still holds; True if done."""
    entry = MEMO.get(key)
    if entry is None:
        return False
    check, member, handler, written, cache = entry
    if check == "values":
        if not facts.inline_values_valid(owner):
            return False
    elif check is not None:
        keys, kv = check
        if M32[(keys + 12) >> 2] != kv:
            return False
    site.specialize(member, handler, cache, written=written)
    return True


def specialize(site, owner):
    name = site.arg
    method = site.oparg & 1
    t = type(owner)
    if t is ModuleType:
        return specialize_module(site, owner, name, method)
    if t.__flags__ & F_TYPE_SUBCLASS:
        return specialize_class(site, owner, name, method)
    native = facts.stands_for(t)
    if native is not t:
        return fail_as_native(site, native, name, False)
    tv = M32[(id(t) + TV) >> 2]
    if tv:
        key = (FAMILY, name, method, tv, M64[(id(t) + GETATTRO) >> 3])
        if replay(site, owner, key):
            return None
    kind, descr = analyze_descriptor(t, name, False)
    version = facts.type_version(t)
    if version == 0:
        return site.fail("OUT_OF_VERSIONS")
    if kind is ABSENT:
        return specialize_dict_access(site, owner, t, name, version,
                                      "LOAD_ATTR_INSTANCE_VALUE", _make_instance_value,
                                      "LOAD_ATTR_WITH_HINT", _make_with_hint)
    if kind is METHOD:
        if method:
            return specialize_class_attr(site, owner, t, name, descr, version, True)
        return site.fail("ATTR_METHOD")
    if kind is NON_DESCRIPTOR:
        if not method:
            return specialize_class_attr(site, owner, t, name, descr, version, False)
        return site.fail("ATTR_CLASS_ATTR_SIMPLE")
    if kind is PROPERTY:
        fget = descr.fget
        if fget is None:
            return site.fail("EXPECTED_ERROR")
        if type(fget) is not FunctionType:
            return site.fail("ATTR_PROPERTY_NOT_PY_FUNCTION")
        return specialize_frame_push(site, t, version, fget, 1, "LOAD_ATTR_PROPERTY")
    if kind is OBJECT_SLOT:
        mtype, offset, mflags = facts.member_def(descr)
        if not type.__subclasscheck__(descr.__objclass__, t):
            return site.fail("EXPECTED_ERROR")
        if mflags & facts.AUDIT_READ:
            return site.fail("ATTR_AUDITED_SLOT")
        if offset > 0xFFFF:
            return site.fail("OUT_OF_RANGE")
        cheap = mtype == facts.T_OBJECT_EX and facts.type_getattro(t) == GENERIC_GETATTR
        return _specialize(site, "LOAD_ATTR_SLOT", _make_slot(site, version, t, offset, cheap),
                           version=version, w3=offset)
    if kind is DUNDER_CLASS:
        return _specialize(site, "LOAD_ATTR_SLOT", _make_slot(site, version, t, 8, True),
                           version=version, w3=8)
    if kind is GETATTRIBUTE_IS_PYTHON_FUNCTION:
        return specialize_frame_push(site, t, version, descr, 2, "LOAD_ATTR_GETATTRIBUTE_OVERRIDDEN")
    if kind is NON_OVERRIDING:
        return site.fail("ATTR_CLASS_ATTR_DESCRIPTOR" if t.__flags__ & F_MANAGED_DICT
                         else "ATTR_NOT_MANAGED_DICT")
    if kind is BUILTIN_CLASSMETHOD:
        return site.fail("ATTR_BUILTIN_CLASS_METHOD_OBJ")
    if kind is PYTHON_CLASSMETHOD:
        return site.fail("ATTR_CLASS_METHOD_OBJ")
    if kind is OTHER_SLOT:
        return site.fail("ATTR_NON_OBJECT_SLOT")
    if kind is MUTABLE:
        return site.fail("ATTR_MUTABLE_CLASS")
    if kind is GETSET_OVERRIDDEN:
        return site.fail("OVERRIDDEN")
    return site.fail("ATTR_OVERRIDING_DESCRIPTOR")


def specialize_module(site, owner, name, method):
    d = facts.module_dict_address(owner)
    if not d:
        return site.fail("NO_DICT")
    keys = M64[(d + facts.DICT_KEYS) >> 3]
    if facts.keys_kind(keys) != 1:          # DICT_KEYS_UNICODE
        return site.fail("ATTR_NON_STRING_OR_SPLIT")
    if facts.keys_lookup_index(keys, "__getattr__") >= 0:
        return site.fail("ATTR_MODULE_ATTR_NOT_FOUND")
    index = facts.keys_lookup_index(keys, name)
    if index < 0:
        return site.fail("ATTR_MODULE_ATTR_NOT_FOUND")
    if index > 0xFFFF:
        return site.fail("OUT_OF_RANGE")
    kv = facts.assign_keys_version(keys)
    if kv == 0:
        return site.fail("OUT_OF_VERSIONS")
    value_addr = facts.keys_entry_address(keys, index)[0] + 8
    return _specialize(site, "LOAD_ATTR_MODULE", _make_module(site, kv, value_addr),
                       version=kv, w3=index)


def specialize_class(site, owner, name, method):
    if type(owner) is not type or _type_lookup(type, name, NULL) is not NULL:
        return site.fail("ATTR_METACLASS_ATTRIBUTE")
    kind, descr = analyze_descriptor(owner, name, False)
    version = facts.type_version(owner)
    if version == 0:
        return site.fail("OUT_OF_VERSIONS")
    if kind is METHOD or kind is NON_DESCRIPTOR:
        return _specialize(site, "LOAD_ATTR_CLASS", _make_class(site, version, owner, descr),
                           version=version, obj=descr)
    if kind is ABSENT:
        return site.fail("EXPECTED_ERROR")
    return site.fail(FAIL_KIND[kind])


def specialize_frame_push(site, t, version, fn, nargs, member):
    """PROPERTY / GETATTRIBUTE_OVERRIDDEN: a simple Python function run in a new frame."""
    kind = function_check_args(fn, nargs)
    if kind is not None:
        return site.fail(kind)
    if site.oparg & 1:
        return site.fail("ATTR_METHOD")
    fv = facts.func_version(fn)
    if fv == 0:
        return site.fail("OUT_OF_VERSIONS")
    info = TRAMPOLINES.get(id(fn.__code__))
    if info is not None and info.exact_call_tail is None:
        info = None                        # a generator function: call it
    if nargs == 1:
        handler = _make_property(site, version, t, fv, fn, info)
    else:
        handler = _make_getattribute(site, version, t, fv, fn, info, site.arg)
    return _specialize(site, member, handler, cache=fn, version=version, w34=fv, obj=fn)


def specialize_class_attr(site, owner, t, name, descr, version, is_method):
    """specialize_attr_loadclassattr: a method or a plain class value read through an instance."""
    flags = t.__flags__
    if flags & F_INLINE_VALUES:
        keys = facts.shared_keys_address(t)
        if facts.keys_lookup_index(keys, name) >= 0:
            return site.fail("ATTR_SHADOWED")
        kv = facts.assign_keys_version(keys)
        if kv == 0:
            return site.fail("OUT_OF_VERSIONS")
        if is_method:
            member, handler = "LOAD_ATTR_METHOD_WITH_VALUES", _make_method_with_values(
                site, version, t, keys, kv, descr)
        else:
            member, handler = "LOAD_ATTR_NONDESCRIPTOR_WITH_VALUES", _make_nondescriptor_with_values(
                site, version, t, keys, kv, descr)
        return _specialize(site, member, handler, cache=descr, version=version, w34=kv, obj=descr,
                           memo=(owner, (keys, kv)))
    if flags & F_MANAGED_DICT:
        dictoffset = MANAGED_DICT_OFFSET
    else:
        dictoffset = facts.type_dictoffset(t)
        if dictoffset < 0 or dictoffset > 0x7FFF + MANAGED_DICT_OFFSET:
            return site.fail("OUT_OF_RANGE")
    if dictoffset == 0:
        return _specialize(site, METHOD_NO_DICT if is_method else NONDESCRIPTOR_NO_DICT,
                           cache=descr, version=version, cls=t, descr=descr, memo=(owner, None))
    if is_method:
        if M64[(id(owner) + dictoffset) >> 3]:
            return site.fail("ATTR_NOT_MANAGED_DICT")
        stored = dictoffset - MANAGED_DICT_OFFSET
        return _specialize(site, "LOAD_ATTR_METHOD_LAZY_DICT",
                           _make_method_lazy_dict(site, version, t, stored, descr),
                           cache=descr, version=version, w3=stored, obj=descr)
    return site.fail("ATTR_CLASS_ATTR_SIMPLE")


# -- members: guards first, then the operation; a failed guard deopts --------------------------
#
# The type-version guard `type(owner).tp_version_tag == tv` is checked as
# `id(type(owner)) == tid and tview[0] == tv`, tview being a 4-byte view of the
# specialized type's version field: the same answer (a version belongs to one
# live type), and a small view with a small index reads much faster than the
# whole-memory view with an address.  The view is only read once the owner's
# type is known to be the object at that address, so never read when it died.
# (The forms run in place in fused runs test `type(owner) is tref()` instead, a
# weak reference to the type: the same answer, without id()'s new int.)
def type_guard(t):
    """(id, view of tp_version_tag) of a type, for the members' guards."""
    a = id(t) + TV
    return id(t), M8[a:a + 4].cast("I")


def u32_view(addr):
    return M8[addr:addr + 4].cast("I")


# in place in fused runs (fusion.py): the same guard, the value read as `o.name`
# (the host specializes it), whose AttributeError is the NULL slot's miss; {c0}..
# are the member's facts, as named where it is made
INSTANCE_VALUE_IN_PLACE = SiteShape(lambda oparg: Shape(
    1, ["{0}.{name}", "NULL"] if oparg & 1 else ["{0}.{name}"], consts=None,
    guard="type({0}) is {c0}() and {c1}[0] and {c3}[id({0})]", fallible="AttributeError",
    pure=True))


def _base_shape(oparg, name):
    """The base instruction's operation, in place in fused runs ({arg}: the name)."""
    if oparg & 1:
        return Shape(1, ["{r0}", "{r1}"], consts=(load_method,),
                     effects=["{r0}, {r1} = {c0}({0}, {arg})"])
    attr = source_attribute(name)
    return Shape(1, [f"{{0}}.{attr}" if attr else "getattr({0}, {arg})"])


FAMILY.base_shape = _base_shape


def _make_instance_value(site, tv, t, index):
    name = site.arg
    tid, tview = type_guard(t)
    basicsize = t.__basicsize__
    valid = basicsize + 3
    valid_at = facts.bytes_from(valid)     # [id(owner)]: its inline values' `valid` byte
    slot = basicsize + 8 + 8 * index
    method = site.oparg & 1
    if facts.type_getattro(t) == GENERIC_GETATTR:
        # Without __getattr__, a NULL value slot makes getattr raise AttributeError
        # (and nothing else does, the type version being unchanged): that is the
        # slot guard, at no cost when it passes.  (The miss path is the base
        # instruction's, written out: this is the hottest member.)
        if method:
            def load_attr_instance_value(f, stack, site, nxt):
                owner = stack[-1]
                if id(type(owner)) == tid and tview[0] == tv and valid_at[id(owner)]:
                    try:
                        stack[-1] = getattr(owner, name)
                    except AttributeError:
                        pass
                    else:
                        stack.append(NULL)
                        return nxt
                site.misses += 1
                cells = site.cells
                counter = cells[site.ci]
                if counter < 16:
                    specialize(site, owner)
                    return site.pc
                cells[site.ci] = counter - 16
                stack[-1], self_ = load_method(owner, name)
                stack.append(self_)
                return nxt
        else:
            def load_attr_instance_value(f, stack, site, nxt):
                owner = stack[-1]
                if id(type(owner)) == tid and tview[0] == tv and valid_at[id(owner)]:
                    try:
                        stack[-1] = getattr(owner, name)
                    except AttributeError:
                        pass
                    else:
                        return nxt
                site.misses += 1
                cells = site.cells
                counter = cells[site.ci]
                if counter < 16:
                    specialize(site, owner)
                    return site.pc
                cells[site.ci] = counter - 16
                stack[-1] = getattr(owner, name)
                return nxt
        INSTANCE_VALUE_IN_PLACE.facts(load_attr_instance_value, weakref.ref(t), token(t, tv), tv,
                                      valid_at)
    else:
        def load_attr_instance_value(f, stack, site, nxt):
            owner = stack[-1]
            if id(type(owner)) == tid and tview[0] == tv:
                a = id(owner)
                if M8[a + valid] and M64[(a + slot) >> 3]:
                    stack[-1] = getattr(owner, name)
                    if method:
                        stack.append(NULL)
                    return nxt
            site.misses += 1
            return load_attr(f, stack, site, nxt)
    return load_attr_instance_value


def hint_entry_ok(owner, hint, name_id):
    """_CHECK_ATTR_WITH_HINT and the hint checks: managed dict present, hint in range,
    the key at the hint is the name and its value is not NULL."""
    d = M64[(id(owner) + MANAGED_DICT_OFFSET) >> 3]
    if not d:
        return False
    keys = M64[(d + 32) >> 3]
    if hint >= M64[(keys + 24) >> 3]:
        return False
    start = keys + 32 + (1 << M8[keys + 9])
    if M8[keys + 10]:
        e = start + 16 * hint
        return M64[e >> 3] == name_id and M64[(e + 8) >> 3] != 0
    e = start + 24 * hint
    return M64[(e + 8) >> 3] == name_id and M64[(e + 16) >> 3] != 0


def _make_with_hint(site, tv, t, hint):
    name = site.arg
    name_id = id(name)
    method = site.oparg & 1
    tid, tview = type_guard(t)

    def load_attr_with_hint(f, stack, site, nxt):
        owner = stack[-1]
        if id(type(owner)) == tid and tview[0] == tv and hint_entry_ok(owner, hint, name_id):
            stack[-1] = getattr(owner, name)
            if method:
                stack.append(NULL)
            return nxt
        site.misses += 1
        return load_attr(f, stack, site, nxt)
    return load_attr_with_hint


# LOAD_ATTR_SLOT of a slot that getattr's AttributeError tells empty, in place in
# fused runs: the type guard, then `o.name`, whose AttributeError is the empty
# slot's miss
SLOT_IN_PLACE = SiteShape(lambda oparg: Shape(
    1, ["{0}.{name}", "NULL"] if oparg & 1 else ["{0}.{name}"], consts=None,
    guard="type({0}) is {c0}() and {c1}[0]", fallible="AttributeError", pure=True))


def _make_slot(site, tv, t, offset, cheap):
    name = site.arg
    method = site.oparg & 1
    tid, tview = type_guard(t)
    if cheap:
        # __class__ is never NULL; a NULL Py_T_OBJECT_EX slot makes getattr raise
        # AttributeError (only that, without __getattr__): the slot guard for free
        def load_attr_slot(f, stack, site, nxt):
            owner = stack[-1]
            if id(type(owner)) == tid and tview[0] == tv:
                try:
                    stack[-1] = getattr(owner, name)
                except AttributeError:
                    pass
                else:
                    if method:
                        stack.append(NULL)
                    return nxt
            site.misses += 1
            return load_attr(f, stack, site, nxt)
        return SLOT_IN_PLACE.facts(load_attr_slot, weakref.ref(t), token(t, tv), tv)

    def load_attr_slot(f, stack, site, nxt):
        owner = stack[-1]
        if id(type(owner)) == tid and tview[0] == tv and M64[(id(owner) + offset) >> 3]:
            stack[-1] = getattr(owner, name)
            if method:
                stack.append(NULL)
            return nxt
        site.misses += 1
        return load_attr(f, stack, site, nxt)
    return load_attr_slot


def _make_module(site, kv, value_addr):
    # a keys version belongs to one keys object, so a match pins the entry's address
    name = site.arg
    method = site.oparg & 1
    value_index = value_addr >> 3

    def load_attr_module(f, stack, site, nxt):
        owner = stack[-1]
        if type(owner) is ModuleType:
            keys = M64[(M64[(id(owner) + MODULE_DICT) >> 3] + DICT_KEYS) >> 3]
            if M32[(keys + KEYS_VERSION) >> 2] == kv and M64[value_index]:
                stack[-1] = getattr(owner, name)
                if method:
                    stack.append(NULL)
                return nxt
        site.misses += 1
        return load_attr(f, stack, site, nxt)
    return MODULE_IN_PLACE.facts(load_attr_module, ModuleType, M64, M32, kv, value_index)


# (the module's dict's keys, read through its __dict__ pointer: {c3} their version,
# {c4} where the entry's value is, not NULL)
MODULE_IN_PLACE = SiteShape(lambda oparg: Shape(
    1, ["{0}.{name}", "NULL"] if oparg & 1 else ["{0}.{name}"], consts=None,
    guard=f"type({{0}}) is {{c0}} and {{c2}}[({{c1}}[({{c1}}[(id({{0}}) + {MODULE_DICT}) >> 3]"
          f" + {DICT_KEYS}) >> 3] + {KEYS_VERSION}) >> 2] == {{c3}} and {{c1}}[{{c4}}]", pure=True))


def _make_class(site, tv, cls, descr):
    # the class was specialized with metaclass exactly `type`, which cannot change
    # (__class__ of a class cannot be assigned); so PyType_Check(owner) and the
    # version match hold together exactly when type(owner) is type and owner is
    # the live class at that address with the version
    # CPython's cache borrows the attribute: the handler does not keep it alive.
    # While the version holds, the class's lookup of the name gives exactly it
    # (a function's __get__ without an instance, or a plain value).
    method = site.oparg & 1
    tid, tview = type_guard(cls)
    name = site.arg
    del descr

    def load_attr_class(f, stack, site, nxt):
        owner = stack[-1]
        if type(owner) is type and id(owner) == tid and tview[0] == tv:
            stack[-1] = getattr(owner, name)
            if method:
                stack.append(NULL)
            return nxt
        site.misses += 1
        return load_attr(f, stack, site, nxt)
    return CLASS_IN_PLACE.facts(load_attr_class, weakref.ref(cls), token(cls, tv), tv)


CLASS_IN_PLACE = SiteShape(lambda oparg: Shape(
    1, ["{0}.{name}", "NULL"] if oparg & 1 else ["{0}.{name}"], consts=None,
    guard="{0} is {c0}() and {c1}[0]", pure=True))


def _frame_args(info, fn, args):
    args += info.exact_call_tail
    if info.nfree:
        args += fn.__closure__
    return args


def _make_property(site, tv, t, fv, fget, info):
    tid, tview = type_guard(t)
    fview = u32_view(id(fget) + FV)          # fget is kept alive by this handler
    size = _datastack.function_framesize(fget)   # the version pins the code

    def load_attr_property(f, stack, site, nxt):
        owner = stack[-1]
        if (id(type(owner)) == tid and tview[0] == tv and fview[0] == fv
                and _datastack.has_space(f, size)):
            del stack[-1]
            if info is not None:
                callee = Frame(info, _frame_args(info, fget, [owner]), fget.__globals__,
                               fget.__builtins__, None, f, f.depth + 1)
                f.pc = nxt
                owner = None     # (the callee's frame holds it, as CPython's does)
                return _loop.enter_and_push(f, stack, callee, nxt)
            f.pc = nxt
            stack.append(fget(owner))
            return nxt
        site.misses += 1
        return load_attr(f, stack, site, nxt)
    return load_attr_property


def _make_getattribute(site, tv, t, fv, getattribute, info, name):
    tid, tview = type_guard(t)
    fview = u32_view(id(getattribute) + FV)
    size = _datastack.function_framesize(getattribute)

    def load_attr_getattribute_overridden(f, stack, site, nxt):
        owner = stack[-1]
        if (id(type(owner)) == tid and tview[0] == tv and fview[0] == fv
                and _datastack.has_space(f, size)):
            del stack[-1]
            if info is not None:
                callee = Frame(info, _frame_args(info, getattribute, [owner, name]),
                               getattribute.__globals__, getattribute.__builtins__, None, f,
                               f.depth + 1)
                f.pc = nxt
                owner = None
                return _loop.enter_and_push(f, stack, callee, nxt)
            f.pc = nxt
            stack.append(getattribute(owner, name))
            return nxt
        site.misses += 1
        return load_attr(f, stack, site, nxt)
    return load_attr_getattribute_overridden


METHOD_WITH_VALUES_IN_PLACE = SiteShape(lambda oparg: Shape(
    1, ["{c6}", "{0}"], consts=None,
    guard="type({0}) is {c0}() and {c1}[0] and {c3}[id({0})] and "
          "{c4}[0] == {c5}", pure=True))


FAMILY.inline_members = lambda oparg: (
    (INSTANCE_VALUE_IN_PLACE, METHOD_WITH_VALUES_IN_PLACE, METHOD_NO_DICT.in_place(oparg),
     SLOT_IN_PLACE, CLASS_IN_PLACE, MODULE_IN_PLACE) if oparg & 1
    else (INSTANCE_VALUE_IN_PLACE, SLOT_IN_PLACE, CLASS_IN_PLACE, MODULE_IN_PLACE,
          NONDESCRIPTOR_NO_DICT.in_place(oparg)))


def _make_method_with_values(site, tv, t, keys, kv, descr):
    tid, tview = type_guard(t)
    valid_at = facts.bytes_from(t.__basicsize__ + 3)
    kview = u32_view(keys + 12)        # the type's shared keys: read once the type matched

    name = site.arg

    def load_attr_method_with_values(f, stack, site, nxt):
        owner = stack[-1]
        if id(type(owner)) == tid and tview[0] == tv and valid_at[id(owner)] and kview[0] == kv:
            stack[-1] = descr
            stack.append(owner)
            return nxt
        site.misses += 1
        cells = site.cells
        counter = cells[site.ci]
        if counter < 16:
            specialize(site, owner)
            return site.pc
        cells[site.ci] = counter - 16
        stack[-1], self_ = load_method(owner, name)
        stack.append(self_)
        return nxt
    return METHOD_WITH_VALUES_IN_PLACE.facts(load_attr_method_with_values, weakref.ref(t),
                                             token(t, tv), tv, valid_at, kview, kv, descr)


# A method found on a class whose instances have no dict: the type version pins it.
METHOD_NO_DICT = FAMILY.member(
    "LOAD_ATTR_METHOD_NO_DICT", stack="owner -- method self", facts=("version", "cls", "descr"),
    guards=[TYPE_VERSION("owner", "version")], op=["descr", "owner"],
    serves=lambda oparg: oparg & 1, runs_code=False)


def _make_method_lazy_dict(site, tv, t, stored_offset, descr):
    tid, tview = type_guard(t)
    offset = MANAGED_DICT_OFFSET + stored_offset

    def load_attr_method_lazy_dict(f, stack, site, nxt):
        owner = stack[-1]
        if id(type(owner)) == tid and tview[0] == tv and not M64[(id(owner) + offset) >> 3]:
            stack[-1] = descr
            stack.append(owner)
            return nxt
        site.misses += 1
        return load_attr(f, stack, site, nxt)
    return load_attr_method_lazy_dict


def _make_nondescriptor_with_values(site, tv, t, keys, kv, descr):
    tid, tview = type_guard(t)
    valid_at = facts.bytes_from(t.__basicsize__ + 3)
    kview = u32_view(keys + 12)

    def load_attr_nondescriptor_with_values(f, stack, site, nxt):
        owner = stack[-1]
        if id(type(owner)) == tid and tview[0] == tv and valid_at[id(owner)] and kview[0] == kv:
            stack[-1] = descr
            return nxt
        site.misses += 1
        return load_attr(f, stack, site, nxt)
    return load_attr_nondescriptor_with_values


# A plain class value read through an instance with no dict: the type version pins it.
NONDESCRIPTOR_NO_DICT = FAMILY.member(
    "LOAD_ATTR_NONDESCRIPTOR_NO_DICT", stack="owner -- value", facts=("version", "cls", "descr"),
    guards=[TYPE_VERSION("owner", "version")], op="descr",
    serves=lambda oparg: not oparg & 1, result=None, runs_code=False)
