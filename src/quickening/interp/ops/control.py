"""Jumps, loops, returns and yields."""

# (YIELD: named by the handlers statement_handlers makes)
from quickening.interp.ops.registry import (NULL, RETURN, YIELD, backward, const,  # noqa: F401
                                            forward, handles, statement_handlers)


@handles("JUMP_FORWARD", decode=forward)
def jump_forward(f, stack, arg, nxt):
    return arg


@handles("JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", decode=backward)
def jump_backward(f, stack, arg, nxt):
    return arg


@handles("POP_JUMP_IF_TRUE", decode=forward)
def pop_jump_if_true(f, stack, arg, nxt):
    if stack.pop():
        return arg
    return nxt


@handles("POP_JUMP_IF_FALSE", decode=forward)
def pop_jump_if_false(f, stack, arg, nxt):
    if stack.pop():
        return nxt
    return arg


@handles("POP_JUMP_IF_NONE", decode=forward)
def pop_jump_if_none(f, stack, arg, nxt):
    if stack.pop() is None:
        return arg
    return nxt


@handles("POP_JUMP_IF_NOT_NONE", decode=forward)
def pop_jump_if_not_none(f, stack, arg, nxt):
    if stack.pop() is None:
        return nxt
    return arg


@handles("GET_ITER")
def get_iter(f, stack, arg, nxt):
    stack[-1] = iter(stack[-1])
    return nxt


def _for_iter_exit(info, oparg, pc, nxt):
    # an exhausted iterator skips the END_FOR and POP_TOP at the target
    return nxt + oparg + 2


@handles("FOR_ITER", decode=_for_iter_exit)
def for_iter(f, stack, arg, nxt):
    value = next(stack[-1], NULL)
    if value is NULL:
        del stack[-1]
        return arg
    stack.append(value)
    return nxt


@handles("RETURN_CONST", decode=const)
def return_const(f, stack, arg, nxt):
    f.retval = arg
    return RETURN


statement_handlers(globals(), {
    "RETURN_VALUE": "f.retval = stack.pop(); return RETURN",
    "YIELD_VALUE": "f.retval = stack.pop(); f.pc = nxt; return YIELD",
    # The generator object already exists (generators.wrap) and its frame is
    # started by the first send(None): resume as if that None had arrived.
    "RETURN_GENERATOR": "stack.append(None)",
    "INTERPRETER_EXIT": "f.retval = stack.pop(); return RETURN",
})
