"""TO_BOOL and its 6 members.

The compiler puts TO_BOOL before every conditional jump and `not` whose
operand is not already known to be a bool.  It specializes on the operand's
type: bool -> BOOL, exact int -> INT, exact list -> LIST, None -> NONE,
exact str -> STR.  An instance of a Python class (a heap type) with neither
`__bool__` nor `__len__` is always true -> ALWAYS_TRUE, which caches the
class's type version and guards on it.  Everything else fails: float, dict,
tuple, set, bytes ... (`if 1.5:` stays TO_BOOL).
"""

from quickening.interp import facts, host
from quickening.interp.ops import arith
from quickening.interp.lowering import GENERIC, Shape, SiteShape
from quickening.interp.quicken import Family, pack32

FAMILY = Family("TO_BOOL", [
    "TO_BOOL_ALWAYS_TRUE", "TO_BOOL_BOOL", "TO_BOOL_INT", "TO_BOOL_LIST",
    "TO_BOOL_NONE", "TO_BOOL_STR",
])

_generic = arith.to_bool
_HEAPTYPE = facts.TPFLAGS_HEAPTYPE


@FAMILY.adaptive()
def to_bool(f, stack, site, nxt):
    cells = site.cells
    counter = cells[site.ci]
    if counter < 16:
        specialize(site, stack[-1])
        return site.pc
    cells[site.ci] = counter - 16
    return _generic(f, stack, site.arg, nxt)


# -- the specializer --------------------------------------------------------------
def _defines(cls, name):
    """The name is found on the class's MRO (so the matching C slot is filled)."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return True
    return False


def specialize(site, value):
    t = facts.stands_for(type(value))
    if t is bool:
        return site.specialize("TO_BOOL_BOOL", to_bool_bool)
    if t is int:
        return site.specialize("TO_BOOL_INT", to_bool_int)
    if t is list:
        return site.specialize("TO_BOOL_LIST", to_bool_list)
    if value is None:
        return site.specialize("TO_BOOL_NONE", to_bool_none)
    if t is str:
        return site.specialize("TO_BOOL_STR", to_bool_str)
    if t.__flags__ & _HEAPTYPE:
        if _defines(t, "__bool__"):
            return site.fail("TO_BOOL_NUMBER")
        if _defines(t, "__len__"):
            return site.fail("TO_BOOL_MAPPING")
        version = facts.assign_type_version(t)
        if not version:
            return site.fail("OUT_OF_VERSIONS")
        return site.specialize("TO_BOOL_ALWAYS_TRUE", _always_true(version),
                               cache=version, cells=pack32(version))
    return site.fail(_KINDS.get(t, "OTHER"))


_KINDS = {bytearray: "TO_BOOL_BYTEARRAY", bytes: "TO_BOOL_BYTES", dict: "TO_BOOL_DICT",
          float: "TO_BOOL_FLOAT", memoryview: "TO_BOOL_MEMORY_VIEW", set: "TO_BOOL_SET",
          frozenset: "TO_BOOL_SET", tuple: "TO_BOOL_TUPLE"}


def _deopt(f, stack, site, nxt):
    site.misses += 1
    return to_bool(f, stack, site, nxt)


# -- members: guards first, then the operation ---------------------------------------
def to_bool_bool(f, stack, site, nxt):
    if type(stack[-1]) is bool:
        return nxt
    return _deopt(f, stack, site, nxt)


def to_bool_int(f, stack, site, nxt):
    value = stack[-1]
    if type(value) is int:
        stack[-1] = value != 0
        return nxt
    return _deopt(f, stack, site, nxt)


def to_bool_list(f, stack, site, nxt):
    value = stack[-1]
    if type(value) is list:
        stack[-1] = len(value) > 0
        return nxt
    return _deopt(f, stack, site, nxt)


def to_bool_none(f, stack, site, nxt):
    if stack[-1] is None:
        stack[-1] = False
        return nxt
    return _deopt(f, stack, site, nxt)


def to_bool_str(f, stack, site, nxt):
    value = stack[-1]
    if type(value) is str:
        stack[-1] = len(value) > 0
        return nxt
    return _deopt(f, stack, site, nxt)


_MEM32 = facts.MEM32
_VERSION = facts.TYPE_VERSION_TAG


def _always_true(version):
    """TO_BOOL_ALWAYS_TRUE's handler for a class at this version."""
    def to_bool_always_true(f, stack, site, nxt):
        # guard: the class's version is the one cached (any change to the class,
        # e.g. adding __bool__ or __len__, gives it a new version)
        if _MEM32[(id(type(stack[-1])) + _VERSION) >> 2] == version:
            stack[-1] = True
            return nxt
        return _deopt(f, stack, site, nxt)
    return ALWAYS_TRUE_IN_PLACE.facts(to_bool_always_true, version, _MEM32)


# -- in place in fused runs (fusion.py): each member's guard and operation ------------------
_PURE = {"raises": False, "result_type": bool, "pure": True}
to_bool_bool.fuse_as = lambda oparg: Shape(1, ["{0}"], guard="type({0}) is bool", **_PURE)
to_bool_int.fuse_as = lambda oparg: Shape(1, ["{0} != 0"], guard="type({0}) is int", **_PURE)
to_bool_list.fuse_as = lambda oparg: Shape(1, ["len({0}) > 0"], guard="type({0}) is list", **_PURE)
to_bool_none.fuse_as = lambda oparg: Shape(1, ["False"], guard="{0} is None", **_PURE)
to_bool_str.fuse_as = lambda oparg: Shape(1, ["len({0}) > 0"], guard="type({0}) is str", **_PURE)
# (the class's version, {c0}, read from the type object's memory, {c1})
ALWAYS_TRUE_IN_PLACE = SiteShape(lambda oparg: Shape(
    1, ["True"], guard=f"{{c1}}[(id(type({{0}})) + {_VERSION}) >> 2] == {{c0}}", consts=None,
    **_PURE))
_INLINE = (to_bool_bool, to_bool_int, to_bool_list, to_bool_none, to_bool_str,
           ALWAYS_TRUE_IN_PLACE)
FAMILY.inline_members = lambda oparg: _INLINE

# the base operation in place in fused runs (fusion.py): the generic instruction's
FAMILY.base_shape = GENERIC[host.OPMAP["TO_BOOL"]]
