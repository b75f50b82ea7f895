"""Pure stack shuffling: NOP, POP_TOP, PUSH_NULL, COPY, SWAP, END_FOR ..."""

# (NULL: named by the handlers statement_handlers makes)
from quickening.interp.ops.registry import NULL, handles, statement_handlers  # noqa: F401


@handles("NOP", "EXTENDED_ARG", "RESUME", "CACHE")
def nop(f, stack, arg, nxt):
    return nxt


statement_handlers(globals(), {
    "POP_TOP": "del stack[-1]",
    "PUSH_NULL": "stack.append(NULL)",
    "COPY": "stack.append(stack[-arg])",
    "SWAP": "stack[-1], stack[-arg] = stack[-arg], stack[-1]",
    # 3.13: END_FOR pops the value left by an exhausted loop's iterator slot
    "END_FOR": "del stack[-1]",
    "END_SEND": "del stack[-2]",      # (receiver, value -- value)
})
