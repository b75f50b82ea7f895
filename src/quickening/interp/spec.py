"""The specification's vocabulary: guards, members and families, each declared once.

CPython's Python/bytecodes.c declares each instruction once -- its family,
the guard ops it is made of, its cache layout, its operation -- and a
generator derives the interpreters from it.  This module does the same in
Python.  A family module declares

    BINARY_OP = Family("BINARY_OP", operands="lhs rhs", generic=..., specializer=...)

    ADD_INT = BINARY_OP.member(
        "BINARY_OP_ADD_INT",
        stack="left right -- res",
        guards=[EXACT_TYPE("left", int), EXACT_TYPE("right", int)],
        op="left + right", result=int, runs_code=False)

and everything else is derived here from that declaration:

  * the base instruction's adaptive handler (count down; at zero, specialize
    on the live operands) from the family's generic operation and specializer;
  * each member's dispatch handler: its guards, then its operation; a failed
    guard deoptimizes (counts the miss and runs the base handler);
  * the cells the specializer writes, from the member's facts named after the
    family's cache fields (`version` is written into the `version` cells);
  * its in-place form in fused runs (a lowering.Shape);
  * its entry in docs/members.md (reference()).

Handlers are generated Python source (generated.py keeps it, for linecache
to find): a member's handler reads exactly like the hand-written one it
replaces, so deriving it costs nothing at run time.

Names in a declaration: a stack effect names the operands (deepest first)
and the results; guards and the operation are Python expressions over those
names, the member's facts (what the specializer records for the site, bound
per site) and the names a guard declares it needs (`needs`).  `OPARG` stands
for the instruction's oparg where a guard or an operation depends on it.
"""

import inspect
import re
import weakref
from types import FunctionType

from quickening.interp import (facts as _facts, generated, hand_bodies, host, quicken,
                               typewatch as _typewatch)
from quickening.interp.lowering import Shape, SiteShape
from quickening.interp.versions import SPEC


class _Oparg:
    def __repr__(self):
        return "OPARG"


OPARG = _Oparg()    # a guard's argument standing for the instruction's oparg
_WORDS = generated.regex(r"\w+")
_UNSET = object()
_BASE = "base"    # a member handler's name for its family's base handler


# -- guards ------------------------------------------------------------------------------
class Guard:
    """A named test a member makes before its operation (bytecodes.c's DEOPT_IF op).

    `test` is a Python expression over named parameters ({x}, {T} ...), bound
    when a member uses the guard; `needs` are objects the test names (read
    from memory: a memoryview, an offset).  A miss deoptimizes."""

    def __init__(self, name, test, doc, needs=None):
        self.name, self.test, self.doc = name, test, doc
        self.params = tuple(dict.fromkeys(generated.regex(r"{(\w+)}").findall(test)))
        self.needs = dict(needs or {})
        # a cheaper test with the same meaning, over facts `prepare` derives from this
        # guard's (tests/interp/test_spec.py checks both answer alike)
        self.cheap = self.prepare = None
        self.consumes = ()

    def lowered(self, test, prepare, consumes=(), needs=None):
        """Declare a cheap lowering: `test` over the names prepare(**facts) gives, from
        the member's facts (those in `consumes` serve only that: the site keeps what
        prepare made of them, not them)."""
        self.cheap = Guard(self.name, test, self.doc, needs)
        self.prepare = prepare
        self.consumes = tuple(consumes)
        return self

    def holds(self, **values):
        """Evaluate the general test on values (for tests and tools, not the hot path)."""
        return _evaluate(self, values)

    def holds_cheaply(self, **values):
        """Evaluate the cheap lowering on the facts prepared from the same values."""
        return _evaluate(self.cheap, {**values, **self.prepare(**values)})

    def extra(self):
        """The names the cheap lowering adds to the general one's."""
        return tuple(p for p in self.cheap.params if p not in self.params) if self.cheap else ()

    def __call__(self, *args, **kwargs):
        bound = dict(zip(self.params, args))
        bound.update(kwargs)
        missing = set(self.params) - set(bound)
        if missing:
            raise TypeError(f"guard {self.name} needs {', '.join(sorted(missing))}")
        return Check(self, bound)

    def __repr__(self):
        return f"<guard {self.name}: {self.test}>"


class Check:
    """A guard applied to a member's names (operands, facts) or to constants."""

    __slots__ = ("guard", "bound", "raised", "where")

    def __init__(self, guard, bound):
        self.guard, self.bound = guard, bound
        self.raised = self.where = None

    def or_raises(self, exception, where=None):
        """The operation itself raises `exception` (before any effect) exactly where
        this check fails: the handler and fused runs leave the check to it and take
        that exception for the miss.  `where`: a fact of the site saying whether this
        holds there (getattr raises AttributeError for a missing value only without
        __getattr__); elsewhere the check is made."""
        self.raised, self.where = exception, where
        return self

    def left_to_operation(self, conditions):
        """Whether the operation makes this check (at a site with these conditions)."""
        return self.raised is not None and (self.where is None or conditions.get(self.where))

    def text(self):
        """The test over the member's names (a type as its builtin name, an int as itself)."""
        return self.guard.test.format(**{p: _written(v) for p, v in self.bound.items()})

    def function(self, *names):
        """The check as a function of the member's names (its general lowering): for a
        hand-written path that must ask it again (a miss after a partial effect)."""
        source = f"lambda {', '.join(names)}: {self.text()}"
        return eval(source, dict(self.guard.needs))

    def cheap_text(self):
        """The test in its cheap lowering, where the guard has one (its added names as
        they are)."""
        cheap = self.guard.cheap
        if cheap is None:
            return self.text()
        names = {p: _written(self.bound[p]) if p in self.bound else p for p in cheap.params}
        return cheap.test.format(**names)


def _evaluate(guard, values):
    names = {p: f"_{p}" for p in guard.params}
    namespace = dict(guard.needs, **{f"_{p}": v for p, v in values.items()})
    return eval(guard.test.format(**names), namespace)


def _written(value):
    if value is OPARG:
        return "{oparg}"
    if isinstance(value, str):
        return value                # a name of the member (or an expression of them)
    if isinstance(value, type):
        return value.__name__       # (builtins only: generated code sees the builtins)
    if type(value) is int:
        return repr(value)
    raise TypeError(f"a guard's argument must be a name, a builtin type or an int: {value!r}")


# The guards the families share (each has one meaning; a family may declare its own).
EXACT_TYPE = Guard("EXACT_TYPE", "type({x}) is {T}",
                   "x's type is exactly T (a subclass misses)")
EXACT_SET = Guard("EXACT_SET", "(type({x}) is set or type({x}) is frozenset)",
                  "x is exactly a set or a frozenset")
IS_NONE = Guard("IS_NONE", "{x} is None", "x is None")
IS = Guard("IS", "{x} is {obj}", "x is the builtin obj itself")
COMPACT = 1 << 30                  # |v| < 2**30: an int of one 30-bit digit
COMPACT_INT = Guard("COMPACT_INT", f"-{COMPACT} < {{x}} < {COMPACT}",
                    "the int x is compact (one 30-bit digit)")
NON_NEGATIVE_COMPACT = Guard("NON_NEGATIVE_COMPACT", f"0 <= {{x}} < {COMPACT}",
                             "the int x is compact and not negative")
INDEX_IN_RANGE = Guard("INDEX_IN_RANGE", "{index} < len({seq})",
                       "index (not negative) is within seq")
EXACT_LENGTH = Guard("EXACT_LENGTH", "len({seq}) == {n}", "seq has exactly n items")
# the general lowering of a type-version guard: the tag read from the type object
TYPE_VERSION = Guard("TYPE_VERSION", "MEM32[(id(type({x})) + TP_VERSION_TAG) >> 2] == {version}",
                     "type(x)'s version tag is the cached version (any change to the "
                     "class gives it a new one)",
                     needs={"MEM32": _facts.MEM32, "TP_VERSION_TAG": _facts.TYPE_VERSION_TAG})
# Its cheap lowering: the class seen at specialization, and a token a type watcher turns
# false when the class is modified (typewatch.py): the same answer, as tags are never reused.
TYPE_VERSION.lowered("type({x}) is {cls_ref}() and {token}[0]",
                     lambda version, cls, **_: {"cls_ref": weakref.ref(cls),
                                                "token": _typewatch.token(cls, version)},
                     consumes=("cls",))
# A function's version (func_version): the general lowering reads it by the object's
# address (any function object); the cheap one first tries the function seen at
# specialization through a view of its own field, then any other by address.
FUNCTION_VERSION = Guard("FUNCTION_VERSION",
                         "type({fn}) is FunctionType and "
                         "MEM32[(id({fn}) + FUNC_VERSION_OFFSET) >> 2] == {func_version}",
                         "fn is a Python function whose version is the cached one (its code, "
                         "defaults and closure as at specialization)",
                         needs={"MEM32": _facts.MEM32, "FunctionType": FunctionType,
                                "FUNC_VERSION_OFFSET": _facts.FUNC_VERSION})
FUNCTION_VERSION.lowered(
    "({fn} is {seen_ref}() and {seen_version}[0] == {func_version} or type({fn}) is FunctionType "
    "and FUNC_VERSIONS[id({fn}) >> 2] == {func_version})",
    lambda seen, **_: {"seen_ref": weakref.ref(seen),
                       "seen_version": _facts.MEM8[id(seen) + _facts.FUNC_VERSION:
                                                   id(seen) + _facts.FUNC_VERSION + 4].cast("I")},
    consumes=("seen",),
    needs={"FunctionType": FunctionType,
           "FUNC_VERSIONS": _facts.words_from(_facts.FUNC_VERSION, 4)})


# -- members -----------------------------------------------------------------------------
class Member:
    """One specialized form of a family, declared once (see the module's docstring).

    stack      "in1 in2 -- out1": operands deepest first, then results; "*items" is
               a variable number of results (the operation then gives a list)
    guards     Checks, tested in order before the operation
    op         the result's expression (a list for several results, a statement
               when there is none), or a function of the oparg giving it, or
               Hand(fn): an operation written by hand, run once the guards passed
    facts      what the specializer records for a site (names bound per site);
               those named after a cache field of the family are written into its cells
    variants   oparg -> names the guards and the operation use as {name}
    serves     oparg -> whether a site with that oparg can hold the member
    in_place   whether fused runs execute it in place (else through its handler),
               or oparg -> whether they do
    result     the exact type of its one result (what a fused run then knows)
    runs_code  whether the operation may run code of the program once its guards
               passed (hashing a key, comparing items ...)
    cache      its cache cells after the counter, "version/2 index/1" (default: the
               family's fields); facts of those names are written into them
    uses       objects the operation names ({"NULL": NULL})
    sets_pc    the frame is at the next instruction while the operation runs (as
               CPython's instr_ptr during a call: code it runs may look at the frame)
    raises     whether the operation may raise
    attribute  the fact holding the site's attribute name: fused runs write
               getattr(o, name) / setattr(o, name, v) as o.name (the host
               specializes it)
    needs      objects the guards or the operation name beyond the guards' own
               (interp->callable_cache's len ...)
    miss       Hand: what a miss runs in place of counting it and running the base
               handler (it does both), for a member whose CPython form changes the
               stack between its guards (CALL_BOUND_METHOD_EXACT_ARGS unpacks first)
    fast       for a member by hand: fast(handler, oparg, facts, prepared) -> the
               handler a site installs (a path for what was seen at specialization,
               falling back to `handler`, or `handler` marked for fused runs)
    """

    def __init__(self, family, name, *, stack, guards, op, facts=(), variants=None,
                 serves=None, in_place=True, result=None, runs_code=True, raises=True,
                 attribute=None, sets_pc=False, cache=None, uses=None, doc="", needs=None,
                 miss=None, fast=None):
        inputs, _, outputs = stack.partition("--")
        self.family, self.name, self.stack = family, name, stack
        self.inputs, self.outputs = tuple(inputs.split()), tuple(outputs.split())
        self.guards, self.op, self.facts = tuple(guards), op, tuple(facts)
        self.variants, self._serves, self.runs_in_place = variants, serves, in_place
        self.result, self.runs_code, self.raises = result, runs_code, raises
        self.doc, self.attribute, self.sets_pc = doc, attribute, sets_pc
        self.by_hand = isinstance(op, Hand)
        self._body = hand_bodies.body_lines(op.fn, op.params) if self.by_hand else None
        self._paste = _UNSET
        if self.by_hand and in_place is True:
            self.runs_in_place = False       # (a hand operation has no derived lowering)
        self.needs = dict(uses or {})
        for check in self.guards:
            self.needs.update(check.guard.needs)
            if self._cheap(check):
                self.needs.update(check.guard.cheap.needs)
        if self.by_hand:
            self.needs[op.name] = op.fn
        self._hand_extensions(needs, miss, fast)
        # the facts deciding whether an or_raises check is left to the operation
        self.conditions = tuple(dict.fromkeys(c.where for c in self.guards if c.where))
        # the cache cells after the counter, in order: the member's own layout
        # (bytecodes.c's "type_version/2 index/1"), else the family's fields
        self.layout = (_layout(cache) if cache is not None else
                       {k: v for k, v in family.cache_fields.items() if k != "counter"})
        room = sum(v for k, v in family.cache_fields.items() if k != "counter")
        if sum(self.layout.values()) > room:
            raise ValueError(f"{name}: cache layout {cache!r} is larger than the family's")
        self.cells = tuple(fact for fact in self.facts if fact in self.layout)
        consumed = {name for check in self.guards if self._cheap(check)
                    for name in check.guard.consumes}
        # the facts the handler holds: those its guards and operation name (a fact
        # only written into the cache, as CPython's borrowed pointers, is not kept)
        named = self._named()
        self.kept = tuple(fact for fact in self.facts if fact not in consumed and fact in named)
        # the facts a pasted body tests (their answers specialize it: hand_bodies.py)
        self._tested = tuple(sorted(self._body.tests & set(self.kept))) if self._body else ()
        self._handlers = {}       # variant key -> handler (or, with facts, its factory)
        self._kinds = {}          # variant key -> SiteShape (members with facts)
        self._oparg_keys = {}     # oparg -> its part of the key (_oparg_key)
        self._lowered = None      # the cheap checks' bindings (_cheap_bindings)
        self._extra_names = None  # what they add (_extra)

    def _named(self):
        """The words the guards' arguments and the operation's texts use."""
        texts = [v for c in self.guards for v in c.bound.values() if isinstance(v, str)]
        if self.by_hand:
            texts += self.op.params
        else:
            for oparg in (0, 1):
                op = self.op(oparg) if callable(self.op) else self.op
                texts += [op] if isinstance(op, str) else list(op)
        if self.attribute:
            texts.append(self.attribute)
        return set(_WORDS.findall(" ".join(texts)))

    # -- what a site of this member runs ----------------------------------------------
    def serves(self, oparg):
        return self._serves is None or self._serves(oparg)

    def _fused(self, oparg):
        fused = self.runs_in_place
        return (fused(oparg) if callable(fused) else fused) and self.serves(oparg)

    def _key(self, oparg, facts=None):
        names_key, which, names = self._oparg_key(oparg)
        conditions = tuple(bool(facts[w]) for w in self.conditions) if facts else ()
        return (names_key, which, conditions), names

    def _oparg_key(self, oparg):
        """The part of a handler's key the oparg decides (kept: a churning site
        asks for it at every re-specialization)."""
        got = self._oparg_keys.get(oparg)
        if got is None:
            names = self.variants(oparg) if self.variants is not None else {}
            variable = self._variadic() or any(v is OPARG for c in self.guards
                                               for v in c.bound.values())
            # (an operation given per oparg: one handler per text it gives, not per oparg)
            op = self.op(oparg) if callable(self.op) and not self.by_hand else None
            op = (op,) if isinstance(op, str) else tuple(op) if op is not None else None
            got = self._oparg_keys[oparg] = (tuple(sorted(names.items())),
                                             oparg if variable else op, names)
        return got

    def _variadic(self):
        return any("[" in name for name in self.inputs)

    def _conditions(self, key):
        return dict(zip(self.conditions, key[2])) if key[2] else {}

    def _texts(self, oparg, names, conditions, fused=False):
        """(guard, results or statement, exception) over the member's names, for this
        oparg: the guard less the checks the operation makes itself (or_raises), whose
        exception is then the miss."""
        subst = dict(names, oparg=oparg)
        left = [c for c in self.guards if c.left_to_operation(conditions)]
        guard = " and ".join((c.cheap_text() if fused and self._cheap(c) else c.text())
                             for c in self.guards if c not in left) or "True"
        raised = left[0].raised if left else None
        if self.by_hand:
            return _filler(subst)(guard), [], None, raised
        op = self.op(oparg) if callable(self.op) else self.op
        results = [op] if isinstance(op, str) and self.outputs else list(op) if self.outputs else []
        statement = None if self.outputs else op
        fill = _filler(subst)
        return (fill(guard), [fill(r) for r in results], (fill(statement) if statement else None),
                raised)

    def handler(self, oparg, **facts):
        """The dispatch handler of a site holding this member (with its facts)."""
        key, names = self._key(oparg, facts)
        # (a pasted body is specialized by the answers of the facts it tests)
        answers = tuple(self._body.answer(name, facts[name]) for name in self._tested)
        made = self._handlers.get((key, answers))
        if made is None:
            made = self._handlers[key, answers] = self._generate(
                oparg, names, self._conditions(key), answers)
        if not self.facts:
            return made if self.fast is None else self.fast(made, oparg, {}, {})
        prepared = self._prepared(oparg, facts)
        extra = [prepared[name] for name in self._extra()]
        handler = made(*(facts[name] for name in self.kept), *extra)
        if self.fast is not None:
            return self.fast(handler, oparg, facts, prepared)
        if not self._fused(oparg):
            return handler
        return self._kind(oparg, facts).facts(handler, *(facts[name] for name in self.kept),
                                              *extra, *self._objects())

    def _generate(self, oparg, names, conditions, answers=()):
        # (the handler tests each guard in its cheap lowering, as fused runs do: the
        # same answer, tests/interp/test_spec.py)
        guard, results, statement, raised = self._texts(oparg, names, conditions, fused=True)
        fname = self.name.lower()
        body = [f"def {fname}(f, stack, site, nxt):"]
        body += ["    " + line for line in self._operands(
            oparg, " ".join([guard, *results, statement or ""]))]
        body.append(f"    if {guard}:")
        if self.sets_pc:
            body.append("        f.pc = nxt")
        if self.by_hand:
            # (operands the operation does not name are dropped first: a frame it
            # pushes may hold the only reference, as CPython's does)
            bound = {line.split(" = ")[0] for line in self._operands(oparg, guard)}
            dropped = [name.partition("[")[0] for name in self.inputs
                       if name.partition("[")[0] not in self.op.params
                       and name.partition("[")[0] in bound]
            if dropped:
                body.append(f"        del {', '.join(dropped)}")
            pasted = self._pasted(oparg, answers)
            if pasted is None:
                body.append(f"        return {self.op.call()}")
            else:
                body += ["        " + line for line in pasted]
        elif raised:
            # the operation makes the last check: its exception is the miss, and
            # the stack changes only once it has succeeded
            temps = [f"_r{i}" for i in range(len(results))]
            body.append("        try:")
            if statement is not None:
                body.append(f"            {statement}")
            else:
                body.append(f"            {', '.join(temps)} = {', '.join(results)}")
            body.append(f"        except {raised}:")
            body.append("            pass")
            body.append("        else:")
            body += ["            " + line for line in
                     _stack_update(len(self.inputs), temps,
                                   None if statement is None else "pass")]
            body.append("            return nxt")
        else:
            body += ["        " + line for line in _stack_update(self._slots(oparg), results,
                                                                statement)]
            body.append("        return nxt")
        if self.miss is not None:
            body.append(f"    return {self.miss.call()}")
        else:
            body.append("    site.misses += 1")
            body.append(f"    return {_BASE}(f, stack, site, nxt)")
        literals = _placer({n: repr(v) for n, v in self.needs.items() if type(v) is int},
                           escape=False)
        body = [literals(line) for line in body]
        if self.facts:
            body = [f"def make({', '.join(self.kept + self._extra())}):"] + ["    " + b for b in body]
            body.append(f"    return {fname}")
        key = self._key(oparg)[0]
        label = self.name + (f" oparg {oparg}" if type(key[1]) is int else "")
        if answers:
            label += " where " + ", ".join(
                self._body.said(name, answer) for name, answer in zip(self._tested, answers))
        code = generated.compile_registered("member", "\n".join(body) + "\n", label)
        namespace = generated.namespace(code, {**self._pasted_globals(),
                                               _BASE: self.family.base_handler, **self.needs})
        exec(code, namespace)
        made = namespace["make" if self.facts else fname]
        if not self.facts:
            made.fuse_as = self._shape
        made.member = self
        return made

    def _pastes(self):
        """Whether the hand operation's body is pasted into the handler (hand_bodies.py);
        else it is called."""
        if self._paste is _UNSET:
            # (the names the handler's namespace adds are all known once it is made)
            self._paste = self._body is not None and hand_bodies.meant_alike(
                self.op.fn, self._body.reads, {_BASE: None, **self.needs})
        return self._paste

    def _pasted(self, oparg, answers):
        """The pasted body's lines for a site with this oparg and these answers of the
        facts it tests, or None where the operation is called instead."""
        if not self._pastes():
            return None
        pinned = type(self._key(oparg)[0][1]) is int      # (one handler per oparg)
        return self._body.specialized(dict(zip(self._tested, answers)),
                                      oparg if pinned else None)

    def _pasted_globals(self):
        return hand_bodies.namespace(self.op.fn) if self._pastes() else {}

    def _operands(self, oparg, used=None):
        """Statements naming the operands (deepest first in the stack effect); a
        variable-length one, `args[oparg]`, is a list of that many.  (Only those the
        `used` text, or a hand operation, names.)"""
        lines = self._all_operands(oparg)
        if used is None:
            return lines
        used = set(_WORDS.findall(used))
        if self.by_hand:
            used |= set(self.op.params)
        if self.miss is not None:
            used |= set(self.miss.params)
        return [line for line in lines if line.split(" = ")[0] in used]

    def _slots(self, oparg):
        """How many stack slots the operands take."""
        return sum(oparg if "[" in name else 1 for name in self.inputs)

    def _all_operands(self, oparg):
        sizes = []
        for name in self.inputs:
            bare, _, count = name.partition("[")
            sizes.append((bare, oparg if count else None))
        lines, depth = [], 0
        for bare, count in reversed(sizes):
            if count is None:
                depth += 1
                lines.append(f"{bare} = stack[-{depth}]")
            else:
                lines.append(f"{bare} = stack[-{depth + count}:{'-%d' % depth if depth else ''}]"
                             if count else f"{bare} = []")
                depth += count
        return lines

    def written(self, facts):
        """(i, value) for the cache cells the member's facts fill (cell ci + 1 + i): a
        field of two cells holds 32 bits, low half first; of four, a pointer (the
        fact's address)."""
        out = []
        offset = 0
        for field, size in self.layout.items():
            if field in self.cells:
                value = facts[field]
                if size == 4:
                    value = id(value)       # (a pointer field holds the object's address)
                out += [(offset + j, (value >> (16 * j)) & 0xFFFF) for j in range(size)]
            offset += size
        return out

    # -- members by hand ------------------------------------------------------------
    def _hand_extensions(self, needs, miss, fast):
        """(Member's options for CALL's members: see the class's docstring.)"""
        self.miss, self.fast = miss, fast
        if needs:
            self.needs.update(needs)
        if miss is not None:
            self.needs[miss.name] = miss.fn

    def _prepared(self, oparg, facts):
        """What the guards' cheap lowerings are made of at this site (prepare's names)."""
        extra = {}
        for prepare, bound in self._cheap_bindings():
            args = dict(facts)
            for p, v in bound:
                if v is OPARG:
                    args[p] = oparg
                elif not isinstance(v, str):
                    args[p] = v
                elif v in facts:
                    args[p] = facts[v]
            extra.update(prepare(**args))
        return extra

    def _cheap_bindings(self):
        """(prepare, the check's bound parameters) of each check in its cheap lowering
        (kept: the same at every site)."""
        if self._lowered is None:
            self._lowered = tuple((c.guard.prepare, tuple(c.bound.items()))
                                  for c in self.guards if self._cheap(c))
        return self._lowered

    def guard_template(self, oparg, positions, first):
        """The guard as a fused run's template for a member by hand, whose in-place
        Shape its module writes (the effects): the cheap lowerings, the names placed
        at `positions` ({0}, {c3} ...) and the objects the guards need, not placed
        there, as facts {c<first>} on.  (text, those objects)."""
        _, names = self._key(oparg)
        guard = self._texts(oparg, names, {}, fused=True)[0]
        used = set(_WORDS.findall(guard))
        objects = [(n, v) for n, v in self.needs.items()
                   if type(v) is not int and n in used and n not in positions]
        places = dict(positions)
        places.update((n, f"{{c{first + i}}}") for i, (n, _) in enumerate(objects))
        places.update((n, repr(v)) for n, v in self.needs.items() if type(v) is int)
        return _placer(places)(guard), [v for _, v in objects]

    # -- in place in fused runs ------------------------------------------------------
    def _cheap(self, check):
        """Fused runs use the check's cheap lowering: it has one, and the member the
        facts it consumes (and some facts, where it adds names: they are bound per site)."""
        cheap = check.guard.cheap
        return (cheap is not None and set(check.guard.consumes) <= set(self.facts)
                and (bool(self.facts) or not check.guard.extra()))

    def _extra(self):
        """The facts the guards' cheap lowerings add, in order (after the member's own)."""
        if self._extra_names is None:
            self._extra_names = tuple(name for c in self.guards if self._cheap(c)
                                      for name in c.guard.extra())
        return self._extra_names

    def _objects(self):
        """The objects the guards need that are not ints (facts after the member's own)."""
        return tuple(v for v in self.needs.values() if type(v) is not int)

    def _shape(self, oparg, conditions=None):
        """The member's Shape for fused runs (None where it does not serve the oparg):
        its names become positions ({0} the deepest operand), its facts {c0} ..."""
        if not self.serves(oparg):
            return None
        _, names = self._key(oparg)
        guard, results, statement, fallible = self._texts(oparg, names, conditions or {},
                                                           fused=True)
        positions = {name: f"{{{i}}}" for i, name in enumerate(self.inputs)}
        objects = [n for n, v in self.needs.items() if type(v) is not int]
        named = self.kept + self._extra() + tuple(objects)
        positions.update((fact, f"{{c{i}}}") for i, fact in enumerate(named))
        positions.update((n, repr(v)) for n, v in self.needs.items() if type(v) is int)
        place = _placer(positions)
        if self.attribute is not None:
            results = [_as_attribute(r, self.attribute) for r in results]
            statement = statement and _as_attribute(statement, self.attribute)
        def placed(text):
            return place(text).replace(_ATTRIBUTE, "{name}")
        return Shape(len(self.inputs), [placed(r) for r in results], guard=placed(guard),
                     effects=[placed(statement)] if statement else (),
                     raises=self.raises, fallible=fallible, result_type=self.result,
                     pure=not self.runs_code, consts=None if self.facts else ())

    def _kind(self, oparg, facts=None):
        key, _ = self._key(oparg, facts)
        kind = self._kinds.get(key)
        if kind is None:
            conditions = self._conditions(key)
            kind = self._kinds[key] = SiteShape(lambda oparg: self._shape(oparg, conditions))
        return kind

    def in_place(self, oparg):
        """What fused runs recognize a site of this member by: its handler, or (with
        facts) its SiteShape; None where it does not serve the oparg."""
        if not self._fused(oparg):
            return None
        if self.conditions:
            # (a member whose lowering depends on its facts: one kind per condition)
            return tuple(self._kind(oparg, dict(zip(self.conditions, values)))
                         for values in _truth_table(len(self.conditions)))
        return self._kind(oparg) if self.facts else self.handler(oparg)

    def __repr__(self):
        return f"<member {self.name}>"


def _layout(text):
    """ "version/2 index/1" -> {"version": 2, "index": 1} (unused/N: cells left alone)."""
    out = {}
    for i, part in enumerate(text.split()):
        name, _, size = part.partition("/")
        out[f"unused{i}" if name == "unused" else name] = int(size)
    return out


def _truth_table(n):
    if n == 0:
        return [()]
    return [rest + (value,) for rest in _truth_table(n - 1) for value in (False, True)]


class Hand:
    """An operation written by hand (it pushes a frame, or is otherwise irregular):
    fn(f, stack, site, nxt, *names) -> the next instruction, called once the member's
    declared guards passed; `names` are its parameters after the fourth (operands,
    facts, names the guards bind).  An operation that consumes operands into a frame
    takes them from the stack: the handler holds none it does not pass."""

    def __init__(self, fn):
        self.fn, self.name = fn, "_" + fn.__name__
        self.params = tuple(inspect.signature(fn).parameters)[4:]

    def call(self):
        return f"{self.name}(f, stack, site, nxt{''.join(', ' + p for p in self.params)})"

    def __repr__(self):
        return f"by hand: {self.fn.__name__}({', '.join(self.params)})"


def _stack_update(n_in, results, statement):
    """Statements replacing the n_in operands on the stack by the results."""
    k = len(results)
    if statement is not None:
        return [statement] + ([f"del stack[-{n_in}:]"] if n_in else [])
    lines = []
    if n_in > k:
        lines.append(f"del stack[-{n_in - k}:]" if n_in - k > 1 else "del stack[-1]")
        n_in = k
    if k == 0:
        return lines
    # (the operands' slots are overwritten, the rest appended: no slice assignment)
    lines += [f"stack[-{n_in - i}] = {r}" for i, r in enumerate(results[:n_in])]
    more = results[n_in:]
    if len(more) == 1:
        lines.append(f"stack.append({more[0]})")
    elif more:
        lines.append(f"stack += ({', '.join(more)},)")
    return lines


def _as_attribute(text, name):
    """getattr(o, name) as o.{name}; a statement setattr(o, name, v) as o.{name} = v."""
    setter = generated.regex(rf"setattr\((\w+), {name}, (\w+)\)").fullmatch(text)
    if setter:
        return f"{setter.group(1)}.{_ATTRIBUTE} = {setter.group(2)}"
    # (a function as the replacement: a template would make re import itself again,
    # which fails once the host is shutting down and a finalizer specializes a site)
    return generated.regex(rf"getattr\((\w+), {name}\)").sub(lambda m: f"{m.group(1)}.{_ATTRIBUTE}", text)


_ATTRIBUTE = "__attribute__"     # (stands for {name} until the text is placed)


def _filler(names):
    """Replace {name} placeholders of the variants (and {oparg}) in a text."""
    def fill(text):
        return generated.regex(r"{(\w+)}").sub(lambda m: str(names[m.group(1)]), text)
    return fill


def _placer(positions, escape=True):
    """Turn a text over a member's names into a Shape template: braces doubled, each
    name (not after a dot) replaced by its position."""
    def escaped(text):
        return text.replace("{", "{{").replace("}", "}}") if escape else text
    if not positions:
        return escaped
    pattern = generated.regex(r"(?<![\w.])(" + "|".join(map(re.escape, positions)) + r")\b")

    def place(text):
        return pattern.sub(lambda m: positions[m.group(1)], escaped(text))
    return place


# -- families ----------------------------------------------------------------------------
def cache_fields(family):
    """The family's inline-cache fields in stream order, name -> cells: the host's table
    with the version's corrections."""
    return dict(SPEC.CACHE_ORDER.get(family) or host.CACHE_FORMAT.get(family, {}))


class Family(quicken.Family):
    """An instruction family declared once: its base instruction's generic operation
    and specializer, its cache layout (the host's), and its members in order.

    operands   the names of the stack operands the specializer looks at, deepest
               first ("lhs rhs"); the base handler passes them to it
    generic    the generic instruction's handler (ops/), run while counting down (None:
               the module registers an irregular base handler with @FAMILY.adaptive())
    specializer (site, *operands) -> rewrites the site through site.specialize/fail
               (or declared after the family with @FAMILY.specializer)
    locals     the specializer also reads the frame's locals (its stack, locals first),
               after the operands, as CPython's gets LOCALS_ARRAY
    """

    def __init__(self, name, *, operands="", generic=None, specializer=None, stats_operands=None,
                 locals=False, decode=None):
        names = tuple(operands.split())
        super().__init__(name, operands=len(names) if stats_operands is None
                         else stats_operands)
        self.cache_fields = cache_fields(name)
        self.generic = generic
        self.declared = []
        # the declared members fused runs execute in place (a family with members by
        # hand that do too says which: FAMILY.inline_members = ...)
        self.inline_members = self._inline
        self._namespace = {"specialize": specializer, "generic": generic}
        if generic is not None:
            self._adapt(names, locals, decode)

    def specializer(self, fn):
        """Declare the family's specializer (a decorator, where it follows the family)."""
        self._namespace["specialize"] = fn
        return fn

    def _adapt(self, names, locals, decode):
        """Derive the base instruction's adaptive handler (bytecodes.c's specializing op)."""
        reads = ", ".join([f"stack[-{len(names) - i}]" for i in range(len(names))]
                          + (["stack"] if locals else []))
        source = (f"def {self.name.lower()}(f, stack, site, nxt):\n"
                  "    cells = site.cells\n"
                  "    counter = cells[site.ci]\n"
                  "    if counter < 16:\n"
                  f"        specialize(site, {reads})\n"
                  "        return site.pc\n"
                  "    cells[site.ci] = counter - 16\n"
                  "    return generic(f, stack, site.arg, nxt)\n")
        namespace = self._namespace     # (the same dict: `specialize` may come later)
        code = generated.compile_registered("adaptive", source, self.name)
        exec(code, generated.adopt(namespace, code))
        self.adaptive(decode=decode)(namespace[self.name.lower()])

    def member(self, name, **declaration):
        if name not in self.members:
            raise ValueError(f"{name} is not a member of {self.name} in this CPython version")
        member = Member(self, name, **declaration)
        self.declared.append(member)
        return member

    def _inline(self, oparg):
        kinds = []
        for member in self.declared:
            found = member.in_place(oparg)
            if isinstance(found, tuple):
                kinds += found
            elif found is not None:
                kinds.append(found)
        return tuple(kinds)


# -- reference ----------------------------------------------------------------------------
def _per_oparg(member):
    """An operation given per oparg, as it reads for a few opargs it serves."""
    shown, seen = [], set()
    for oparg in (0, 1, 2, 3):
        if not member.serves(oparg):
            continue
        op = member.op(oparg)
        text = op if isinstance(op, str) else ", ".join(op)
        if text not in seen:
            seen.add(text)
            shown.append(f"oparg {oparg}: `{text}`")
    return "<br>".join(shown)


def reference(families):
    """docs/members.md: every member with its guards, cache and operation."""
    out = ["# Members of CPython 3.13's families, as the interpreter declares them",
           "",
           "Generated from the declarations in `src/quickening/interp/families/` by",
           "`python -m quickening.interp.families --reference`; a test fails when it is stale.",
           "A member's handler and its form in fused runs are derived from these lines",
           "(`src/quickening/interp/spec.py`); members marked *by hand* push a frame or are",
           "otherwise irregular, and their module holds their operation.",
           ""]
    guards = {}
    for family in families:
        out.append(f"## {family.name}")
        out.append("")
        fields = cache_fields(family.name)
        layout = ", ".join(f"{k} ({v})" for k, v in fields.items())
        out.append(f"Inline cache, in 16-bit cells: {layout or 'none'}.")
        out.append("")
        out.append("| member | stack | guards | operation | cache cells; other facts "
                   "| may run program code |")
        out.append("|---|---|---|---|---|---|")
        declared = {m.name: m for m in getattr(family, "declared", ())}
        for name in family.members:
            member = declared.get(name)
            if member is None:
                out.append(f"| {name} | | | *by hand* | | |")
                continue
            for check in member.guards:
                guards[check.guard.name] = check.guard
            checks = "<br>".join(
                f"{c.guard.name} `{c.text()}`" + (
                    f" (the operation raises {c.raised} instead"
                    + (f" where {c.where})" if c.where else ")") if c.raised else "")
                for c in member.guards)
            op = member.op
            shown = (f"*by hand*: `{op.fn.__name__}`" if isinstance(op, Hand) else
                     _per_oparg(member) if callable(op) else
                     f"`{op}`" if isinstance(op, str) else "`" + ", ".join(op) + "`")
            cells = " ".join(f"{'unused' if k.startswith('unused') else k}/{v}"
                             for k, v in member.layout.items())
            facts = ", ".join(f for f in member.facts if f not in member.cells)
            facts = (f"cache `{cells}`" if cells else "no cache") + (f"; {facts}" if facts else "")
            out.append(f"| {name} | `{member.stack.strip()}` | {checks} | {shown} | {facts} | "
                       f"{'yes' if member.runs_code else 'no'} |")
        out.append("")
    out.append("## Guards")
    out.append("")
    for name, guard in sorted(guards.items()):
        out.append(f"- **{name}** `{guard.test}`: {guard.doc}.")
    return "\n".join(out).rstrip() + "\n"
