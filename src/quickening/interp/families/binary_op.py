"""BINARY_OP and its 8 members.

Specializes when both operands have the same exact type: `+`/`+=` on str
(INPLACE when the result is stored back into the local holding the left
operand), int and float; `*` and `-` on int and float.  Everything else fails
(other operators, mixed types, bool, subclasses, list + list).
"""

import dis

from quickening.interp import host
from quickening.interp.lowering import GENERIC, Shape
from quickening.interp.ops import arith
from quickening.interp.spec import EXACT_TYPE, Family, Guard


def specialize(site, lhs, rhs, frame_locals):
    """bytecodes.c's _Py_Specialize_BinaryOp."""
    oparg = site.oparg
    t = type(lhs)
    if t is type(rhs):
        member = _BY_OPARG_AND_TYPE.get((oparg, t))
        if member is ADD_UNICODE:
            # stored back into the local holding the left operand: appended in place
            info = site.info
            nxt = site.nxt
            if (nxt < len(info.opcodes) and info.opcodes[nxt] == _STORE_FAST
                    and frame_locals[info.opargs[nxt]] is lhs):
                return site.specialize(INPLACE_ADD_UNICODE, local=info.opargs[nxt])
        if member is not None:
            return site.specialize(member)
    return site.fail(failure_kind(oparg, lhs, rhs))


_NB = {name: i for i, (name, _) in enumerate(dis._nb_ops)}
_ADD = (_NB["NB_ADD"], _NB["NB_INPLACE_ADD"])
_MUL = (_NB["NB_MULTIPLY"], _NB["NB_INPLACE_MULTIPLY"])
_SUB = (_NB["NB_SUBTRACT"], _NB["NB_INPLACE_SUBTRACT"])
_STORE_FAST = host.OPMAP["STORE_FAST"]


# pystats' failure kinds for BINARY_OP, by operator (in-place forms share them)
_KIND_BY_OPERATOR = {
    "ADD": "ADD", "AND": "AND", "FLOOR_DIVIDE": "FLOOR_DIVIDE", "LSHIFT": "LSHIFT",
    "MATRIX_MULTIPLY": "MATRIX_MULTIPLY", "MULTIPLY": "MULTIPLY", "OR": "OR", "POWER": "POWER",
    "REMAINDER": "REMAINDER", "RSHIFT": "RSHIFT", "SUBTRACT": "SUBTRACT",
    "TRUE_DIVIDE": "TRUE_DIVIDE", "XOR": "XOR",
}
_OPERATOR_OF = [name.removeprefix("NB_").removeprefix("INPLACE_") for name, _ in dis._nb_ops]


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



BINARY_OP = FAMILY = Family("BINARY_OP", operands="lhs rhs", generic=arith.binary_op,
                            specializer=specialize, locals=True)


# -- members: guards first, then the operation ---------------------------------------
_BY_OPARG_AND_TYPE = {}     # (oparg, the operands' type) -> the member


def _arithmetic(name, t, symbol, opargs):
    member = BINARY_OP.member(
        name, stack="left right -- res",
        guards=[EXACT_TYPE("left", t), EXACT_TYPE("right", t)],
        op=f"left {symbol} right", serves=lambda oparg: oparg in opargs,
        result=t, runs_code=False)
    _BY_OPARG_AND_TYPE.update(((oparg, t), member) for oparg in opargs)
    return member


MULTIPLY_INT = _arithmetic("BINARY_OP_MULTIPLY_INT", int, "*", _MUL)
ADD_INT = _arithmetic("BINARY_OP_ADD_INT", int, "+", _ADD)
SUBTRACT_INT = _arithmetic("BINARY_OP_SUBTRACT_INT", int, "-", _SUB)
MULTIPLY_FLOAT = _arithmetic("BINARY_OP_MULTIPLY_FLOAT", float, "*", _MUL)
ADD_FLOAT = _arithmetic("BINARY_OP_ADD_FLOAT", float, "+", _ADD)
SUBTRACT_FLOAT = _arithmetic("BINARY_OP_SUBTRACT_FLOAT", float, "-", _SUB)
ADD_UNICODE = _arithmetic("BINARY_OP_ADD_UNICODE", str, "+", _ADD)

# the target local still holds the left operand (the result is stored back there)
LOCAL_HOLDS = Guard("LOCAL_HOLDS", "stack[{local}] is {x}",
                    "the local the result is stored to still holds x")
INPLACE_ADD_UNICODE = BINARY_OP.member(
    "BINARY_OP_INPLACE_ADD_UNICODE", stack="left right -- res",
    guards=[EXACT_TYPE("left", str), EXACT_TYPE("right", str), LOCAL_HOLDS("local", "left")],
    op="left + right", facts=("local",), serves=lambda oparg: oparg in _ADD, in_place=False,
    result=str,
    runs_code=False)

# the base operation in place in fused runs (fusion.py); the in-place operators
# (+= ...) call their operator function, the site's arg
BINARY_OP.base_shape = lambda oparg, arg: (GENERIC[host.OPMAP["BINARY_OP"]](oparg, arg)
                                           or Shape(2, ["{arg}({0}, {1})"]))
