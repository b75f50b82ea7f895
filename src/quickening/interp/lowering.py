"""Lowerings: how an instruction is written into generated code.

A `Shape` says how a fused run (fusion.py) executes one instruction in place:
its operands, the expressions or statements it becomes, the guard it needs.
Shapes of generic instructions live here (GENERIC); a member's shape is
derived from its declaration (spec.py).  This module sits below both the
specification and the speed engine, so that neither imports the other's
internals.
"""

import keyword

from quickening.interp import host
from quickening.interp.quiet import AUDITED_READS

_OP = host.OPMAP
# the types whose instances a comparison or a truth test turns into bool without code of
# the program running
_KNOWN_TYPES = frozenset({int, float, str, bool})


class Shape:
    """How a fused run executes an instruction in place.

    npop operands come off the stack ({0} the deepest ... {npop-1} the top);
    `effects` are statements run for their effect and `results` expressions
    pushed in order; {arg} names the instruction's decoded argument.  A
    member's shape has a `guard`: the member's own guard, written over the
    operands; when it fails (or the site holds another form) the instruction
    runs through the table instead.  `raises`: the expressions may raise or
    call out (the instruction is then the one the frame is at).  `fallible`: an
    exception class the effects and results raise where the member misses after
    its guard passed (an empty slot): the instruction then goes through the
    table, which counts the miss and runs the base instruction.  `result_type`:
    the exact type of its one result when the guard passed (a later guard's
    `type(r) is T` is then known true where only that path goes on: _site).
    `pure`: once its guard passed, it runs no code of the program (it may
    raise), so what the run knows of the frame's locals still holds after it
    (_Run.locals).  `pure_for`: for a generic operation, given its operands'
    exact types, None when it may run code of the program, else the exact type
    of its result (`object`: not known) -- it runs none.
    """

    __slots__ = ("npop", "results", "guard", "effects", "raises", "consts", "fallible",
                 "result_type", "pure", "pure_for")

    def __init__(self, npop, results=(), guard=None, effects=(), raises=True, consts=(),
                 fallible=None, result_type=None, pure=False, pure_for=None):
        self.npop, self.results, self.guard = npop, tuple(results), guard
        self.effects, self.raises, self.fallible = tuple(effects), raises, fallible
        self.result_type, self.pure, self.pure_for = result_type, pure, pure_for
        # values the templates name {c0}, {c1} ... (a member's cached facts); {r0} ...
        # name the temps receiving the results (a guard may assign them)
        self.consts = None if consts is None else tuple(consts)


class SiteShape:
    """The shape of a member made for one site (its facts in a closure: a type
    version, a dict version ...).  Each specialization makes a new closure, so
    a fused run cannot name the handler; the handler carries
    `inplace = (kind, fact0, fact1, ...)`, install() copies it to the site, and
    the run checks `site.inplace[0] is kind`, its template reading {c0}, {c1}
    ... from the site.  A polymorphic site that re-specializes every 53 misses
    keeps running in place."""

    __slots__ = ("fuse_as", "inline_as")

    def __init__(self, fuse_as, inline_as=None):
        self.fuse_as = fuse_as    # oparg -> Shape (consts None: they come from the site)
        # for a call whose callee a run may have written into it (inlining.py): oparg ->
        # {"info_at": index of the callee's CodeInfo in the facts, "info", "locals",
        #  "size", "new_frame": templates of its frame's parts, as the shape makes them}
        self.inline_as = inline_as

    def facts(self, handler, *consts):
        """Mark handler as a member of this kind with these facts ({c0} ...)."""
        handler.inplace = (self,) + consts
        return handler


def source_attribute(name):
    """`name` as written after a dot in generated source, or None when it cannot be
    (not an ASCII identifier, a keyword, __debug__).  `o.name` runs the same
    PyObject_GetAttr/SetAttr as getattr/setattr, and the host specializes it:
    about 25 ns less per access.  ({name} in a member's templates.)  None too for
    the attributes whose read raises an audit event: written out, the read could not
    be told from the interpreter's own (audit.py); through getattr() it is the program's."""
    if (type(name) is str and name.isascii() and name.isidentifier()
            and not keyword.iskeyword(name) and name != "__debug__" and name not in AUDITED_READS):
        return name
    return None


# generic instructions executed in place: opcode -> shape(oparg, arg) (None: dispatch)
GENERIC = {}

# Names that templates may use as if bound: the names a line binds -> the line (or
# line(run), made for the run), run once when the fused function starts if its text
# uses one of them (what stays the same for a frame: see load_global)
PROLOGUES = {}
# For a callee written into its caller (inlining.py), a prologue's names may be the
# caller's own when this condition holds of the function called ({fn}): the names
# a prologue binds -> the condition.  (A prologue not here: the callee is not written.)
CALLEE_PROLOGUES = {}


# What the builtin number and str types give one another without running code of the
# program (pure_for): int op int, float with int or float, str + str, str * int
_INT_RESULT = frozenset({"+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>"})
_FLOAT_RESULT = frozenset({"+", "-", "*", "/", "//", "%"})
_NUMBERS = (int, float)


def _arithmetic(sym):
    op = sym[:-1] if sym.endswith("=") else sym      # (+= of these types is +)

    def pure_for(types):
        a, b = types
        if a is int and b is int:
            return float if op == "/" else int if op in _INT_RESULT else None
        if a in _NUMBERS and b in _NUMBERS:        # (one is a float)
            return float if op in _FLOAT_RESULT else None
        if op == "+" and a is str and b is str or op == "*" and {a, b} == {str, int}:
            return str
        return None
    return pure_for


def _binary_op_shape(oparg, arg):
    sym = host.BINARY_OP_SYMBOLS[oparg]
    if sym.endswith("="):
        return None   # in-place forms dispatch (they need a statement, kept simple)
    return Shape(2, [f"{{0}} {sym} {{1}}"], pure_for=_arithmetic(sym))


def _comparison(types):
    return bool if all(t in _KNOWN_TYPES for t in types) else None


def _compare_op_shape(oparg, arg):
    sym = host.COMPARE_SYMBOLS[oparg >> 5]
    if oparg & 16:
        return Shape(2, [f"True if {{0}} {sym} {{1}} else False"], pure_for=_comparison)
    return Shape(2, [f"{{0}} {sym} {{1}}"], pure_for=_comparison)


def _indexing(types):
    container, index = types
    if index is int and container in (list, tuple, str):
        return str if container is str else object
    return None


GENERIC[_OP["BINARY_OP"]] = _binary_op_shape
GENERIC[_OP["COMPARE_OP"]] = _compare_op_shape
GENERIC[_OP["TO_BOOL"]] = lambda oparg, arg: Shape(1, ["True if {0} else False"],
                                                   pure_for=_comparison)
GENERIC[_OP["BINARY_SUBSCR"]] = lambda oparg, arg: Shape(2, ["{0}[{1}]"], pure_for=_indexing)
GENERIC[_OP["STORE_SUBSCR"]] = lambda oparg, arg: Shape(
    3, effects=["{1}[{2}] = {0}"],
    pure_for=lambda types: object if types[1] is list and types[2] is int else None)
GENERIC[_OP["CONTAINS_OP"]] = lambda oparg, arg: Shape(
    2, ["{0} not in {1}" if oparg else "{0} in {1}"])
GENERIC[_OP["GET_ITER"]] = lambda oparg, arg: Shape(1, ["iter({0})"])
GENERIC[_OP["UNARY_NEGATIVE"]] = lambda oparg, arg: Shape(1, ["-{0}"])
GENERIC[_OP["BUILD_TUPLE"]] = lambda oparg, arg: Shape(
    oparg, ["(" + "".join(f"{{{i}}}, " for i in range(oparg)) + ")"], raises=False)
GENERIC[_OP["BUILD_LIST"]] = lambda oparg, arg: Shape(
    oparg, ["[" + ", ".join(f"{{{i}}}" for i in range(oparg)) + "]"], raises=False)
GENERIC[_OP["BINARY_SLICE"]] = lambda oparg, arg: Shape(3, ["{0}[{1}:{2}]"])


def _load_attr_shape(oparg, arg):
    attr = source_attribute(arg[0])
    value = f"{{0}}.{attr}" if attr else "getattr({0}, {arg}[0])"
    return Shape(1, [value, "NULL"] if oparg & 1 else [value])


def store_attr_shape(name):
    """The generic STORE_ATTR of name: {1}.name = {0} (setattr when not writable so).
    None for f_trace: `sys._getframe().f_trace = fn` traces the running frame from
    the next instruction on, which its handler sees (ops/attrs.py)."""
    if name == "f_trace":
        return None
    attr = source_attribute(name)
    return Shape(2, effects=[f"{{1}}.{attr} = {{0}}" if attr else "setattr({1}, {arg}, {0})"])


GENERIC[_OP["LOAD_ATTR"]] = _load_attr_shape
GENERIC[_OP["STORE_ATTR"]] = lambda oparg, arg: store_attr_shape(arg)
