"""Fused runs: the instructions from an entry point on, in one Python call.

Most instructions of a hot loop only move references (LOAD_FAST,
STORE_FAST, LOAD_CONST, COPY, POP_TOP, jumps) or do one C-level operation;
dispatching each costs a loop turn and a call that are dearer than the work.
Once a code object is warm (see HOT), every point the loop can be asked to
dispatch (the first instruction, jump and handler targets, the instruction
after each one that is not simple) gets a generated function that runs from
there on: through both sides of each conditional branch (as an if/else) and
forward jumps, until each path returns, goes round its loop again or reaches
an instruction another path also reaches (where it leaves for the loop: see
_path):

  * simple instructions become assignments between Python locals standing
    for the value stack;
  * a generic instruction whose handler never changes runs in place (GENERIC
    shapes);
  * a site runs in place the member it holds when that member has a shape
    (the member's guard and operation, declared beside it in its family
    module), and on a miss its family's base operation, counting down;
    else it runs through `info.plain` (for a site fixed to its form, by
    leaving the run for the loop there), so its current handler --
    specialized member, base form, stats wrapper -- runs exactly as if the
    loop had dispatched it.

The stream, the sites and their counters are untouched: fusion changes how
fast an instruction runs, never what it does.  The instructions inside a
run keep their own entries in info.plain (tracing and jumps into a run use
them); an exception is reported at its own instruction through
`frame.raised_at`, and `at` tells frame views which instruction runs.

Generated functions are cached by their source text: runs of the same shape
share one compiled code object, their constants being globals of each
function's own namespace (p0, p1 ...).
"""

import builtins
import dis
import os
import re
from types import FunctionType

from quickening.interp import generated, host, inlining, quicken
from quickening.interp.lowering import (_KNOWN_TYPES, CALLEE_PROLOGUES, GENERIC, Shape,  # noqa: F401
                                        SiteShape, source_attribute, store_attr_shape)
from quickening.interp import lowering as _lowering
from quickening.interp.ops.locals_ops import unbound_deref
from quickening.interp.ops.registry import (DECODERS, HANDLERS, INTERCEPTS, NULL, RESUME, RETURN,
                                            SWITCH, TRACE, YIELD)

# (assigned, not imported: CPython 3.13 compiles a method call on a name an import
# binds without its method form, which the host cannot specialize -- test_layers.py)
PROLOGUES = _lowering.PROLOGUES

_OP = host.OPMAP
LOAD_FAST, LOAD_CONST, STORE_FAST = _OP["LOAD_FAST"], _OP["LOAD_CONST"], _OP["STORE_FAST"]
LOAD_FAST_LOAD_FAST = _OP["LOAD_FAST_LOAD_FAST"]
STORE_FAST_LOAD_FAST = _OP["STORE_FAST_LOAD_FAST"]
STORE_FAST_STORE_FAST = _OP["STORE_FAST_STORE_FAST"]
LOAD_FAST_AND_CLEAR = _OP["LOAD_FAST_AND_CLEAR"]
POP_TOP, PUSH_NULL, COPY, SWAP = _OP["POP_TOP"], _OP["PUSH_NULL"], _OP["COPY"], _OP["SWAP"]
NOP, END_FOR, IS_OP, UNARY_NOT = _OP["NOP"], _OP["END_FOR"], _OP["IS_OP"], _OP["UNARY_NOT"]
END_SEND = _OP["END_SEND"]
LOAD_DEREF, STORE_DEREF = _OP["LOAD_DEREF"], _OP["STORE_DEREF"]
YIELD_VALUE = _OP["YIELD_VALUE"]
CALL = _OP["CALL"]
_CALLS = frozenset(_OP[name] for name in ("CALL", "CALL_KW", "CALL_FUNCTION_EX"))
JUMP_FORWARD, JUMP_BACKWARD = _OP["JUMP_FORWARD"], _OP["JUMP_BACKWARD"]
JUMP_BACKWARD_NO_INTERRUPT = _OP["JUMP_BACKWARD_NO_INTERRUPT"]
POP_JUMP_IF_TRUE, POP_JUMP_IF_FALSE = _OP["POP_JUMP_IF_TRUE"], _OP["POP_JUMP_IF_FALSE"]
POP_JUMP_IF_NONE, POP_JUMP_IF_NOT_NONE = _OP["POP_JUMP_IF_NONE"], _OP["POP_JUMP_IF_NOT_NONE"]
RETURN_VALUE, RETURN_CONST = _OP["RETURN_VALUE"], _OP["RETURN_CONST"]
FOR_ITER = _OP["FOR_ITER"]

# instructions a run can hold: none of them raises or looks at the frame
SIMPLE = frozenset({LOAD_FAST, LOAD_CONST, STORE_FAST, LOAD_FAST_LOAD_FAST, STORE_FAST_LOAD_FAST,
                    STORE_FAST_STORE_FAST, LOAD_FAST_AND_CLEAR, POP_TOP, PUSH_NULL, COPY, SWAP,
                    NOP, END_FOR, IS_OP, UNARY_NOT, END_SEND})
# instructions that end a run (no tail after them)
_JUMPS = frozenset({JUMP_FORWARD, JUMP_BACKWARD, JUMP_BACKWARD_NO_INTERRUPT})
# conditional branches: the test under which each falls through (its side written first)
_FALLS_THROUGH = {POP_JUMP_IF_TRUE: "if not {v}:", POP_JUMP_IF_FALSE: "if {v}:",
                  POP_JUMP_IF_NONE: "if {v} is not None:", POP_JUMP_IF_NOT_NONE: "if {v} is None:"}
_RETURNS = frozenset({RETURN_VALUE, RETURN_CONST})
TERMINATORS = _JUMPS | frozenset(_FALLS_THROUGH) | _RETURNS

# each distinct run's source is kept (generated.py: linecache finds it) under a file
# name of its own inside the package (tracebacks drop it): generated.is_fused knows it
is_fused = generated.is_fused

# builtins as they were at start-up: a program replacing builtins.len must not
# change what the interpreter's own generated code calls
_NAMESPACE = {"NULL": NULL, "RETURN": RETURN, "SWITCH": SWITCH, "RESUME": RESUME, "YIELD": YIELD,
              "TRACE": TRACE,
              "__builtins__": dict(builtins.__dict__)}
_TEMPLATES = {}     # source text -> its compiled code (runs of one shape share it)
# true when the run was made again since it started: a site of it changed form (refuse),
# or the frame is to be traced now (trace_started); code of the program that ran may
# have done either
_REMADE = "_gone"


class _Run:
    """Source for one fused function, simulating the value stack with Python locals."""

    def __init__(self, info):
        self.info = info
        self.lines = []
        self.pending = []      # values pushed by the run, not yet on the list (names)
        self.params = []       # default arguments, in order
        self.constants = {}    # their names -> values
        self.known = {}        # temps -> their exact type, known where they are read
        # the frame's locals -> their exact type, where the path has stored a value
        # of known type there and no code of the program can have run since (escape)
        self.locals = {}
        # guard terms that held where the path passed them and still do (no code of
        # the program has run since, the locals they test not stored to): _shared
        self.holds = set()
        self.origin = {}       # temps -> (local, its generation) they were loaded from
        self.generation = {}   # locals -> how many times the path has stored to them
        self.ntemps = 0
        self.live = []         # temps assigned and not deleted
        self.entry = None      # the instruction the run starts at
        self.loops = False     # a path jumps back to its start: a `while True:`
        self.back_edges = []   # what is known at each (locals' types, guard terms): _peel
        self.first_turn = None     # the lines of a peeled loop's first turn (_peel)
        self.iterator_known = False   # a peeled loop's own iterator: its type checked
        self.patient = False   # raise _NotYet at a site not specialized yet
        # a site that missed since it specialized leaves the run on a miss all the same
        # (a callee's lines for its callers: inlining.py)
        self.optimistic = False
        self.written = set()   # instructions written so far (each at most once)
        self.depth = 0         # indentation of the side of a branch being written
        self.starts_dispatched = False   # its first instruction goes through the table
        self.frame = None      # the frame it is made in (what PROLOGUES may count on)
        self.escapes = 0       # how many places code of the program may run (escape)
        # code of the program may have run since the path last tested whether the run
        # was made again meanwhile (check_gone)
        self.unchecked = False
        self.inlines = 0       # callees written into it (inlining.py)
        self.goes_on_in_loop = 0   # paths leaving for another run (goes_on)
        self.after_call = False    # it starts after a call (which left the run it was in)

    def escape(self):
        """What follows may run code of the program, which may rebind the frame's
        locals (through f_locals) and change classes and instances: forget their
        types and the guard terms that held.  (Letting go of a value is not
        counted: a finalizer doing that is not seen.)"""
        self.escapes += 1
        self.unchecked = True
        self.locals.clear()
        self.holds.clear()

    def check_gone(self, pc):
        """Before a site written in the form it held when the run was made: if code of
        the program may have run since the path last tested it, and that code (a
        nested activation of this code object, under a Python __add__, __hash__,
        __getattr__ ...) changed a site of this run (refuse) or set the frame's
        trace function, the loop goes on at pc instead, in the site's form now.
        (One test stands for every operation since the last: what they may change
        matters only where a fixed form is about to run.)"""
        if self.unchecked:
            self.unchecked = False
            self.emit(f"if {_REMADE}:")
            for line in _put(None, self.pending):
                self.emit(line, 1)
            self.emit(f"return {self.param(pc)}", 1)

    def goes_on(self, pc):
        """The path leaves for the loop, which goes on at pc (where another run starts):
        the way control flows, not a guard that failed."""
        self.goes_on_in_loop += 1
        self.emit(f"return {pc}")

    def emit(self, line, indent=0):
        self.lines.append("    " * (self.depth + indent) + line)

    def temp(self, expr, indent=0):
        name = self.new_temp()
        self.emit(f"{name} = {expr}", indent)
        return name

    def new_temp(self):
        name = f"t{self.ntemps}"
        self.ntemps += 1
        self.live.append(name)
        return name

    def release(self, keep=()):
        """Before code that may call out: drop every temp whose value the (simulated)
        stack no longer holds, so objects die when CPython would free them."""
        dead = [t for t in self.live if t not in self.pending and t not in keep]
        if dead:
            self.emit(f"del {', '.join(dead)}")
            self.live = [t for t in self.live if t not in dead]

    def param(self, value):
        """The name standing for value in the function (an int is written as it is)."""
        if type(value) is int:
            return repr(value)
        return self.const(value)

    def const(self, value):
        """A global of the function's own namespace holding value (a constant of the
        code, a member's fact ...): globals cost nothing per call, defaults would."""
        name = f"p{len(self.params)}"
        self.params.append(value)
        self.constants[name] = value
        return name

    def push(self, name):
        self.pending.append(name)

    def drop(self):
        """Let go of the top value (POP_TOP)."""
        if self.pending:
            self.pending.pop()
        else:
            self.emit("del stack[-1]")

    def pop(self):
        if self.pending:
            return self.pending.pop()
        return self.temp("stack.pop()")

    def operands(self, n):
        """The top n values, deepest first, taken off the (simulated) stack."""
        taken = [self.pop() for _ in range(n)]
        taken.reverse()
        return taken

    def flush(self, indent=0):
        """Put the pending values on the real stack."""
        p = self.pending
        if len(p) == 1:
            self.emit(f"stack.append({p[0]})", indent)
        elif p:
            self.emit(f"stack += ({', '.join(p)},)", indent)
        self.pending = []

    def type_of(self, name):
        """The exact type the run knows a temp or constant it names to have, or None."""
        return self.known.get(name) or _constant_type(name, self.constants)

    def store(self, index, value):
        self.emit(f"stack[{index}] = {value}")
        self.generation[index] = self.generation.get(index, 0) + 1
        known = self.type_of(value)
        if known is not None:
            self.locals[index] = known
        else:
            self.locals.pop(index, None)

    def load(self, index):
        name = self.temp(f"stack[{index}]")
        self.origin[name] = (index, self.generation.get(index, 0))
        known = self.locals.get(index)
        if known is not None:
            self.known[name] = known
        return name

    def peek(self, depth):
        """Name or expression of the value `depth` from the top (1 = top)."""
        p = self.pending
        if depth <= len(p):
            return p[-depth]
        return self.temp(f"stack[-{depth - len(p)}]")

    def at(self, pc):
        """From here on, the frame is at instruction pc (exceptions, f_lineno)."""
        name = self.param(pc)
        self.emit(f"at = {name}")
        return name

    def through_table(self, at, indent=0, site=True):
        """Run the instruction at `at` through the table; anything but falling through
        (a jump, a call, a return) goes back to the loop.  A site that has just
        (re)specialized asks for itself again: its new handler runs here (a
        polymorphic site re-targets every 53 misses: the run goes on).  Code of the
        program it ran may have changed a site of this run (a nested activation of
        the same code, through a call, a property, an operator) or set the frame's
        trace function: the loop then goes on from the next instruction, as after a
        call run in place ({remade})."""
        self.emit(f"h, a, n = _instrs[{at}]", indent)
        self.emit("pc = h(f, stack, a, n)", indent)
        self.emit("if pc != n:", indent)
        if site:
            self.emit(f"if pc != {at}:", indent + 1)
            self.emit("return pc", indent + 2)
            self.emit(f"h, a, n = _instrs[{at}]", indent + 1)
            self.emit("pc = h(f, stack, a, n)", indent + 1)
            self.emit("if pc != n:", indent + 1)
            self.emit("return pc", indent + 2)
        else:
            self.emit("return pc", indent + 1)
        self.emit(f"if {_REMADE}:", indent)
        self.emit("return n", indent + 1)
        if indent == 0:
            self.unchecked = False


def _simple(run, op, oparg, arg):
    if op == LOAD_FAST:
        run.push(run.load(oparg))
    elif op == LOAD_CONST:
        run.push(_literal(arg) or run.const(arg))
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
        run.drop()
    elif op == END_SEND:     # (receiver, value -- value)
        value = run.pop()
        run.drop()
        run.push(value)
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
        result = run.temp(f"{lhs} is {'not ' if oparg else ''}{rhs}")
        run.known[result] = bool
        run.push(result)
    elif op == UNARY_NOT:
        result = run.temp(f"not {run.pop()}")
        run.known[result] = bool
        run.push(result)
    elif op != NOP:
        raise AssertionError(op)


def _terminate(run, op, arg, nxt, dispatched):
    if op in _JUMPS and arg == run.entry:
        # a loop whose body is this run: round again in place (the values of this
        # turn let go, as the stack lets them go; a frame being traced now goes
        # back to the loop, which traces it; so does a run made again because a
        # site of it changed form meanwhile, in another activation of the code)
        run.flush()
        run.release()
        run.emit(f"if {_REMADE}:")
        run.emit(f"return {arg}", 1)
        # (the comment names the back edge this `continue` is: interrupts.py raises
        # Ctrl-C at the host's check there as CPython raises it at the jump)
        run.emit(f"continue{BACK_EDGE_MARK}{run.info.prev_start[nxt]}")
        run.loops = True
        run.back_edges.append((dict(run.locals), _loop_invariant(run)))
    elif op in _JUMPS:
        if arg > nxt:
            return _follow(run, arg, dispatched)
        run.flush()
        if ((op == JUMP_BACKWARD or arg in run.info.site_pcs)
                and _goes_back_into(run, arg)):
            # a run that started inside a loop (after a call or a yield) goes round
            # to the loop's head in place, as far as it has not written it (a frame
            # being traced, or a run made again meanwhile, goes back to the loop).
            # (A `yield from` loop's only when its head, SEND, is a site: without
            # specialization SEND runs the delegate on the host stack, deeper.)
            run.release()
            run.emit(f"if {_REMADE}:")
            run.emit(f"return {arg}", 1)
            run.unchecked = False
            return _path(run, run.info.start_index[arg], dispatched)
        run.goes_on(arg)
    elif op in _FALLS_THROUGH:
        value = run.pop()
        run.flush()
        run.emit(_FALLS_THROUGH[op].format(v=value))
        return _follow(run, nxt, dispatched, side=True) + _follow(run, arg, dispatched)
    elif op == RETURN_VALUE:
        value = run.pop()
        run.flush()
        run.emit(f"f.retval = {value}")
        run.emit("return RETURN")
    else:   # RETURN_CONST
        run.flush()
        run.emit(f"f.retval = {run.const(arg)}")
        run.emit("return RETURN")
    return 0


_HELD_LOCAL = re.compile(r"\bL(\d+)\.(\d+)\b")


def _loop_invariant(run):
    """The guard terms holding at a loop's back edge that hold at its head too: those
    over locals the turn has not stored to (and the type tokens, dict versions ...
    of no local)."""
    generation = run.generation
    return {key for key in run.holds
            if all(g == "0" and not generation.get(int(i), 0)
                   for i, g in _HELD_LOCAL.findall(key))}


def _goes_back_into(run, pc):
    """A backward jump the run follows: to an instruction it has not written, whose
    block holds no site never executed, with room left.  (A run starting after a
    call -- one that left the run it was in, its callee having stopped -- not to a
    loop's head that has a run of its own: the loop goes on there, and the run is
    not written twice.)"""
    info = run.info
    if pc in run.written or len(run.written) >= MAX_RUN or _cold(info, pc):
        return False
    made = info.fuse_inside
    return made is None or pc not in made[1] or not _after_call(info, run.entry)


def _after_call(info, pc):
    """The instruction before pc is a call."""
    before = info.prev_start.get(pc)
    return before is not None and info.opcodes[before] in _CALLS


# A run starting after a call is made because that call keeps leaving the run it is
# in (its callee stops: it raised, even if it caught the exception itself ...), and it
# ends after the next call after which the loop has gone on as often (before a run
# held it, or since, when that call left): what follows is that call's own run (or
# will be).  Written here too, it would be compiled once per call before it, for
# the turns where the calls before it left.  (Those turns then go through the loop
# once per such call: little, next to what leaving costs.)
def _left_often(info, pc):
    """pc is after a call and the loop has gone on there ENTRY_WARMUP times or more."""
    waits = info.fuse_waits
    return (waits is not None and waits.get(pc, 0) >= max(ENTRY_WARMUP, 1)
            and _after_call(info, pc))


def _literal(value):
    """Source text for a constant that is the same object written as a literal (None,
    True, False), else None.  (Not ints: `x is 1` draws a SyntaxWarning.)"""
    if value is None or value is True or value is False:
        return repr(value)
    return None


_BOUNDS = re.compile(r"(-?\d+) (<=?) (-?\d+) (<=?) (-?\d+)")


# exact types a guard names as `type(x) is name` (builtins whose instances cannot
# change class)


def _constant_type(name, constants):
    """The exact type of a constant the run names (a literal or a p-name), if one of
    _KNOWN_TYPES; else None."""
    if name == "True" or name == "False":
        return bool
    t = type(constants.get(name))
    return t if t in _KNOWN_TYPES else None


def _bounds_known(match):
    """`a <= b < c` of three numbers: True or False (no eval: it would run the program's
    audit hooks)."""
    low, first, middle, second, high = match.groups()
    low, middle, high = int(low), int(middle), int(high)
    holds = ((low <= middle) if first == "<=" else (low < middle)) and (
        (middle <= high) if second == "<=" else (middle < high))
    return repr(holds)


_EMPTY_SLOT_IS = re.compile(r"\(NULL is not NULL\) is (p\d+|True|False|None)\b")
_LITERALS = {"True": True, "False": False, "None": None}


def _empty_slot_is(match, constants):
    """`(NULL is not NULL) is with_self` worked out (as it was, if with_self is not a
    constant of the run)."""
    name = match.group(1)
    if name in _LITERALS:
        return repr(_LITERALS[name] is False)
    if name in constants:
        return repr(constants[name] is False)
    return match.group()


def _fold(condition, ops, run):
    """A guard with what is known of its operands worked out, so it is not tested each
    time: a constant's type (an int constant is also within the bounds it is within),
    and a temp's type when the run knows it (run.type_of)."""
    for op in ops:
        value = run.constants.get(op)
        if type(value) is int:
            condition = condition.replace(f"type({op}) is int", "True")
            if op in condition:
                condition = _compared(op).sub(repr(value), condition)
        elif (known := run.type_of(op)) is not None:
            condition = condition.replace(f"type({op}) is {known.__name__}", "True")
    condition = _BOUNDS.sub(_bounds_known, condition)
    condition = condition.replace("NULL is NULL", "True")
    # (EXACT_ARGS' cheap lowering over a self slot the run knows is empty)
    condition = _EMPTY_SLOT_IS.sub(lambda m: _empty_slot_is(m, run.constants), condition)
    while "True and " in condition:
        condition = condition.replace("True and ", "")
    return condition.replace(" and True", "")


_TERM_MARKS = re.compile(r"[(\[{]|[)\]}]| and | or ")


def _terms(condition):
    """The terms of `a and b and ...` at the top level ([a] for one with a top-level or)."""
    terms, depth, start = [], 0, 0
    for m in _TERM_MARKS.finditer(condition):
        mark = m.group()
        if mark in "([{":
            depth += 1
        elif mark in ")]}":
            depth -= 1
        elif depth == 0:
            if mark == " or ":
                return [condition]
            terms.append(condition[start:m.start()])
            start = m.end()
    terms.append(condition[start:])
    return terms


_TEMP = re.compile(r"\bt\d+\b")
_PARAM = re.compile(r"\bp\d+\b")


def _term_keys(guard, run):
    """(term, key) for each term of a guard: the term written over what it tests, so
    that the same test of the same object has the same key wherever the run makes
    it: a temp as the local it was loaded from (with that local's generation), a
    p-name as its value's id.  The key is None for a term over anything else (a temp
    computed in the run, a value the guard assigns)."""
    origin, generation, constants = run.origin, run.generation, run.constants
    pairs = []
    for term in _terms(guard):
        key = term
        for temp in set(_TEMP.findall(term)):
            where = origin.get(temp)
            if where is None or generation.get(where[0], 0) != where[1]:
                key = None
                break
            key = _uses(temp).sub(f"L{where[0]}.{where[1]}", key)
        if key is not None and ":=" not in key:
            key = _PARAM.sub(lambda m: f"#{id(constants[m.group(0)])}", key)
        else:
            key = None
        pairs.append((term, key))
    return pairs


def _shared(guard, run):
    """A fixed member's guard without the terms that held already on this path
    (run.holds): the same object's type and instance state tested by an earlier
    site, a type's token, a dict's keys version ..."""
    if not run.holds:
        return guard
    kept = [term for term, key in _term_keys(guard, run) if key is None or key not in run.holds]
    return " and ".join(kept) if kept else "True"


def _fill(template, ops, names):
    """A shape's template with its operands ({0} ...) and names ({arg}, {c0}, {r0} ...)."""
    return template.format(*ops, **names)


def _in_place(run, pc, shape, arg):
    """A generic instruction executed in place (its handler never changes)."""
    ops = run.operands(shape.npop)
    result_type = _pure_result(run, shape, ops)
    if shape.raises and result_type is None:
        run.escape()      # (the operation of whatever types: it may call their methods)
    if shape.raises:
        if run.info.handler_for(pc) is not None:
            run.flush()    # an exception handler here unwinds to a depth: keep the stack real
        run.release(keep=ops)
        run.at(pc)
    uses_arg = "{arg}" in "".join(shape.results + shape.effects)
    names = {"arg": run.param(arg) if uses_arg else None}
    for effect in shape.effects:
        run.emit(_fill(effect, ops, names))
    for result in shape.results:
        run.push(result if result == "NULL" else run.temp(_fill(result, ops, names)))
    if result_type is not None and result_type is not object and len(shape.results) == 1:
        run.known[run.pending[-1]] = result_type


def _pure_result(run, shape, ops):
    """What shape.pure_for says of these operands (None: unknown types, or not pure)."""
    if shape.pure_for is None:
        return None
    types = []
    for op in ops:
        t = run.type_of(op)
        if t is None:
            return None
        types.append(t)
    return shape.pure_for(tuple(types))


def _dispatch(run, pc, last, members=(), base=None):
    """Execute instruction pc through the table (its handler may change as the site adapts).

    `members`: (handler, shape) pairs executed in place when the site holds
    that handler and its guard passes.  `base`: the shape of the family's base
    operation; while the site's counter has not run out, a miss of one of
    these members and the base instruction itself run in place too (counting
    down as the base instruction does)."""
    site_obj = run.info.plain[pc][1]
    purity = None
    if run.optimistic and base is not None:
        # (a callee's lines for its callers: a miss runs the base operation in place
        # only where it runs no code of the program, and anything else leaves the run)
        purity = site_obj.family.base_purity(site_obj.oparg, site_obj.arg)
        if purity is None:
            base = None
    in_place = bool(members) or base is not None
    pure = run.optimistic and in_place and all(shape.pure for _, shape in members)
    if not pure:
        run.escape()
    if not in_place:
        run.flush()
    npop = max([shape.npop for _, shape in members] + ([base.npop] if base else []), default=0)
    ops, kept, at = _site_operands(run, pc, npop)
    if in_place:
        # what the site holds now: (handler,) or (kind, its facts...) (quicken.install)
        site = run.param(site_obj)
        run.emit(f"q = {site}.inplace")
        run.emit("h = q[0]")
        nres = len(members[0][1].results) if members else len(base.results)
        outs = [run.new_temp() for _ in range(nres)]
        keyword = "if"
        for handler, shape in members:
            h = run.param(handler)
            if shape.consts is None:     # a SiteShape: the facts are the site's
                facts = [f"q[{i + 1}]" for i in range(_fact_count(shape))]
            else:
                facts = [run.param(v) for v in shape.consts]
            names, prologue = _member_names(run, pc, shape, facts, outs, kept, ops)
            _branch(run, keyword, f"h is {h} and ({_fill(shape.guard, ops, names)})",
                    shape, ops, names, outs, prologue, _leaving(run, pc, at, kept + ops))
            keyword = "elif"
        if base is not None:
            cells, ci = run.param(site_obj.cells), run.param(site_obj.ci)
            names = _base_names(run, pc, site_obj, base, outs, kept, ops)
            test = _base_test(cells, ci, base, ops, names)
            # a miss of one of the members, or the base instruction
            held = " or ".join(f"h is {run.param(handler)}"
                               for handler in [h for h, _ in members] + [site_obj.base_handler])
            if purity is not None:
                runs_no_code, owner = purity
                test = f"{test} and {run.const(runs_no_code)}({ops[owner]})"
            _branch(run, keyword, f"({held}) and {test}", base, ops, names, outs,
                    prologue=(f"{cells}[{ci}] = c - 16",))
        _otherwise(run, pc, at, last, kept, ops, outs, rare=run.optimistic)
    elif last:
        run.emit(f"h, a, n = _instrs[{at}]")
        run.emit("return h(f, stack, a, n)")
    else:
        run.through_table(at, site=pc in run.info.site_pcs)


def _site_operands(run, pc, npop):
    """(ops, kept, at) for the site at pc: its npop operands taken into locals, the
    values below them that stay in locals on the paths run in place (the path through
    the table puts them on the stack and takes them back), the name of pc."""
    ops = run.operands(npop)
    if run.info.handler_for(pc) is not None:
        run.flush()    # (an exception handler here unwinds to a depth: keep the stack real)
    kept = list(run.pending)
    run.release(keep=ops)
    return ops, kept, run.at(pc)


def _fact_count(shape):
    """How many facts ({c0}, {c1} ...) a shape's templates name."""
    text = " ".join((shape.guard or "",) + shape.effects + shape.results)
    return max((int(n) + 1 for n in _compiled(r"\{c(\d+)\}").findall(text)), default=0)


def _member_names(run, pc, shape, facts, outs, kept, ops, values=None):
    """(names, prologue) for a member's shape at pc: {c0}.. its facts (expressions),
    {r0}.. the temps of its results, {nxt}; {kept}: statements putting the values kept
    below its operands on the stack (for a member that may go back to the loop: one
    that returns to it first puts them there); {drop}: statements letting go of its
    operands (a call running its callee here: the callee's frame holds them);
    {remade}: true when the run was made again meanwhile or the frame is to be traced
    now (a call running interpreted code, which may change the form of a site of this
    run or set the frame's trace function: go on through the loop, TRACE);
    {name}: the site's attribute name (source_attribute);
    {c0_items}..: a fact that is a list, as items to write in a list display after
    others (`[a{c9_items}]`): written out when known to be NULLs (a callee's locals
    after its arguments: cheaper than adding lists), else unpacked.
    (values: the facts' values, for a run made for the form its site holds.)"""
    names = {f"c{i}": fact for i, fact in enumerate(facts)}
    for i, fact in enumerate(facts):
        value = values[i] if values is not None else None
        if type(value) is list and all(v is NULL for v in value):
            names[f"c{i}_items"] = ", NULL" * len(value)
        else:
            names[f"c{i}_items"] = f", *{fact}"
    names.update((f"r{i}", out) for i, out in enumerate(outs))
    names["arg"] = None
    names["name"] = source_attribute(run.info.plain[pc][1].arg)
    _call_names(run, pc, shape, kept, ops, names)
    back_to_loop = any(e.startswith("return") for e in shape.effects)
    return names, (_put(None, kept) if back_to_loop else ())


def _call_names(run, pc, shape, kept, ops, names):
    """{kept}, {drop}, {remade} and {nxt} (see _member_names), added to names."""
    names["kept"] = "".join(line + "; " for line in _put(None, kept))
    dropped = [t for t in dict.fromkeys(ops) if t in run.live and t not in kept]
    names["drop"] = f"{' = '.join(dropped)} = NULL; " if dropped else ""
    names["remade"] = _REMADE
    if "{nxt}" in "".join(shape.effects):
        names["nxt"] = run.param(run.info.plain[pc][2])
    if "{site}" in "".join(shape.effects):
        names["site"] = run.param(run.info.plain[pc][1])


def _base_names(run, pc, site, base, outs, kept, ops):
    """Names for the base operation's shape: {arg} the site's arg, {c0}.. its consts,
    and those of _call_names."""
    names = {f"r{i}": out for i, out in enumerate(outs)}
    names["arg"] = run.param(site.arg)
    names["name"] = source_attribute(site.arg)
    names.update((f"c{i}", run.param(v)) for i, v in enumerate(base.consts or ()))
    _call_names(run, pc, base, kept, ops, names)
    return names


def _base_test(cells, ci, base, ops, names):
    """When the base operation runs in place: the counter has not run out (and the
    base shape's own guard holds: else the table runs the instruction)."""
    test = f"(c := {cells}[{ci}]) >= 16"
    return f"{test} and {_fill(base.guard, ops, names)}" if base.guard else test


def _otherwise(run, pc, at, last, kept, ops, outs, rare=False, counted=None):
    """The `else:` of a site run in place: through the table, then on with its results.

    `rare`: the site is fixed to its form, so this path is taken only when its
    counter runs out (its handler specializes and dispatches the instruction
    again) or on a miss of a site that had not missed when the run was made
    or of a family without a base shape (after 53 the site re-specializes, and
    a site doing that is not fixed): the run then
    leaves for the loop, which runs the instruction and what follows through
    the table up to the next entry point.  (Fewer lines to compile.  At an
    entry point the instruction runs before leaving: dispatched there, its
    own run would start again.)  `counted`: for a site holding its base
    instruction whose test read its counter into c, the names of its cells and
    its counter's index (_counting_down)."""
    run.emit("else:")
    if rare:
        for line in _leaving(run, pc, at, kept + ops):
            run.emit(line, 1)
        for out in outs:
            run.push(out)
        if last:
            run.flush()
            run.emit(f"return {run.param(run.info.plain[pc][2])}")
        return
    _put(run, kept + ops, 1)
    # the stack holds them now: the locals let go, so a callee sees the references
    # CPython's stack has (they stay bound, as the other paths leave them)
    held = list(dict.fromkeys(t for t in kept + ops if t in run.live))
    if held:
        run.emit(f"{' = '.join(held)} = NULL", 1)
    if counted is not None:
        # (what its shape does not take: c, the counter, was read by the test above)
        cells, ci = counted
        _counting_down(run, run.info.plain[pc][1], at, "c >= 16", cells, ci, False, 1)
    else:
        run.through_table(at, 1)
    for out in reversed(outs):
        run.emit(f"{out} = stack.pop()", 1)
    for name in reversed(kept):
        run.emit(f"{name} = stack.pop()" if name in run.live else "del stack[-1]", 1)
    for out in outs:
        run.push(out)
    if last:
        run.flush()
        run.emit(f"return {run.param(run.info.plain[pc][2])}")


# -- a site fixed to the form it holds ---------------------------------------------------
# A site's run is made for the member the site holds when the code is fused: its
# guard and operation with its facts as constants, then the base operation for a
# miss, then the table.  When the site changes form, quicken.install() calls
# refuse(), and the runs holding the site are made again when they next run.  A
# site not specialized yet is made in the form that follows whatever it holds
# (_dispatch) until it is; so is, for good, a site that keeps changing: one that
# has attempted to specialize more than UNSTABLE_ATTEMPTS times (failures backing
# off, re-specializations) and succeeded at least once, whether or not fused runs
# held it then.  (Each change of a fixed form costs compiling its runs again.)
UNSTABLE_ATTEMPTS = 1


def _unmissed(site):
    """The site has not missed since it specialized (its counter is still the
    cooldown it was given)."""
    return site.cells[site.ci] == quicken.COOLDOWN


def _keeps_changing(site):
    # (a site that never specialized keeps its form while it fails, backing off:
    # it is made fixed to the base instruction until it succeeds once)
    return site.attempts > UNSTABLE_ATTEMPTS and site.successes > 0


def _site(run, p, last, site):
    """Emit the instruction of a site; True when it runs in place."""
    base = site.family.base_shape
    base = base(site.oparg, site.arg) if base is not None else None
    members = _members(run.info, p)
    if _keeps_changing(site):
        # polymorphic: the members it has held (one it takes up later makes the
        # run again: quicken.install)
        site.dispatched_in.add(run.entry)
        kinds = site.kinds or ()
        members = [m for m in members if m[0] in kinds]
        _dispatch(run, p, last, members, base)
        return bool(members) or base is not None
    if not site.attempts and site.inplace[0] is site.base_handler:
        if run.patient:
            raise _NotYet
        # still not specialized: the base instruction counting down (the run is
        # made again once the site specializes)
        site.fused_in.add(run.entry)
        _dispatch(run, p, last, (), base)
        return base is not None
    site.fused_in.add(run.entry)
    held = site.inplace
    holds = held[0]
    if (holds is site.base_handler and base is not None and base.guard is not None
            and not site.successes):
        # failing to specialize, backing off: what it is given is not what the base
        # shape takes in place (CALL's: a Python function, which would specialize)
        run.check_gone(p)
        run.escape()
        run.flush()
        _, _, at = _site_operands(run, p, 0)
        cells = run.param(site.cells)
        _counting_down(run, site, at, f"(c := {cells}[{site.ci}]) >= 16", cells, site.ci, last,
                       classes=_fails_on_classes(site))
        return False
    shape = next((shp for handler, shp in members if handler is holds), None)
    if shape is None and not (holds is site.base_handler and base is not None):
        _dispatch(run, p, last)
        return False
    run.check_gone(p)
    ops, kept, at = _site_operands(run, p, shape.npop if shape is not None else base.npop)
    outs = [run.new_temp() for _ in range(len((shape or base).results))]
    cells, ci = run.param(site.cells), run.param(site.ci)
    if base is not None:
        base_names = _base_names(run, p, site, base, outs, kept, ops)
        base_test = _base_test(cells, ci, base, ops, base_names)
    if shape is not None:
        facts = held[1:] if shape.consts is None else shape.consts
        names, prologue = _member_names(run, p, shape, [run.param(v) for v in facts], outs, kept,
                                        ops, facts)
        guard = _fill(shape.guard, ops, names)
        if getattr(holds, "inline_as", None) is not None:
            shape = _inlining_call(run, holds.inline_as(site.oparg), held, shape, ops, names)
        _branch(run, "if", _shared(guard, run), shape, ops, names, outs, prologue,
                _leaving(run, p, at, kept + ops))
        if base is not None and not _unmissed(site) and not run.optimistic:
            # (a site that has missed since it specialized misses in place; one that
            # has not leaves the run on a miss: less code to compile, and a site
            # that goes on missing soon re-specializes and is made polymorphic)
            _branch(run, "elif", base_test, base, ops, base_names, outs,
                    prologue=(f"{cells}[{ci}] = c - 16",))
            result_type = _pure_result(run, base, ops)
            if result_type is None or not shape.pure:
                run.escape()
                run.unchecked = not (_checks_itself(shape) and _checks_itself(base))
            elif result_type is shape.result_type is not None:
                run.known[outs[0]] = result_type
        else:
            # only the member's own path goes on from here: its result's type is known
            # (a temp holds one object; these types' instances cannot change class)
            if shape.result_type is not None:
                run.known[outs[0]] = shape.result_type
            if not shape.pure:
                run.escape()
                run.unchecked = not _checks_itself(shape)
            else:     # (its hit changes nothing a guard tests: its guard's terms hold on)
                run.holds.update(key for _, key in _term_keys(guard, run) if key is not None)
    else:
        _branch(run, "if", base_test, base, ops, base_names, outs,
                prologue=(f"{cells}[{ci}] = c - 16",))
        result_type = _pure_result(run, base, ops)
        if result_type is None or base.guard is not None:
            run.escape()
            run.unchecked = not _checks_itself(base)
        elif result_type is not object and len(outs) == 1:
            run.known[outs[0]] = result_type
    # (a site holding its base instruction whose shape has a guard of its own -- CALL's,
    # for a Python function -- runs whatever else it is given as its base handler
    # would, counting down (_counting_down), as often as that comes: the run goes on
    # after it)
    rare = shape is not None or base is None or base.guard is None
    _otherwise(run, p, at, last, kept, ops, outs, rare=rare,
               counted=None if rare else (cells, ci))
    return True


def _checks_itself(shape):
    """The shape's last effect goes back to the loop if the run was made again or the
    frame is to be traced ({remade}: a call running interpreted code)."""
    return bool(shape.effects) and "{remade}" in shape.effects[-1]


# CALL sites failing on a builtin class CPython does not specialize for (TypeError(i),
# str(b, "ascii"): CALL_CLASS_NO_VECTORCALL, CALL_STR)
_CLASS_FAILURES = frozenset({"CALL_CLASS_NO_VECTORCALL", "CALL_STR"})


def _fails_on_classes(site):
    failures = site.failures
    return site.base == CALL and failures is not None and not _CLASS_FAILURES.isdisjoint(failures)


def _counting_down(run, site, at, test, cells, ci, last, indent=0, classes=False):
    """A site holding its base instruction, run as its handler runs it: while its
    counter has not run out (`test`), counted down here and the generic instruction
    run through that instruction's own handler; else through the table (the base
    handler attempts to specialize, and the site's new handler runs).  classes: a
    CALL site failing on classes calls a class (of metaclass `type`, not intercepted,
    its self slot empty) here, natively, as the generic CALL's call_object does."""
    op = site.base
    decode = DECODERS[op]
    arg = decode(run.info, site.oparg, site.pc, site.nxt) if decode is not None else site.oparg
    nxt = run.param(site.nxt)
    run.emit(f"if {test}:", indent)
    run.emit(f"{cells}[{ci}] = c - 16", indent + 1)
    inner = indent + 1
    if classes:
        _class_call(run, site.oparg, nxt, last, inner)
        inner += 1
    run.emit(f"pc = {run.param(HANDLERS[op])}(f, stack, {run.param(arg)}, {nxt})", inner)
    if last:
        run.emit("return pc", inner)
    else:
        run.emit(f"if pc != {nxt}:", inner)
        run.emit("return pc", inner + 1)
    run.emit("else:", indent)
    if last:
        run.emit(f"h, a, n = _instrs[{at}]", indent + 1)
        run.emit("return h(f, stack, a, n)", indent + 1)
    else:
        run.through_table(at, indent + 1)


def _class_call(run, nargs, nxt, last, indent):
    """The `if` of _counting_down's native class call (the operands on the stack; the
    generic handler's call follows as its `else`)."""
    run.emit(f"cf = stack[-{nargs + 2}]", indent)
    run.emit(f"if type(cf) is type and stack[-{nargs + 1}] is NULL "
             f"and id(cf) not in {run.param(INTERCEPTS)}:", indent)
    run.emit(f"ca = stack[-{nargs}:]" if nargs else "ca = ()", indent + 1)
    run.emit(f"del stack[-{nargs + 2}:]", indent + 1)
    run.emit(f"f.pc = {nxt}", indent + 1)     # (as the handler sets it before calling)
    run.emit("ca = cf(*ca)", indent + 1)
    run.emit("stack.append(ca)", indent + 1)
    run.emit("del cf, ca", indent + 1)
    run.emit(f"if {_REMADE}:", indent + 1)
    run.emit("return TRACE", indent + 2)
    if last:
        run.emit(f"return {nxt}", indent + 1)
    run.emit("else:", indent)
    run.emit("del cf", indent + 1)


def refuse(site):
    """The site changed form: make the runs holding it again (quicken.install), and
    those its code's first run was written into (inlining.py)."""
    info = site.info
    entries = site.fused_in | site.dispatched_in
    site.fused_in, site.dispatched_in = set(), set()
    for entry in entries:
        _unmake(info, entry)
        if entry == 0 and info.leaf is not None:
            _not_inlined(info)
            info.leaf = None      # (found again when a caller is made)


def trace_started(info):
    """A running frame of this code is to be traced (frame.trace_running): its runs
    are made again, so one running now leaves at its next test of _gone."""
    for entry, held in enumerate(info.instrs):
        if held is not None and type(held[0]) is FunctionType and is_fused(held[0].__code__):
            _unmake(info, entry)


def _unmake(info, entry):
    """Have the run at entry made again when it next runs."""
    made = info.instrs[entry][0]
    if type(made) is FunctionType and is_fused(made.__code__):
        made.__globals__["_gone"] = True    # (one running now leaves: _terminate)
    info.instrs[entry] = (_lazy, entry, None)


# -- a callee written into its caller's run (inlining.py) ---------------------------------
def _inlining_call(run, spec, held, shape, ops, names):
    """A call's shape running its callee written into the run when its code's first run
    is a Leaf (else the call's own shape): under the conditions inlining.py gives,
    the callee's lines; otherwise the call as the shape makes it.

    spec (SiteShape.inline_as), templates over the shape's names: "info_at" where the
    facts hold the callee's CodeInfo, "info" that fact, "function" the function run
    (default {0}), "before" statements making its first locals (a new object ...),
    "locals" its locals list, "new_frame" Frame, "ds" its data stack state (or
    None), "hook" its Frame.inline, "resume_push" what the caller's stack gets
    when the loop goes on in the frame, "after" statements after it returned."""
    info = held[1 + spec["info_at"]]
    leaf = _leaf(info)
    if leaf is None:
        return shape
    prefix = f"i{run.inlines}_"
    written = inlining.written_into(run, leaf, prefix, names["r0"])
    if written is None:
        return shape
    body, temps = written
    run.inlines += 1
    if info.inlined_into is None:
        info.inlined_into = set()
    info.inlined_into.add((run.info, run.entry))
    fill = lambda template: _fill(template, ops, names)     # noqa: E731
    fn = f"{prefix}fn"
    function = fill(spec.get("function", "{0}"))
    no_tracer, limit = inlining.conditions()
    same = "".join(f" and {CALLEE_PROLOGUES[names].format(fn=function)}"
                   for names in leaf.prologues)
    lines = [f"if {run.const(no_tracer)}[0] and f.depth < {run.const(limit)}[0]{same}:"]
    lines += ["    " + fill(line) for line in spec.get("before", ())]
    if info.inline_calls is None:
        info.inline_calls = [0]
    lines += [f"    {prefix}cs = {fill(spec['locals'])}",
              f"    {run.const(info.inline_calls)}[0] += 1",
              f"    {fn} = {function}",
              f"    {names['drop']}{prefix}stop = None",
              f"    {prefix}at = 0",
              "    try:",
              "        while True:"]
    lines += ["            " + line for line in body]
    lines += [f"    except BaseException as {prefix}e:",
              f"        {prefix}stop = {prefix}e",
              f"    if {prefix}stop is not None:",
              f"        f.pc = {names['nxt']}",
              f"        f.callee = {run.const(inlining.stopped_frame)}(f, {fn}, "
              f"{fill(spec['info'])}, {prefix}cs, {fill(spec.get('ds', 'None'))}, "
              f"{prefix}stop, {prefix}at, {fill(spec['new_frame'])}, "
              f"{fill(spec.get('hook', 'None'))})",
              f"        {prefix}stop = {prefix}cs = {fn} = NULL",
              f"        {names['kept']}{fill(spec.get('resume_push', ''))}return RESUME",
              f"    {' = '.join(temps + [prefix + 'cs', fn])} = NULL"]
    lines += ["    " + fill(line) for line in spec.get("after", ())]
    # (the call made otherwise, a trace function set or at the recursion limit, goes on
    # through the loop: only the path of the callee written here goes on in the run,
    # which knows then that no code of the program ran -- the shape is pure)
    lines += ["else:"]
    lines += ["    " + fill(effect) for effect in shape.effects]
    lines += [f"    {names['kept']}stack.append({names['r0']}); return {names['nxt']}"]
    return Shape(shape.npop, shape.results, shape.guard,
                 [line.replace("{", "{{").replace("}", "}}") for line in lines],
                 shape.raises, shape.consts, shape.fallible, shape.result_type, True,
                 shape.pure_for)


def _leaf(info, _making=set()):
    """The Leaf of a code's first run (None: it is not one), found once the code is
    fused, its sites decided, and while it has not left its callers' runs too often
    (not while it is being found: a recursive function calls itself)."""
    leaf = info.leaf
    if leaf is None and info.entry_points and info not in _making:
        _making.add(info)
        # its first run as its own would be, but each site leaving on a miss: a site
        # that missed while warming up would else stay a place where code may run
        run = _Run(info)
        run.entry = 0
        run.patient = run.optimistic = True
        try:
            _path(run, info.start_index[0], 0)
            leaf = info.leaf = inlining.leaf_of(run, PROLOGUES, CALLEE_PROLOGUES) or False
        except (_NotYet, _Unended):
            pass
        finally:
            _making.discard(info)
    return leaf or None


def _not_inlined(info):
    """The runs the code's first run was written into are made again without it."""
    callers, info.inlined_into = info.inlined_into, None
    for caller, at in callers or ():
        _unmake(caller, at)


def stop_inlining(info):
    """The callee left its callers' runs too often (inlining.stopped_frame): not written
    any more (info.leaf False stays until one of its sites changes form)."""
    info.leaf = False
    _not_inlined(info)


def _put(run, names, indent=0):
    """Push names on the real stack (emitted if run is given; the lines are returned)."""
    if not names:
        lines = []
    elif len(names) == 1:
        lines = [f"stack.append({names[0]})"]
    else:
        lines = [f"stack += ({', '.join(names)},)"]
    if run is not None:
        for line in lines:
            run.emit(line, indent)
    return lines


def _leaving(run, pc, at, values):
    """Lines leaving the run for the loop to run instruction pc (at: its `at`) through
    the table, the values below and its operands put on the stack first."""
    lines = _put(None, values)
    if pc in run.info.entry_points:     # (dispatched there, this run would start again)
        return lines + [f"h, a, n = _instrs[{at}]", "return h(f, stack, a, n)"]
    return lines + [f"return {at}"]


def _branch(run, keyword, condition, shape, ops, names, outs, prologue=(), leave=()):
    """`if condition:` (or elif) running shape's effects and assigning its results to
    outs; for a fallible shape, `leave` when they raise its exception.  (Leaving
    through the table, the handler runs after the `except` clause: in it, its own
    exceptions would get the one caught as __context__.)"""
    run.emit(f"{keyword} {_fold(condition, ops, run)}:")
    for line in prologue:
        run.emit(line, 1)
    indent = 1
    calls_handler = shape.fallible and any("_instrs[" in line for line in leave)
    if calls_handler and not outs:
        run.emit("missed = False", 1)
    if shape.fallible:
        run.emit("try:", 1)
        indent = 2
    for effect in shape.effects:
        run.emit(_fill(effect, ops, names), indent)
    assigned = False
    for out, result in zip(outs, shape.results):
        value = _fill(result, ops, names)
        if value != out:           # (a guard may have assigned it already)
            run.emit(f"{out} = {value}", indent)
            assigned = True
    if calls_handler:
        missed = f"{outs[0]} is NULL" if outs else "missed"
        run.emit(f"except {shape.fallible}:", 1)
        run.emit(f"{outs[0]} = NULL" if outs else "missed = True", 2)
        run.emit(f"if {missed}:", 1)
        for line in leave:
            run.emit(line, 2)
    elif shape.fallible:
        run.emit(f"except {shape.fallible}:", 1)
        for line in leave:
            run.emit(line, 2)
    elif not shape.effects and not assigned and not prologue:
        run.emit("pass", 1)


def _for_iter(run, pc, site):
    """FOR_ITER in place: step the iterator on top of the stack, or leave the loop.

    Generic: next() of whatever iterator.  A site holding one of its sequence
    members: that member's guard (the iterator's exact type) and step (the run
    is made again when the site changes form, as for _site); one not decided
    yet or polymorphic: the same for whichever member it holds; a site whose
    specialization failed counts down and steps in place; anything else goes
    through the table.  A member that has not missed leaves the run on a miss,
    so what it steps to has the type its member yields (FOR_ITER_RANGE: int)."""
    run.flush()
    run.release()
    at = run.at(pc)
    exit_pc = run.param(site.arg if site is not None else run.info.plain[pc][1])
    value = run.new_temp()
    if site is None:
        run.escape()     # (whatever iterator: its __next__ may be the program's)
        run.emit(f"{value} = next(stack[-1], NULL)")
        run.emit(f"if {value} is NULL:")
        run.emit("del stack[-1]", 1)
        run.emit(f"return {exit_pc}", 1)
        run.push(value)
        return
    members = site.family.inline_members(site.oparg)
    it = run.temp("stack[-1]")
    held = site.inplace[0]
    fixed = not _keeps_changing(site) and (
        held in members or (held is site.base_handler and site.attempts))
    # a member that has not missed since it specialized: a miss leaves the run, so
    # only the member's step goes on (as for _site)
    clean = _steps_cleanly(site)
    if fixed:
        site.fused_in.add(run.entry)
        run.check_gone(pc)
        if clean and run.iterator_known and pc == run.entry:
            test = "True"    # (the first turn of a peeled loop checked it: _peel)
        elif held in members:
            test = f"type({it}) is {run.param(held.iterates)}"
        else:    # failed: the base instruction, counting down
            cells, ci = run.param(site.cells), run.param(site.ci)
            test = f"(c := {cells}[{ci}]) >= 16"
    else:
        run.emit(f"h = _instrs[{at}][0]")
        test = " or ".join(f"(h is {run.param(m)} and type({it}) is {run.param(m.iterates)})"
                           for m in members)
    run.emit(f"if {test}:")
    if fixed and held not in members:
        run.emit(f"{cells}[{ci}] = c - 16", 1)
    run.emit(f"{value} = next({it}, NULL)", 1)
    run.emit(f"if {value} is NULL:", 1)
    run.emit("del stack[-1]", 2)
    run.emit(f"return {exit_pc}", 2)
    run.emit("else:")
    if clean:
        for line in _leaving(run, pc, at, []):
            run.emit(line, 1)
        if held.yields is not None:
            run.known[value] = held.yields
    else:
        run.through_table(at, 1)
        run.emit(f"{value} = stack.pop()", 1)
        run.escape()     # (the iterator's own __next__, or a miss's)
    run.push(value)


def _steps_in_place(site):
    """A FOR_ITER site _for_iter writes: not one fixed to a member it cannot run in
    place (FOR_ITER_GEN pushes a frame: through the table, as any site)."""
    members = site.family.inline_members(site.oparg)
    held = site.inplace[0]
    return bool(members) and (held in members or held is site.base_handler
                              or _keeps_changing(site))


def _deref(run, pc, op, index):
    """LOAD_DEREF / STORE_DEREF in place: the cell is in the frame's slot `index`
    (ops/locals_ops.py).  An empty cell raises UnboundLocalError or NameError, as
    the handler does, outside the `except` clause (no __context__ from the lookup)."""
    if op == STORE_DEREF:
        run.emit(f"stack[{index}].cell_contents = {run.pop()}")
        return
    if run.info.handler_for(pc) is not None:
        run.flush()    # (an exception handler here unwinds to a depth: keep the stack real)
    run.at(pc)
    value = run.new_temp()
    run.emit("try:")
    run.emit(f"{value} = stack[{index}].cell_contents", 1)
    run.emit("except ValueError:")
    run.emit(f"{value} = NULL", 1)
    run.emit(f"if {value} is NULL:")
    run.emit(f"raise {run.param(unbound_deref)}(f, {index})", 1)
    run.push(value)


_compiled = generated.regex     # (codegen makes one per name: compiled once, not in re's cache)


def _compared(name):
    """A pattern finding the name where a bound compares it (`name <`, `< name`)."""
    return _compiled(rf"\b{name}\b(?= <)|(?<=< ){name}\b")


def _uses(name):
    """A pattern finding the name as a word."""
    return _compiled(rf"\b{name}\b")


def _build(run, instrs):
    params = "f, stack, arg, nxt, _instrs"
    text = "\n".join(run.lines + (run.first_turn or []))
    prologue = [line(run) if callable(line) else line for names, line in PROLOGUES.items()
                if any(_uses(name).search(text) for name in names)]
    if run.first_turn is not None:
        # the first turn, leaving for the others at its back edges (_peel)
        body = "\n".join("        " + line for line in prologue + ["while True:"])
        body += "\n" + "\n".join(
            "            " + (line.split("continue")[0] + "break"
                              if line.lstrip().startswith("continue") else line)
            for line in run.first_turn)
        body += "\n        while True:\n" + "\n".join("            " + line for line in run.lines)
    elif run.loops:
        body = "\n".join("        " + line for line in prologue + ["while True:"])
        body += "\n" + "\n".join("            " + line for line in run.lines)
    else:
        body = "\n".join("        " + line for line in prologue + run.lines)
    source = (f"def fused({params}):\n"
              f"    at = arg\n"
              f"    try:\n{body}\n"
              f"    except BaseException:\n"
              f"        if f.raised_at < 0:\n"
              f"            f.raised_at = at\n"
              f"        raise\n")
    code = _TEMPLATES.get(source)
    if code is None:
        made_for = run.info.code     # (named for the reader: runs of one shape share it)
        where = (f"{os.path.splitext(os.path.basename(made_for.co_filename))[0]}."
                 f"{made_for.co_qualname} at offset {2 * run.entry}")
        module = generated.compile_registered(generated.FUSED_RUN, source, where)
        ns = generated.namespace(module, _NAMESPACE)
        exec(module, ns)
        code = _TEMPLATES[source] = ns["fused"].__code__
        ns.clear()     # (the function and its globals: a cycle the program's gc would find)
    namespace = generated.namespace(code, _NAMESPACE)   # (linecache finds its source)
    namespace.update((f"p{i}", v) for i, v in enumerate(run.params))
    namespace["_gone"] = False    # set when the run is made again (refuse)
    namespace["_back_edges"] = _back_edge_lines(code, source)
    return FunctionType(code, namespace, "fused", (instrs,))


BACK_EDGE_MARK = "  # back edge "
_back_edges_of = {}     # code of a fused function -> {its line: the back edge's pc}


def _back_edge_lines(code, source):
    """The lines of fused function `code` (made from `source`) that go round its
    loop (`continue`), each with the pc of the JUMP_BACKWARD it stands for."""
    lines = _back_edges_of.get(code)
    if lines is None:
        lines = _back_edges_of[code] = {
            number: int(text.rsplit(BACK_EDGE_MARK, 1)[1])
            for number, text in enumerate(source.splitlines(), 1)
            if BACK_EDGE_MARK in text and text.lstrip().startswith("continue")}
    return lines


MAX_DISPATCHED = 6    # instructions executed through the table per fused function


def _members(info, pc, _made={}):
    """(handler or SiteShape, shape) of the members a site's fused run executes in place
    (the same for every site of a family with that oparg and kind of name: made once)."""
    site = info.plain[pc][1]
    named = source_attribute(site.arg) is not None
    key = (site.family, site.oparg, named)
    made = _made.get(key)
    if made is None:
        out = []
        for handler in site.family.inline_members(site.oparg):
            shape = handler.fuse_as(site.oparg)
            if shape is not None and (named or not _names_attribute(shape)):
                out.append((handler, shape))
        # one shape of results per site (members of a family push alike)
        made = _made[key] = [m for m in out if len(m[1].results) == len(out[0][1].results)] \
            if out else []
    return made


def _names_attribute(shape):
    return "{name}" in " ".join((shape.guard or "",) + shape.effects + shape.results)


_ENDS = _JUMPS | _RETURNS | {host.OPMAP["RAISE_VARARGS"], host.OPMAP["RERAISE"]}


def _targets(info):
    """Where jumps and exception handlers land, once per jump or handler."""
    targets = [ins.jump_target // 2 for ins in dis.get_instructions(info.code)
               if ins.jump_target is not None]
    return targets + [e.target for e in info.exc_entries]


def _joins(info, targets):
    """Instructions control reaches from more than one place (where an if/else
    joins, a loop's head, a handler): a run leaves for the loop there, so that
    each instruction is written in one run only."""
    incoming = {}
    starts = info.starts
    opcodes = info.opcodes
    for k in range(1, len(starts)):
        if opcodes[starts[k - 1]] not in _ENDS:
            incoming[starts[k]] = 1
    for t in targets:
        incoming[t] = incoming.get(t, 0) + 1
    return frozenset(pc for pc, n in incoming.items() if n > 1)


def _entry_points(info, targets):
    """Instructions the loop may be asked to dispatch: the first one, jump and
    exception-handler targets, and each one after an instruction that is not
    simple (where a frame resumes after a call or a yield)."""
    starts = info.starts
    opcodes = info.opcodes
    points = {starts[0]}
    points.update(targets)
    for k in range(1, len(starts)):
        if opcodes[starts[k - 1]] not in SIMPLE:
            points.add(starts[k])
    for pc in starts:
        if opcodes[pc] == FOR_ITER:
            # where an exhausted loop goes on: past its END_FOR and POP_TOP, which
            # FOR_ITER's exit does at once (ops/control.py), not at its jump target
            arg = info.plain[pc][1]
            points.add(arg.arg if pc in info.site_pcs else arg)
    return points


# -- when: a code object is fused once it is warm ---------------------------------------
# Generating and compiling the functions costs milliseconds per code object,
# far more than running code that executes a few times (module bodies, class
# bodies, most of a test suite).  Until then the code's first instruction and
# its backward jumps go through small stubs that count; at HOT the code is fused.
HOT = int(os.environ.get("QUICKENING_FUSE_AFTER", 16))   # tests set 1: fuse at once
_JUMP_BACK = (JUMP_BACKWARD, JUMP_BACKWARD_NO_INTERRUPT)


def arm(info):
    """Put the warming stubs in place (when the code object is decoded)."""
    instrs = info.instrs
    instrs[0] = (_warm_entry, 0, None)     # nxt None: a site's install() leaves it alone
    for pc in info.starts:
        if info.opcodes[pc] in _JUMP_BACK:
            instrs[pc] = (_warm_jump, pc, None)


def _warm(info):
    info.heat += 1
    if info.heat == HOT:
        for pc, entry in enumerate(info.instrs):
            if entry is not None and entry[2] is None:
                info.instrs[pc] = info.plain[pc]      # stubs out, blocks in
        fuse(info)


def _warm_entry(f, stack, pc, _):
    info = f.info
    _warm(info)
    h, arg, nxt = info.instrs[0] if info.heat >= HOT else info.plain[0]
    return h(f, stack, arg, nxt)


def _warm_jump(f, stack, pc, _):
    _warm(f.info)
    return f.info.plain[pc][1]     # the jump's target


def fuse(info):
    """Put a fused function at every entry point (made when it first runs, _lazy).

    The function runs the simple instructions from there, executes each
    instruction that is not simple in place when it can (else through
    info.plain) and goes on, until a jump or a return, or MAX_DISPATCHED
    instructions executed through the table.
    """
    info.start_index = {pc: k for k, pc in enumerate(info.starts)}
    instrs = info.instrs
    targets = _targets(info)
    info.entry_points = frozenset(_entry_points(info, targets))
    info.joins = _joins(info, targets)
    for pc in info.entry_points:
        instrs[pc] = (_lazy, pc, None)


class _NotYet(Exception):
    """A site of the run has not been specialized yet (fusion waits for it)."""


# A run is made once its sites have been specialized (or have failed to): a run
# made earlier would be made again when they are (refuse), and compiling one costs
# about a millisecond.  A site executed for the first time has not decided yet (it
# attempts at its 2nd execution): the entry point goes through the table up to
# PATIENCE more times, then its run is made anyway, undecided sites in the form
# that follows whatever they come to hold.  (Fusing at once, as the tests do,
# does not wait.)
PATIENCE = 3 if HOT > 1 else 0

# An entry point's run is made once the entry point itself has been reached this
# many times (after its code object got hot): compiling one costs about as much as
# running its instructions through the table a thousand times, and many entry
# points of a hot code object are reached only a few times.  (Fusing at once does
# not wait.)
ENTRY_WARMUP = int(os.environ.get("QUICKENING_ENTRY_WARMUP", 32)) if HOT > 1 else 0
# An entry point that another run already holds is reached from the loop only
# when that run left early (a site's counter ran out, a miss, a call the loop
# had to take over): it gets a run of its own only if that keeps happening
# (a failed site backing off would otherwise have the runs after it compiled
# again, one by one, for the few times it tries again).
INSIDE_WARMUP = 16 * ENTRY_WARMUP


def _lazy(f, stack, pc, _):
    """An entry point's function is made when it first runs (many never do: handlers,
    branches not taken), and made again after a site in it changed form."""
    info = f.info
    waits = info.fuse_waits
    if waits is None:
        waits = info.fuse_waits = {}
    waited = waits.get(pc, 0)
    inside = info.fuse_inside
    warmup = INSIDE_WARMUP if inside is not None and pc in inside[0] else ENTRY_WARMUP
    if waited < warmup:
        made = None
    else:
        try:
            made = _fuse_entry(info, pc, patient=waited < warmup + PATIENCE, frame=f)
        except _NotYet:
            made = None
    # (the instruction runs outside the `except` clause: the host would count
    # _NotYet as the exception being handled)
    if made is None:
        waits[pc] = waited + 1
        h, arg, nxt = info.plain[pc]     # (the stub stays)
        return h(f, stack, arg, nxt)
    if not made:
        info.instrs[pc] = info.plain[pc]
    h, arg, nxt = info.instrs[pc]
    return h(f, stack, arg, nxt)


def _fuse_entry(info, pc, patient=False, frame=None):
    """Make (or make again) the fused function starting at instruction pc
    (patient: raise _NotYet if a site in it is not specialized yet; frame: the one
    it is made in)."""
    run = _Run(info)
    run.entry = pc
    run.after_call = _after_call(info, pc)
    run.patient = patient
    run.frame = frame
    try:
        count = _path(run, info.start_index[pc], 0)
    except _Unended:
        return False
    if run.loops:
        _peel(run)
    if count >= 2 and not run.starts_dispatched:
        info.instrs[pc] = (_build(run, info.plain), pc, None)
        inside = info.fuse_inside
        if inside is None:
            inside = info.fuse_inside = (set(), set())
        pcs, made = inside
        made.add(pc)
        pcs.update(run.written)
        pcs.difference_update(made)
        return True
    return False


# A loop's run knows little at its head: the types of the locals it carries from
# one turn to the next (an accumulator ...), and what guards tested of objects it
# does not store to, are tested again on every turn.  Its first turn is written
# on its own, then the others knowing what held at the first turn's back edges;
# that is sound when it still holds at theirs.  (It does: knowing more at the head
# only folds more.  Were it not so, the loop would stay unpeeled.)
def _peel(run):
    """Write a loop's run as its first turn, then a loop of the others (_build)."""
    known, holds = _at_back_edges(run.back_edges)
    if not known and not holds and not _steps_own_iterator(run):
        return
    first = run.lines
    run.lines, run.pending, run.live, run.written = [], [], [], set()
    run.depth, run.origin, run.generation, run.back_edges = 0, {}, {}, []
    run.locals, run.holds, run.iterator_known = dict(known), set(holds), True
    run.unchecked = False     # (the back edges tested it)
    _path(run, run.info.start_index[run.entry], 0)
    now_known, now_holds = _at_back_edges(run.back_edges)
    if (all(now_known.get(i) is t for i, t in known.items()) and holds <= now_holds
            and _guards_saved(first, run.lines) * PEEL_WORTH >= len(first)):
        run.first_turn = first
    else:
        run.lines = first


# Peeling writes a loop twice, and compiling costs in proportion (about 17 µs a line);
# what it saves is the guard terms the other turns do not test (a type check about
# 40 ns).  A loop is peeled when each character of guard saved stands for at most
# this many lines: worth it for a loop going round some 50 000 times.  (Most
# loops save an iterator's type check, 8 characters: a long loop body is not worth
# writing twice for that.)
PEEL_WORTH = 15
_NAMES = re.compile(r"\b[tp]\d+\b")


def _guards_saved(first, others):
    """How much shorter the guards of the other turns are than the first turn's (the
    temps and constants named alike)."""
    def guards(lines):
        return sum(len(_NAMES.sub("X", line)) for line in map(str.strip, lines)
                   if line.startswith(("if ", "elif ")))
    return guards(first) - guards(others)


def _at_back_edges(edges):
    """What holds at every back edge: (locals' types, guard terms)."""
    if not edges:
        return {}, set()
    known, holds = edges[0]
    known, holds = dict(known), set(holds)
    for k, h in edges[1:]:
        known = {i: t for i, t in known.items() if k.get(i) is t}
        holds &= h
    return known, holds


def _steps_own_iterator(run):
    """The loop's head is a FOR_ITER whose member's guard a peeled loop tests once."""
    info = run.info
    return (run.entry in info.site_pcs and info.opcodes[run.entry] == FOR_ITER
            and _steps_cleanly(info.plain[run.entry][1]))


def _steps_cleanly(site):
    """A FOR_ITER site fixed to one of the members _for_iter writes, not missed since:
    a miss leaves the run, so what follows knows the member's guard held."""
    return (site.inplace[0] in site.family.inline_members(site.oparg) and _unmissed(site)
            and not _keeps_changing(site))


# A run goes on past a conditional branch: its fall-through side first, inside
# an `if` (every path of a run ends returning to the loop or going round
# again), then its taken side; and on at a forward jump's target.  Each
# instruction is written at most once in a run: a path reaching one already
# written (where an if/else joins) leaves for the loop there, as does a side
# whose first block holds a site never executed (a branch not taken so far:
# compiling it would only cost, and its sites are undecided), and any side
# once MAX_RUN instructions are written.  (A branch's side and a jump's target
# are entry points: the loop goes on there with a run of their own.)
MAX_RUN = 240


def _returns_at_once(info, j):
    """The j-th instruction and the few after it only move references and return (the
    end of `return a or b`): a path reaching them there writes them again rather than
    leave for the loop to dispatch them."""
    starts, opcodes = info.starts, info.opcodes
    for k in range(j, min(j + 3, len(starts))):
        op = opcodes[starts[k]]
        if op in _RETURNS:
            return True
        if op not in SIMPLE:
            return False
    return False


class _Unended(Exception):
    """The code ends without a terminator where a run would go on (not made)."""


def _path(run, j, dispatched):
    """Write the instructions from the j-th on until the path leaves (a return, a
    round of a loop, back to the loop); how many were written."""
    info = run.info
    plain = info.plain
    opcodes = info.opcodes
    opargs = info.opargs
    starts = info.starts
    sites = info.site_pcs
    n = len(starts)
    count = 0
    joins = info.joins
    while j < n:
        p = starts[j]
        if count and (p in joins and not _returns_at_once(info, j)
                      or run.after_call and _left_often(info, p)):
            run.flush()
            run.goes_on(p)
            return count
        op = opcodes[p]
        j += 1
        count += 1
        run.written.add(p)
        if op in SIMPLE:
            _simple(run, op, opargs[p], plain[p][1])
            continue
        if op in TERMINATORS:
            _, arg, nxt = plain[p]
            return count + _terminate(run, op, arg, nxt, dispatched)
        if op == FOR_ITER and (p in sites or plain[p][0] is HANDLERS[op]):
            site = plain[p][1] if p in sites else None
            if site is None or _steps_in_place(site):
                _for_iter(run, p, site)
                continue
        if op == YIELD_VALUE and plain[p][0] is HANDLERS[op]:
            # the frame suspends (ops/control.py yield_value): the path ends here
            value = run.pop()
            run.flush()
            run.emit(f"f.retval = {value}")
            run.emit(f"f.pc = {plain[p][2]}")
            run.emit("return YIELD")
            return count
        if (op == LOAD_DEREF or op == STORE_DEREF) and plain[p][0] is HANDLERS[op]:
            _deref(run, p, op, opargs[p])
            continue
        if p not in sites and op in GENERIC:
            shape = GENERIC[op](opargs[p], plain[p][1])
            if shape is not None and plain[p][0] is HANDLERS[op]:
                _in_place(run, p, shape, plain[p][1])
                continue
        last = dispatched + 1 == MAX_DISPATCHED or j == n
        if op == FOR_ITER and p in sites:
            plain[p][1].fused_in.add(run.entry)    # (made again if it changes form)
            _dispatch(run, p, last)
            in_place = False
        elif p in sites:
            in_place = _site(run, p, last, plain[p][1])
        else:
            _dispatch(run, p, last)
            in_place = False
        if not in_place:
            dispatched += 1
            if count == 1 and p == run.entry:
                # (a run starting with an instruction through the table, a call or a
                # yield, would only add a call to the loop's own dispatch of it)
                run.starts_dispatched = True
        if last:
            return count
    raise _Unended


def _follow(run, pc, dispatched, side=False):
    """Go on at pc in this run (a branch's side, a forward jump's target), or leave
    for the loop there; how many instructions were written.  side: written one
    level in, after an `if` (the state of the stack simulated is restored after
    it for the other side)."""
    if side:
        saved = (run.depth, list(run.pending), list(run.live), dict(run.locals),
                 set(run.holds), dict(run.generation), run.unchecked)
        run.depth += 1
    info = run.info
    if ((pc in run.written or pc in info.joins)
            and not _returns_at_once(info, info.start_index[pc])
            or len(run.written) >= MAX_RUN or _cold(info, pc)):
        run.flush()
        run.goes_on(pc)
        count = 0
    else:
        count = _path(run, run.info.start_index[pc], dispatched)
    if side:
        (run.depth, run.pending, run.live, run.locals, run.holds, run.generation,
         run.unchecked) = saved
    return count


def _cold(info, pc):
    """The block at pc holds a site never executed yet."""
    starts = info.starts
    plain = info.plain
    j = info.start_index[pc]
    for k in range(j, min(j + 64, len(starts))):
        p = starts[k]
        if p in info.site_pcs:
            site = plain[p][1]
            if not site.attempts and site.cells[site.ci] == quicken.WARMUP:
                return True
        if info.opcodes[p] in TERMINATORS:
            break
    return False
