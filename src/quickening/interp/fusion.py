"""Fused runs: a stretch of simple instructions executed as one Python call.

Most instructions of a hot loop only move references: LOAD_FAST,
STORE_FAST, LOAD_CONST, COPY, POP_TOP, jumps.  Dispatching each costs a loop
turn and a call that are far dearer than the work.  When a code object is
decoded, every maximal run of such instructions becomes one generated
function, installed at the run's first instruction, that does the run's
stack work with Python locals and then executes the instruction after the
run through the instruction table, so its current handler -- a site's
specialized member, its base form, or a generic handler -- runs exactly as
if the loop had dispatched it; when that instruction falls through, the
function goes on with the simple instructions after it, and so on to the
next jump or return.

Only the run's first entry changes.  The instructions inside keep their own
entries (a jump into the middle of a run, or a frame resuming there, runs
them one by one), tracing executes the original entries (kept in the fused
entry's argument), and an exception raised by an instruction executed
through the table is reported at its own instruction through
`frame.raised_at`.  None of the simple
instructions can raise.

Generated functions are cached by their source text: runs of the same shape
in different code objects share one compiled function, their constants and
instruction indexes being default arguments.
"""

import os

from quickening.interp import host
from quickening.interp.ops.registry import NULL, RETURN

_OP = host.OPMAP
LOAD_FAST, LOAD_CONST, STORE_FAST = _OP["LOAD_FAST"], _OP["LOAD_CONST"], _OP["STORE_FAST"]
LOAD_FAST_LOAD_FAST = _OP["LOAD_FAST_LOAD_FAST"]
STORE_FAST_LOAD_FAST = _OP["STORE_FAST_LOAD_FAST"]
STORE_FAST_STORE_FAST = _OP["STORE_FAST_STORE_FAST"]
LOAD_FAST_AND_CLEAR = _OP["LOAD_FAST_AND_CLEAR"]
POP_TOP, PUSH_NULL, COPY, SWAP = _OP["POP_TOP"], _OP["PUSH_NULL"], _OP["COPY"], _OP["SWAP"]
NOP, END_FOR, IS_OP, UNARY_NOT = _OP["NOP"], _OP["END_FOR"], _OP["IS_OP"], _OP["UNARY_NOT"]
JUMP_FORWARD, JUMP_BACKWARD = _OP["JUMP_FORWARD"], _OP["JUMP_BACKWARD"]
JUMP_BACKWARD_NO_INTERRUPT = _OP["JUMP_BACKWARD_NO_INTERRUPT"]
POP_JUMP_IF_TRUE, POP_JUMP_IF_FALSE = _OP["POP_JUMP_IF_TRUE"], _OP["POP_JUMP_IF_FALSE"]
POP_JUMP_IF_NONE, POP_JUMP_IF_NOT_NONE = _OP["POP_JUMP_IF_NONE"], _OP["POP_JUMP_IF_NOT_NONE"]
RETURN_VALUE, RETURN_CONST = _OP["RETURN_VALUE"], _OP["RETURN_CONST"]

# instructions a run can hold: none of them raises or looks at the frame
SIMPLE = frozenset({LOAD_FAST, LOAD_CONST, STORE_FAST, LOAD_FAST_LOAD_FAST, STORE_FAST_LOAD_FAST,
                    STORE_FAST_STORE_FAST, LOAD_FAST_AND_CLEAR, POP_TOP, PUSH_NULL, COPY, SWAP,
                    NOP, END_FOR, IS_OP, UNARY_NOT})
# instructions that end a run (no tail after them)
_JUMPS = frozenset({JUMP_FORWARD, JUMP_BACKWARD, JUMP_BACKWARD_NO_INTERRUPT})
_BRANCHES = {POP_JUMP_IF_TRUE: "if {v}:", POP_JUMP_IF_FALSE: "if not {v}:",
             POP_JUMP_IF_NONE: "if {v} is None:", POP_JUMP_IF_NOT_NONE: "if {v} is not None:"}
_RETURNS = frozenset({RETURN_VALUE, RETURN_CONST})
TERMINATORS = _JUMPS | frozenset(_BRANCHES) | _RETURNS

# generated code carries a file name inside the package: tracebacks drop it
FILENAME = os.path.join(os.path.dirname(os.path.abspath(__file__)), "<fused run>")
_NAMESPACE = {"NULL": NULL, "RETURN": RETURN}
_TEMPLATES = {}     # source text -> compiled template function


class _Run:
    """Source for one run, simulating the value stack with Python locals."""

    def __init__(self):
        self.lines = []
        self.pending = []      # values pushed by the run, not yet on the list (names)
        self.params = []       # default arguments: (name, value)
        self.ntemps = 0
        self.ndispatched = 0

    def emit(self, line):
        self.lines.append(line)

    def temp(self, expr):
        name = f"t{self.ntemps}"
        self.ntemps += 1
        self.emit(f"{name} = {expr}")
        return name

    def const(self, value):
        name = f"k{len(self.params)}"
        self.params.append((name, value))
        return name

    def push(self, name):
        self.pending.append(name)

    def pop(self):
        if self.pending:
            return self.pending.pop()
        return self.temp("stack.pop()")

    def flush(self):
        """Put the pending values on the real stack."""
        p = self.pending
        if len(p) == 1:
            self.emit(f"stack.append({p[0]})")
        elif p:
            self.emit(f"stack += ({', '.join(p)},)")
        self.pending = []

    def store(self, index, value):
        self.emit(f"stack[{index}] = {value}")

    def load(self, index):
        return self.temp(f"stack[{index}]")

    def peek(self, depth):
        """Name or expression of the value `depth` from the top (1 = top)."""
        p = self.pending
        if depth <= len(p):
            return p[-depth]
        return self.temp(f"stack[-{depth - len(p)}]")


def _simple(run, op, oparg, arg):
    if op == LOAD_FAST:
        run.push(run.load(oparg))
    elif op == LOAD_CONST:
        run.push(run.const(arg))
    elif op == STORE_FAST:
        run.store(oparg, run.pop())
    elif op == LOAD_FAST_LOAD_FAST:
        run.push(run.load(oparg >> 4))
        run.push(run.load(oparg & 15))
    elif op == STORE_FAST_LOAD_FAST:
        run.store(oparg >> 4, run.pop())
        run.push(run.load(oparg & 15))
    elif op == STORE_FAST_STORE_FAST:
        run.store(oparg >> 4, run.pop())
        run.store(oparg & 15, run.pop())
    elif op == LOAD_FAST_AND_CLEAR:
        run.push(run.load(oparg))
        run.store(oparg, "NULL")
    elif op in (POP_TOP, END_FOR):
        if run.pending:
            run.pending.pop()
        else:
            run.emit("del stack[-1]")
    elif op == PUSH_NULL:
        run.push("NULL")
    elif op == COPY:
        run.push(run.peek(oparg))
    elif op == SWAP:
        if oparg <= len(run.pending):
            p = run.pending
            p[-1], p[-oparg] = p[-oparg], p[-1]
        else:
            run.flush()
            run.emit(f"stack[-1], stack[-{oparg}] = stack[-{oparg}], stack[-1]")
    elif op == IS_OP:
        rhs = run.pop()
        lhs = run.pop()
        run.push(run.temp(f"{lhs} is {'not ' if oparg else ''}{rhs}"))
    elif op == UNARY_NOT:
        run.push(run.temp(f"not {run.pop()}"))
    elif op != NOP:
        raise AssertionError(op)


def _terminate(run, op, arg, nxt):
    if op in _JUMPS:
        run.flush()
        run.emit(f"return {arg}")
    elif op in _BRANCHES:
        value = run.pop()
        run.flush()
        run.emit(_BRANCHES[op].format(v=value))
        run.emit(f"    return {arg}")
        run.emit(f"return {nxt}")
    elif op == RETURN_VALUE:
        value = run.pop()
        run.flush()
        run.emit(f"f.retval = {value}")
        run.emit("return RETURN")
    else:   # RETURN_CONST
        run.flush()
        run.emit(f"f.retval = {run.const(arg)}")
        run.emit("return RETURN")


def _dispatch(run, pc, last):
    """Execute instruction pc through the table (its handler may change as the site adapts)."""
    run.flush()
    slot = f"_d{run.ndispatched}"
    run.ndispatched += 1
    run.params.append((slot, pc))
    run.emit(f"at = {slot}")     # read by frameview (f_lineno of a running frame)
    run.emit("h, a, n = _instrs[at]")
    run.emit("try:")
    run.emit(f"    {'return' if last else 'pc ='} h(f, stack, a, n)")
    run.emit("except BaseException:")
    run.emit("    if f.raised_at < 0:")
    run.emit("        f.raised_at = at")
    run.emit("    raise")
    if not last:
        # anything but falling through (a jump, a call, a return, a re-dispatch
        # after specializing) goes back to the loop
        run.emit("if pc != n:")
        run.emit("    return pc")


def _build(run, instrs):
    params = ", ".join(["f", "stack", "arg", "nxt", "_instrs"] + [p for p, _ in run.params])
    body = "\n".join("    " + line for line in run.lines)
    source = f"def fused({params}):\n{body}\n"
    template = _TEMPLATES.get(source)
    if template is None:
        ns = dict(_NAMESPACE)
        exec(compile(source, FILENAME, "exec"), ns)
        template = _TEMPLATES[source] = ns["fused"]
    fn = template.__class__(template.__code__, template.__globals__, "fused")
    fn.__defaults__ = (instrs,) + tuple(v for _, v in run.params)
    return fn


MAX_DISPATCHED = 6    # instructions executed through the table per fused function


def fuse(info):
    """Install a fused function at the start of every run of simple instructions.

    The function goes on past the run: through each following instruction
    that is not simple (executed through the table) and the simple ones after
    it, until a jump or a return, or MAX_DISPATCHED such instructions.
    """
    instrs = info.instrs
    opcodes = info.opcodes
    opargs = info.opargs
    starts = info.starts
    n = len(starts)
    i = 0
    while i < n:
        pc = starts[i]
        if opcodes[pc] not in SIMPLE:
            i += 1
            continue
        run = _Run()
        count = dispatched = 0
        j = i
        ended = False
        while j < n:
            p = starts[j]
            op = opcodes[p]
            j += 1
            count += 1
            if op in SIMPLE:
                _simple(run, op, opargs[p], instrs[p][1])
            elif op in TERMINATORS:
                _, arg, nxt = instrs[p]
                _terminate(run, op, arg, nxt)
                ended = True
                break
            else:
                dispatched += 1
                last = dispatched == MAX_DISPATCHED or j == n
                _dispatch(run, p, last)
                if last:
                    ended = True
                    break
        if ended and count >= 2:
            instrs[pc] = (_build(run, instrs), instrs[pc], None)
        # the next run starts after this one's simple instructions
        i += 1
        while i < n and opcodes[starts[i]] in SIMPLE:
            i += 1
