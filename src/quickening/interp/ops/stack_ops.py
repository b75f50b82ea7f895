"""Pure stack shuffling: NOP, POP_TOP, PUSH_NULL, COPY, SWAP, END_FOR ..."""

from quickening.interp.ops.registry import NULL, handles


@handles("NOP", "EXTENDED_ARG", "RESUME", "CACHE")
def nop(f, stack, arg, nxt):
    return nxt


@handles("POP_TOP")
def pop_top(f, stack, arg, nxt):
    del stack[-1]
    return nxt


@handles("PUSH_NULL")
def push_null(f, stack, arg, nxt):
    stack.append(NULL)
    return nxt


@handles("COPY")
def copy(f, stack, arg, nxt):
    stack.append(stack[-arg])
    return nxt


@handles("SWAP")
def swap(f, stack, arg, nxt):
    stack[-1], stack[-arg] = stack[-arg], stack[-1]
    return nxt


@handles("END_FOR")
def end_for(f, stack, arg, nxt):
    # 3.13: END_FOR pops the value left by an exhausted loop's iterator slot
    del stack[-1]
    return nxt


@handles("END_SEND")
def end_send(f, stack, arg, nxt):
    # (receiver, value -- value)
    del stack[-2]
    return nxt
