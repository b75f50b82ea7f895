"""Operators: unary, binary, comparisons, truth tests."""

import operator

from quickening.interp import host
from quickening.interp.masquerade import call_as
from quickening.interp.ops.registry import handles

_BINARY_OPS = host.BINARY_OPS
_COMPARE_OPS = host.COMPARE_OPS


@handles("UNARY_NEGATIVE")
def unary_negative(f, stack, arg, nxt):
    stack[-1] = -stack[-1]
    return nxt


@handles("UNARY_INVERT")
def unary_invert(f, stack, arg, nxt):
    value = stack[-1]
    if type(value) is bool:
        # ~bool warns (DeprecationWarning): let the warning name the user's line
        f.pc = nxt
        stack[-1] = call_as(f, operator.invert, (value,), None)
    else:
        stack[-1] = ~value
    return nxt


@handles("UNARY_NOT")
def unary_not(f, stack, arg, nxt):
    # the operand is always a bool in 3.13 (TO_BOOL precedes it)
    stack[-1] = not stack[-1]
    return nxt


@handles("TO_BOOL")
def to_bool(f, stack, arg, nxt):
    value = stack[-1]
    if value is not True and value is not False:
        stack[-1] = bool(value)
    return nxt


def _binary_op(info, oparg, pc, nxt):
    return _BINARY_OPS[oparg]


@handles("BINARY_OP", decode=_binary_op)
def binary_op(f, stack, arg, nxt):
    rhs = stack.pop()
    stack[-1] = arg(stack[-1], rhs)
    return nxt


def _compare_op(info, oparg, pc, nxt):
    return (_COMPARE_OPS[oparg >> 5], bool(oparg & 16))


@handles("COMPARE_OP", decode=_compare_op)
def compare_op(f, stack, arg, nxt):
    rhs = stack.pop()
    op, to_bool_ = arg
    result = op(stack[-1], rhs)
    if to_bool_ and result is not True and result is not False:
        result = bool(result)
    stack[-1] = result
    return nxt


@handles("IS_OP")
def is_op(f, stack, arg, nxt):
    rhs = stack.pop()
    stack[-1] = (stack[-1] is rhs) is not bool(arg)
    return nxt


@handles("CONTAINS_OP")
def contains_op(f, stack, arg, nxt):
    container = stack.pop()
    result = stack[-1] in container
    stack[-1] = result is not bool(arg)
    return nxt


@handles("GET_LEN")
def get_len(f, stack, arg, nxt):
    stack.append(len(stack[-1]))
    return nxt
