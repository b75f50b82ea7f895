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
from quickening.interp.families._datastack import STACK_SPACE
from quickening.interp import codeinfo as _codeinfo
from quickening.interp.frame import Frame
from quickening.interp.lowering import Shape, SiteShape, source_attribute
from quickening.interp.ops.registry import NULL
from quickening.interp.spec import FUNCTION_VERSION, TYPE_VERSION, Family, Guard, Hand
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

# (assigned, not imported: CPython 3.13 compiles a method call on a name an import
# binds without its method form, which the host cannot specialize -- test_layers.py)
TRAMPOLINES = _codeinfo.TRAMPOLINES

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


def member_slot(descr, t, refused_flag, refusal):
    """(type, offset, None) of an object member slot t can hold, or (.., .., the failure
    kind): its descriptor's class must be in t's MRO, the slot without refused_flag
    and within a 16-bit cell."""
    mtype, offset, mflags = facts.member_def(descr)
    if not type.__subclasscheck__(descr.__objclass__, t):
        return mtype, offset, "EXPECTED_ERROR"
    if mflags & refused_flag:
        return mtype, offset, refusal
    return mtype, offset, "OUT_OF_RANGE" if offset > 0xFFFF else None


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


def specialize_dict_access(site, owner, t, name, version, values_member, hint_member):
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
        basicsize = t.__basicsize__
        return _specialize(site, values_member, version=version, cls=t, index=index, name=name,
                           valid_offset=basicsize + 3, offset=basicsize + 8 + 8 * index,
                           plain=facts.type_getattro(t) == GENERIC_GETATTR,
                           memo=(owner, "values"))
    status, index = managed_dict_lookup(owner, name)
    if status is not None:
        return site.fail(status)
    return _specialize(site, hint_member, version=version, cls=t, hint=index, name=name,
                       name_id=id(name))


def _specialize(site, member, cache=None, memo=None, **facts):
    """Rewrite the site into the declared member with these facts (its handler and
    cache cells come from them); with memo=(owner, check), remember it for the
    owner's type (see MEMO)."""
    handler, written = member.handler(site.oparg, **facts), member.written(facts)
    if memo is not None:
        owner, check = memo
        t = type(owner)
        key = (site.family, site.arg, site.oparg & 1 if site.family is FAMILY else 0,
               facts["version"], M64[(id(t) + GETATTRO) >> 3])
        if len(MEMO) >= MEMO_LIMIT:
            MEMO.clear()
        MEMO[key] = (check, member.name, handler, written, cache)
    site.specialize(member.name, handler, cache, written=written)


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
        return specialize_dict_access(site, owner, t, name, version, INSTANCE_VALUE, WITH_HINT)
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
        return specialize_frame_push(site, t, version, fget, 1, PROPERTY_GETTER)
    if kind is OBJECT_SLOT:
        mtype, offset, refusal = member_slot(descr, t, facts.AUDIT_READ, "ATTR_AUDITED_SLOT")
        if refusal:
            return site.fail(refusal)
        plain = mtype == facts.T_OBJECT_EX and facts.type_getattro(t) == GENERIC_GETATTR
        return _specialize(site, SLOT, version=version, cls=t, index=offset, name=name,
                           plain=plain)
    if kind is DUNDER_CLASS:
        return _specialize(site, SLOT, version=version, cls=t, index=8, name=name, plain=True)
    if kind is GETATTRIBUTE_IS_PYTHON_FUNCTION:
        return specialize_frame_push(site, t, version, descr, 2, GETATTRIBUTE_OVERRIDDEN)
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
    return _specialize(site, MODULE, keys_version=kv, index=index, value_index=value_addr >> 3,
                       name=name)


def specialize_class(site, owner, name, method):
    if type(owner) is not type or _type_lookup(type, name, NULL) is not NULL:
        return site.fail("ATTR_METACLASS_ATTRIBUTE")
    kind, descr = analyze_descriptor(owner, name, False)
    version = facts.type_version(owner)
    if version == 0:
        return site.fail("OUT_OF_VERSIONS")
    if kind is METHOD or kind is NON_DESCRIPTOR:
        return _specialize(site, CLASS, version=version, cls=owner, descr=descr, name=name)
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
    frame = dict(version=version, cls=t, func_version=fv, seen=fn, info=info,
                 size=_datastack.function_framesize(fn))    # (the version pins the code)
    if member is PROPERTY_GETTER:
        return _specialize(site, PROPERTY_GETTER, cache=fn, fget=fn, **frame)
    return _specialize(site, GETATTRIBUTE_OVERRIDDEN, cache=fn, getattribute=fn, name=site.arg,
                       **frame)


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
        member = METHOD_WITH_VALUES if is_method else NONDESCRIPTOR_WITH_VALUES
        return _specialize(site, member, cache=descr, version=version, cls=t,
                           valid_offset=t.__basicsize__ + 3, keys=keys, keys_version=kv,
                           descr=descr, memo=(owner, (keys, kv)))
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
        return _specialize(site, METHOD_LAZY_DICT, cache=descr, version=version, cls=t,
                           dictoffset=dictoffset - MANAGED_DICT_OFFSET, dict_at=dictoffset,
                           descr=descr)
    return site.fail("ATTR_CLASS_ATTR_SIMPLE")


# -- members: guards first, then the operation; a failed guard deopts --------------------------
#
# Each member's guards are bytecodes.c's, by name; their general lowering reads the
# objects' memory, and the handler and fused runs use the cheap lowering where a
# guard has one (tests/interp/test_spec.py: both answer alike).  The operation is
# getattr (o.name in fused runs): once the guards passed it finds what CPython's
# member reads, without running code of the program.  In the method-call form
# (oparg & 1) a plain member pushes NULL after the value.

# the base instruction's operation, in place in fused runs ({arg}: the name)
def _base_shape(oparg, name):
    """The base instruction's operation, in place in fused runs ({arg}: the name)."""
    if oparg & 1:
        return Shape(1, ["{r0}", "{r1}"], consts=(load_method,),
                     effects=["{r0}, {r1} = {c0}({0}, {arg})"])
    attr = source_attribute(name)
    return Shape(1, [f"{{0}}.{attr}" if attr else "getattr({0}, {arg})"])


FAMILY.base_shape = _base_shape


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


def _value(oparg):
    return ["getattr(owner, name)", "NULL"] if oparg & 1 else "getattr(owner, name)"


# _CHECK_MANAGED_OBJECT_HAS_VALUES / _GUARD_DORV_VALUES...: the `valid` byte of the
# object's inline values, at a fixed offset for the type (its basic size + 3)
INLINE_VALUES = Guard("INLINE_VALUES", "MEM8[id({x}) + {valid_offset}]",
                      "x's inline values are valid (no dict has taken them over)",
                      needs={"MEM8": M8})
INLINE_VALUES.lowered("{valid_at}[id({x})]",
                      lambda valid_offset, **_: {"valid_at": facts.bytes_from(valid_offset)},
                      consumes=("valid_offset",))
# _LOAD_ATTR_INSTANCE_VALUE's and _LOAD_ATTR_SLOT's DEOPT_IF(attr == NULL)
NOT_NULL_AT = Guard("NOT_NULL_AT", "MEM64[(id({x}) + {offset}) >> 3]",
                    "the object pointer at offset in x (a value, a slot) is not NULL",
                    needs={"MEM64": M64})
# _CHECK_ATTR_WITH_HINT and _LOAD_ATTR_WITH_HINT's checks
DICT_HINT = Guard("DICT_HINT", "hint_entry_ok({x}, {hint}, {name_id})",
                  "x has a dict, whose entry at hint is the name with a value",
                  needs={"hint_entry_ok": hint_entry_ok})
# _CHECK_ATTR_MODULE, _LOAD_ATTR_MODULE: a keys version belongs to one keys object,
# so a match pins the entry's address too
MODULE_KEYS_VERSION = Guard(
    "MODULE_KEYS_VERSION",
    "type({x}) is ModuleType and MEM32[(MEM64[(MEM64[(id({x}) + MODULE_DICT) >> 3] + DICT_KEYS)"
    " >> 3] + KEYS_VERSION) >> 2] == {keys_version}",
    "x is a module whose dict's keys have the cached version",
    needs={"ModuleType": ModuleType, "MEM32": M32, "MEM64": M64, "MODULE_DICT": MODULE_DICT,
           "DICT_KEYS": DICT_KEYS, "KEYS_VERSION": KEYS_VERSION})
VALUE_AT = Guard("VALUE_AT", "MEM64[{value_index}]",
                 "the dict entry's value (at address value_index * 8) is not NULL",
                 needs={"MEM64": M64})
# _CHECK_ATTR_CLASS: the class itself, its metaclass exactly `type` (which cannot
# change: a class's __class__ cannot be assigned)
CLASS_VERSION = Guard("CLASS_VERSION",
                      "isinstance({x}, type) and MEM32[(id({x}) + TP_VERSION_TAG) >> 2] == {version}",
                      "x is a class whose version tag is the cached version",
                      needs={"MEM32": M32, "TP_VERSION_TAG": TV})
CLASS_VERSION.lowered("{x} is {cls_ref}() and {token}[0]",
                      lambda version, cls, **_: {"cls_ref": weakref.ref(cls),
                                                 "token": token(cls, version)},
                      consumes=("cls",))
# _GUARD_KEYS_VERSION: the shared keys of type(owner), pinned by its type version
KEYS_VERSION_IS = Guard("KEYS_VERSION", "MEM32[({keys} + KEYS_VERSION) >> 2] == {keys_version}",
                        "the type's shared keys have the cached version (no new name)",
                        needs={"MEM32": M32, "KEYS_VERSION": KEYS_VERSION})
KEYS_VERSION_IS.lowered("{kview}[0] == {keys_version}",
                        lambda keys, **_: {"kview": u32_view(keys + KEYS_VERSION)},
                        consumes=("keys",))
# _CHECK_ATTR_METHOD_LAZY_DICT
NO_DICT_AT = Guard("NO_DICT_AT", "not MEM64[(id({x}) + {dict_at}) >> 3]",
                   "x has no dict yet (the pointer at dict_at is NULL)", needs={"MEM64": M64})


def u32_view(addr):
    return M8[addr:addr + 4].cast("I")


INSTANCE_VALUE = FAMILY.member(
    "LOAD_ATTR_INSTANCE_VALUE", stack="owner -- attr", cache="version/2 index/1",
    facts=("version", "cls", "index", "name", "valid_offset", "offset", "plain"),
    guards=[TYPE_VERSION("owner", "version"), INLINE_VALUES("owner", "valid_offset"),
            # without __getattr__, getattr raises AttributeError for a NULL value
            # slot, and only then (the type version unchanged): the check is free
            NOT_NULL_AT("owner", "offset").or_raises("AttributeError", where="plain")],
    op=_value, attribute="name", uses={"NULL": NULL}, runs_code=False)
WITH_HINT = FAMILY.member(
    "LOAD_ATTR_WITH_HINT", stack="owner -- attr", cache="version/2 hint/1",
    facts=("version", "cls", "hint", "name", "name_id"),
    guards=[TYPE_VERSION("owner", "version"), DICT_HINT("owner", "hint", "name_id")],
    op=_value, attribute="name", uses={"NULL": NULL}, runs_code=False)
SLOT = FAMILY.member(
    "LOAD_ATTR_SLOT", stack="owner -- attr", cache="version/2 index/1",
    facts=("version", "cls", "index", "name", "plain"),
    guards=[TYPE_VERSION("owner", "version"),
            # (a NULL Py_T_OBJECT_EX slot makes getattr raise AttributeError; __class__
            # is never NULL)
            NOT_NULL_AT("owner", "index").or_raises("AttributeError", where="plain")],
    op=_value, attribute="name", uses={"NULL": NULL}, runs_code=False)
MODULE = FAMILY.member(
    "LOAD_ATTR_MODULE", stack="owner -- attr", cache="keys_version/2 index/1",
    facts=("keys_version", "index", "value_index", "name"),
    guards=[MODULE_KEYS_VERSION("owner", "keys_version"), VALUE_AT("value_index")],
    op=_value, attribute="name", uses={"NULL": NULL}, runs_code=False)
# (CPython's cache borrows the attribute: while the version holds, the class's
# lookup of the name gives exactly it, a function's __get__ without an instance
# being the function)
CLASS = FAMILY.member(
    "LOAD_ATTR_CLASS", stack="owner -- attr", cache="version/2 unused/2 descr/4",
    facts=("version", "cls", "descr", "name"),
    guards=[CLASS_VERSION("owner", "version")],
    op=_value, attribute="name", uses={"NULL": NULL}, runs_code=False)


def _class_attribute_with_values(name, stack, op, **declaration):
    """METHOD_WITH_VALUES / NONDESCRIPTOR_WITH_VALUES: a class attribute read through
    an instance with inline values, whose shared keys do not shadow it."""
    return FAMILY.member(
        name, stack=stack, cache="version/2 keys_version/2 descr/4",
        facts=("version", "cls", "valid_offset", "keys", "keys_version", "descr"),
        guards=[TYPE_VERSION("owner", "version"), INLINE_VALUES("owner", "valid_offset"),
                KEYS_VERSION_IS("keys", "keys_version")],
        op=op, runs_code=False, **declaration)


METHOD_WITH_VALUES = _class_attribute_with_values(
    "LOAD_ATTR_METHOD_WITH_VALUES", "owner -- method self", ["descr", "owner"],
    serves=lambda oparg: oparg & 1)
# A method found on a class whose instances have no dict: the type version pins it.
METHOD_NO_DICT = FAMILY.member(
    "LOAD_ATTR_METHOD_NO_DICT", stack="owner -- method self", cache="version/2 unused/2 descr/4",
    facts=("version", "cls", "descr"),
    guards=[TYPE_VERSION("owner", "version")], op=["descr", "owner"],
    serves=lambda oparg: oparg & 1, runs_code=False)
METHOD_LAZY_DICT = FAMILY.member(
    "LOAD_ATTR_METHOD_LAZY_DICT", stack="owner -- method self",
    cache="version/2 dictoffset/1 unused/1 descr/4",
    facts=("version", "cls", "dictoffset", "dict_at", "descr"),
    guards=[TYPE_VERSION("owner", "version"), NO_DICT_AT("owner", "dict_at")],
    op=["descr", "owner"], serves=lambda oparg: oparg & 1, in_place=False, runs_code=False)
NONDESCRIPTOR_WITH_VALUES = _class_attribute_with_values(
    "LOAD_ATTR_NONDESCRIPTOR_WITH_VALUES", "owner -- value", "descr",
    serves=lambda oparg: not oparg & 1, in_place=False)
# A plain class value read through an instance with no dict: the type version pins it.
NONDESCRIPTOR_NO_DICT = FAMILY.member(
    "LOAD_ATTR_NONDESCRIPTOR_NO_DICT", stack="owner -- value", cache="version/2 unused/2 descr/4",
    facts=("version", "cls", "descr"),
    guards=[TYPE_VERSION("owner", "version")], op="descr",
    serves=lambda oparg: not oparg & 1, runs_code=False)


# PROPERTY and GETATTRIBUTE_OVERRIDDEN push the frame of a Python function (the
# property's getter, the class's __getattribute__) with the owner (and the name).
def _push_frame(f, stack, nxt, fn, info, args):
    f.pc = nxt
    if info is None:                      # (a generator function: called)
        stack.append(fn(*args))
        return nxt
    args += info.exact_call_tail
    if info.nfree:
        args += fn.__closure__
    callee = Frame(info, args, fn.__globals__, fn.__builtins__, None, f, f.depth + 1)
    return _loop.enter_and_push(f, stack, callee, nxt)


# (the owner is taken from the stack: the callee's frame alone holds it, as CPython's)
def push_property_frame(f, stack, site, nxt, fget, info):
    return _push_frame(f, stack, nxt, fget, info, [stack.pop()])


def push_getattribute_frame(f, stack, site, nxt, getattribute, info, name):
    return _push_frame(f, stack, nxt, getattribute, info, [stack.pop(), name])


PROPERTY_GETTER = FAMILY.member(
    "LOAD_ATTR_PROPERTY", stack="owner -- attr", cache="version/2 func_version/2 fget/4",
    facts=("version", "cls", "func_version", "seen", "fget", "size", "info"),
    guards=[TYPE_VERSION("owner", "version"), FUNCTION_VERSION("fget", "func_version"),
            STACK_SPACE("size")],
    op=Hand(push_property_frame), serves=lambda oparg: not oparg & 1)
GETATTRIBUTE_OVERRIDDEN = FAMILY.member(
    "LOAD_ATTR_GETATTRIBUTE_OVERRIDDEN", stack="owner -- attr",
    cache="version/2 func_version/2 getattribute/4",
    facts=("version", "cls", "func_version", "seen", "getattribute", "size", "info", "name"),
    guards=[TYPE_VERSION("owner", "version"), FUNCTION_VERSION("getattribute", "func_version"),
            STACK_SPACE("size")],
    op=Hand(push_getattribute_frame), serves=lambda oparg: not oparg & 1)
