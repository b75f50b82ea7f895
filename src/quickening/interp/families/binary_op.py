"""BINARY_OP and its 8 members.

Specializes when both operands have the same exact type: `+`/`+=` on str
(INPLACE when the result is stored back into the local holding the left
operand), int and float; `*` and `-` on int and float.  Everything else fails
(other operators, mixed types, bool, subclasses, list + list).
"""

from quickening.interp import host
from quickening.interp.lowering import GENERIC, Shape
from quickening.interp.quicken import Family

FAMILY = Family("BINARY_OP", [
    "BINARY_OP_MULTIPLY_INT", "BINARY_OP_ADD_INT", "BINARY_OP_SUBTRACT_INT",
    "BINARY_OP_MULTIPLY_FLOAT", "BINARY_OP_ADD_FLOAT", "BINARY_OP_SUBTRACT_FLOAT",
    "BINARY_OP_ADD_UNICODE", "BINARY_OP_INPLACE_ADD_UNICODE",
], operands=2)

_OPS = host.BINARY_OPS
_NB = {name: i for i, (name, _) in enumerate(__import__("dis")._nb_ops)}
_ADD = (_NB["NB_ADD"], _NB["NB_INPLACE_ADD"])
_MUL = (_NB["NB_MULTIPLY"], _NB["NB_INPLACE_MULTIPLY"])
_SUB = (_NB["NB_SUBTRACT"], _NB["NB_INPLACE_SUBTRACT"])
_STORE_FAST = host.OPMAP["STORE_FAST"]


def _decode(info, oparg, pc, nxt):
    return _OPS[oparg]


@FAMILY.adaptive(decode=_decode)
def binary_op(f, stack, site, nxt):
    cells = site.cells
    counter = cells[site.ci]
    if counter < 16:
        specialize(site, f, stack)
        return site.pc
    cells[site.ci] = counter - 16
    rhs = stack.pop()
    stack[-1] = site.arg(stack[-1], rhs)
    return nxt


# -- the specializer --------------------------------------------------------------
def specialize(site, f, stack):
    lhs = stack[-2]
    rhs = stack[-1]
    oparg = site.oparg
    t = type(lhs)
    if t is type(rhs):
        if oparg in _ADD:
            if t is str:
                info = site.info
                nxt = site.nxt
                if (nxt < len(info.opcodes) and info.opcodes[nxt] == _STORE_FAST
                        and stack[info.opargs[nxt]] is lhs):
                    return site.specialize("BINARY_OP_INPLACE_ADD_UNICODE",
                                           _make_inplace_add_unicode(info.opargs[nxt]))
                return site.specialize("BINARY_OP_ADD_UNICODE", add_unicode)
            if t is int:
                return site.specialize("BINARY_OP_ADD_INT", add_int)
            if t is float:
                return site.specialize("BINARY_OP_ADD_FLOAT", add_float)
        elif oparg in _MUL:
            if t is int:
                return site.specialize("BINARY_OP_MULTIPLY_INT", multiply_int)
            if t is float:
                return site.specialize("BINARY_OP_MULTIPLY_FLOAT", multiply_float)
        elif oparg in _SUB:
            if t is int:
                return site.specialize("BINARY_OP_SUBTRACT_INT", subtract_int)
            if t is float:
                return site.specialize("BINARY_OP_SUBTRACT_FLOAT", subtract_float)
    return site.fail(failure_kind(oparg, lhs, rhs))


# pystats' failure kinds for BINARY_OP, by operator (in-place forms share them)
_KIND_BY_OPERATOR = {
    "ADD": "ADD", "AND": "AND", "FLOOR_DIVIDE": "FLOOR_DIVIDE", "LSHIFT": "LSHIFT",
    "MATRIX_MULTIPLY": "MATRIX_MULTIPLY", "MULTIPLY": "MULTIPLY", "OR": "OR", "POWER": "POWER",
    "REMAINDER": "REMAINDER", "RSHIFT": "RSHIFT", "SUBTRACT": "SUBTRACT",
    "TRUE_DIVIDE": "TRUE_DIVIDE", "XOR": "XOR",
}
_OPERATOR_OF = [name.removeprefix("NB_").removeprefix("INPLACE_") for name, _ in __import__("dis")._nb_ops]


def failure_kind(oparg, lhs, rhs):
    op = _OPERATOR_OF[oparg]
    same = type(lhs) is type(rhs)
    if op in ("FLOOR_DIVIDE", "LSHIFT", "MATRIX_MULTIPLY", "POWER", "REMAINDER", "RSHIFT"):
        return f"BINARY_OP_{op}"
    if not same:
        return f"BINARY_OP_{op}_DIFFERENT_TYPES"
    if op in ("AND", "OR", "XOR") and type(lhs) is int:
        return f"BINARY_OP_{op}_INT"
    if op == "TRUE_DIVIDE" and type(lhs) is float:
        return "BINARY_OP_TRUE_DIVIDE_FLOAT"
    return f"BINARY_OP_{op}_OTHER"


def _deopt(f, stack, site, nxt):
    site.misses += 1
    return binary_op(f, stack, site, nxt)


# -- members: guards first, then the operation ---------------------------------------
def add_int(f, stack, site, nxt):
    rhs = stack[-1]
    lhs = stack[-2]
    if type(lhs) is int and type(rhs) is int:
        del stack[-1]
        stack[-1] = lhs + rhs
        return nxt
    return _deopt(f, stack, site, nxt)


def subtract_int(f, stack, site, nxt):
    rhs = stack[-1]
    lhs = stack[-2]
    if type(lhs) is int and type(rhs) is int:
        del stack[-1]
        stack[-1] = lhs - rhs
        return nxt
    return _deopt(f, stack, site, nxt)


def multiply_int(f, stack, site, nxt):
    rhs = stack[-1]
    lhs = stack[-2]
    if type(lhs) is int and type(rhs) is int:
        del stack[-1]
        stack[-1] = lhs * rhs
        return nxt
    return _deopt(f, stack, site, nxt)


def add_float(f, stack, site, nxt):
    rhs = stack[-1]
    lhs = stack[-2]
    if type(lhs) is float and type(rhs) is float:
        del stack[-1]
        stack[-1] = lhs + rhs
        return nxt
    return _deopt(f, stack, site, nxt)


def subtract_float(f, stack, site, nxt):
    rhs = stack[-1]
    lhs = stack[-2]
    if type(lhs) is float and type(rhs) is float:
        del stack[-1]
        stack[-1] = lhs - rhs
        return nxt
    return _deopt(f, stack, site, nxt)


def multiply_float(f, stack, site, nxt):
    rhs = stack[-1]
    lhs = stack[-2]
    if type(lhs) is float and type(rhs) is float:
        del stack[-1]
        stack[-1] = lhs * rhs
        return nxt
    return _deopt(f, stack, site, nxt)


def add_unicode(f, stack, site, nxt):
    rhs = stack[-1]
    lhs = stack[-2]
    if type(lhs) is str and type(rhs) is str:
        del stack[-1]
        stack[-1] = lhs + rhs
        return nxt
    return _deopt(f, stack, site, nxt)


def _make_inplace_add_unicode(local):
    def inplace_add_unicode(f, stack, site, nxt):
        rhs = stack[-1]
        lhs = stack[-2]
        # guards: both exact str, and the target local still holds the left operand
        if type(lhs) is str and type(rhs) is str and stack[local] is lhs:
            del stack[-1]
            stack[-1] = lhs + rhs
            return nxt
        return _deopt(f, stack, site, nxt)
    return inplace_add_unicode


# -- in place in fused runs (fusion.py): each member's guard and operation ------------------
_RESULT_TYPES = {"int": int, "float": float, "str": str}   # (x op y of two of them)


def _fused(member, t, sym, opargs):
    def fuse_as(oparg):
        if oparg not in opargs:
            return None
        return Shape(2, [f"{{0}} {sym} {{1}}"], guard=f"type({{0}}) is {t} and type({{1}}) is {t}",
                     result_type=_RESULT_TYPES[t], pure=True)
    member.fuse_as = fuse_as
    return member


_INLINE = (
    _fused(add_int, "int", "+", _ADD), _fused(subtract_int, "int", "-", _SUB),
    _fused(multiply_int, "int", "*", _MUL), _fused(add_float, "float", "+", _ADD),
    _fused(subtract_float, "float", "-", _SUB), _fused(multiply_float, "float", "*", _MUL),
    _fused(add_unicode, "str", "+", _ADD))
FAMILY.inline_members = lambda oparg: _INLINE

# the base operation in place in fused runs (fusion.py); the in-place operators
# (+= ...) call their operator function, the site's arg
FAMILY.base_shape = lambda oparg, arg: (GENERIC[host.OPMAP["BINARY_OP"]](oparg, arg)
                                        or Shape(2, ["{arg}({0}, {1})"]))
