"""Quickening: the private, writable instruction stream and its counters.

Each code object gets one stream with CPython 3.13's layout (the code units
of co_code, inline cache cells after each instruction, the counter in the
first cell); closures sharing a code object share it, because it hangs off
the code object's CodeInfo.  Every instruction of a family (families/) gets
a `Site`: its counter and caches live in the stream, and Python objects the
fast path needs (the cached class, function ...) live on the Site beside it.
Both are always written together, through the methods below.

Counter constants and encoding are CPython's (value << 4 | backoff):
  warm-up  value 1, backoff 1 (0x0011): the 2nd execution specializes
  success  value 52, backoff 0 (0x0340): the 53rd miss re-specializes
  failure  backoff = min(backoff + 1, 12), value = 2**backoff - 1
"""

import collections
import os
import opcode as _opcode

from quickening.interp import host
from quickening.interp.versions import SPEC

BACKOFF_BITS = SPEC.BACKOFF_BITS
MAX_BACKOFF = SPEC.MAX_BACKOFF


def counter(value, backoff):
    """A counter cell: value << BACKOFF_BITS | backoff."""
    return (value << BACKOFF_BITS) | backoff


WARMUP = counter(*SPEC.WARMUP)                  # 0x0011 on 3.13
COOLDOWN = counter(*SPEC.COOLDOWN)              # 0x0340 on 3.13
JUMP_BACKWARD_INITIAL = counter(*SPEC.JUMP_BACKWARD_INITIAL)   # tier-2 counter, untouched here
BRANCH_HISTORY_INITIAL = SPEC.BRANCH_HISTORY_INITIAL

SPECIALIZED_OPMAP = dict(getattr(_opcode, "_specialized_opmap", {}))
ALL_OPMAP = {**host.OPMAP, **SPECIALIZED_OPMAP}
ALL_OPNAME = {v: k for k, v in ALL_OPMAP.items()}
_BRANCHES = {host.OPMAP[n] for n in ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE",
                                      "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE")}


class Config:
    """Process-wide interpreter options (set before the program runs)."""
    specialize = True
    collect_stats = False
    # fuse runs of simple instructions into one call (fusion.py); off only to measure it
    fuse = not os.environ.get("QUICKENING_NO_FUSION")


def restart_counter(raw):
    """The counter after a failed specialization attempt."""
    backoff = min((raw & 15) + 1, MAX_BACKOFF)
    return (((1 << backoff) - 1) << BACKOFF_BITS) | backoff


_COUNTED = (None,)


def install(site, handler):
    """Put handler at the site's instruction (counting executions under --stats)."""
    if Config.collect_stats:
        handler = _counting(handler, handler is site.base_handler)
    entry = (handler, site, site.nxt)
    # what fused runs check to execute the member in place (fusion.SiteShape);
    # counted handlers always go through the table
    held = site.inplace
    site.inplace = _COUNTED if Config.collect_stats else getattr(handler, "inplace", None) or (handler,)
    kind = site.inplace[0]
    new_kind = False
    if getattr(kind, "fuse_as", None) is not None:     # (a member fused runs hold in place)
        if site.kinds is None:
            site.kinds = set()
        if kind not in site.kinds:
            site.kinds.add(kind)
            new_kind = True
    if ((site.fused_in and (len(site.inplace) > 1 or kind is not held[0]))
            or (new_kind and site.dispatched_in)):
        site.info.engine.refuse(site)     # its runs were made for the form it held
    info = site.info
    info.plain[site.pc] = entry
    current = info.instrs[site.pc]
    if current is None or current[2] is not None:   # (nxt None: a fused run or a warming
        info.instrs[site.pc] = entry                #  stub starts here; it goes through plain)


def _operand_types(stack, site):
    """What passed through a site: the types of the operands its family looks at."""
    n = site.family.operands
    if n == 1:
        return type(stack[-1]).__qualname__
    if n == 2:
        return f"{type(stack[-2]).__qualname__}, {type(stack[-1]).__qualname__}"
    if n < 0:  # CALL: the callable, below self_or_null and the arguments
        return type(stack[n - site.oparg]).__qualname__
    return None


def _counting(handler, is_base):
    def counted(f, stack, site, nxt):
        key = _operand_types(stack, site)
        result = handler(f, stack, site, nxt)
        if result == site.pc:
            return result    # re-dispatched after (re)specializing: counted on the next pass
        site.executions += 1
        if not is_base:
            site.specialized_executions += 1
        if key is not None:
            types = site.types
            if types is None:
                types = site.types = collections.Counter()
            types[key] += 1
        return result
    counted.__wrapped__ = handler
    return counted


class Site:
    """One instruction of a family in one code object."""

    __slots__ = ("info", "pc", "nxt", "cells", "ci", "base", "base_handler", "arg", "oparg",
                 "family", "cache", "inplace", "fused_in", "kinds", "dispatched_in",
                 # statistics: exact under --stats (every site then goes through its
                 # handler); a fused run does not count misses, nor executions and types
                 "misses", "attempts", "successes", "failures", "respecializations",
                 "executions", "specialized_executions", "types", "deopts", "__weakref__")

    def __init__(self, info, pc, nxt, family, base_handler, arg, oparg):
        self.info = info
        self.pc = pc
        self.nxt = nxt
        self.cells = info.quickened
        self.ci = pc + 1                 # the counter cell
        self.family = family
        self.base = host.OPMAP[family.name]
        self.base_handler = base_handler
        self.arg = arg
        self.oparg = oparg
        self.cache = None                # Python objects the specialized form keeps
        self.inplace = _COUNTED          # (set by install)
        self.fused_in = set()            # entry points of the fused runs made for its form
        self.kinds = None                # the in-place members it has held (fusion.SiteShape ...)
        self.dispatched_in = set()       # entry points of runs made for those (polymorphic)
        self.misses = 0
        self.attempts = 0
        self.successes = 0
        self.failures = None
        self.respecializations = 0
        self.executions = 0
        self.specialized_executions = 0
        self.types = None
        self.deopts = 0

    # -- state as CPython would see it ------------------------------------------
    @property
    def form(self):
        return ALL_OPNAME[self.cells[self.pc] & 0xFF]

    @property
    def counter(self):
        return self.cells[self.ci]

    def cache_cell(self, i):
        return self.cells[self.ci + i]

    # -- transitions -----------------------------------------------------------------
    def specialize(self, member, handler=None, cache=None, cells=(), written=(), **facts):
        """Rewrite this site into `member`: opcode, cache cells, counter, handler.
        A declared member (spec.Member) derives its handler and the cells it writes
        from its facts, given by name.  Otherwise `member` is a name and `cells` the
        cache cells after the counter, in order; or `written`: (i, value) for only
        the cells written (cell ci + 1 + i)."""
        if not isinstance(member, str):
            handler = member.handler(self.oparg, **facts)
            written = member.written(facts)
            member = member.name
        stream = self.cells
        was_specialized = (stream[self.pc] & 0xFF) != self.base
        if was_specialized or self.successes:
            self.respecializations += 1
        self.attempts += 1
        self.successes += 1
        stream[self.pc] = (stream[self.pc] & 0xFF00) | SPECIALIZED_OPMAP[member]
        ci = self.ci
        stream[ci] = COOLDOWN
        for i, value in enumerate(cells, start=1):
            stream[ci + i] = value & 0xFFFF
        for i, value in written:
            stream[ci + 1 + i] = value & 0xFFFF
        self.cache = cache
        install(self, handler)

    def fail(self, kind):
        """A failed attempt: back to the base instruction with the counter backed off."""
        stream = self.cells
        self.attempts += 1
        if self.failures is None:
            self.failures = collections.Counter()
        self.failures[kind] += 1
        if (stream[self.pc] & 0xFF) != self.base:
            self.deopts += 1          # a specialized site falls back to the base form
        stream[self.pc] = (stream[self.pc] & 0xFF00) | self.base
        stream[self.ci] = restart_counter(stream[self.ci])
        self.cache = None
        install(self, self.base_handler)

    def rewrite(self, member, handler):
        """A rewrite without a counter (RESUME -> RESUME_CHECK)."""
        self.cells[self.pc] = (self.cells[self.pc] & 0xFF00) | SPECIALIZED_OPMAP[member]
        install(self, handler)

    def __repr__(self):
        code = self.info.code
        return f"<site {code.co_qualname}@{self.pc * 2} {self.form} counter={self.counter:#06x}>"


def pack32(value):
    """A 32-bit cache field as two cells, low half first."""
    return (value & 0xFFFF, (value >> 16) & 0xFFFF)


def new_stream(code):
    """The quickened stream of a code object, as _PyCode_Quicken leaves it."""
    stream = memoryview(bytearray(code.co_code)).cast("H")
    raw = code.co_code
    pc = 0
    n = len(stream)
    while pc < n:
        op = raw[2 * pc]
        ncache = host.CACHE_ENTRIES.get(op, 0)
        if ncache:
            if op == host.OPMAP["JUMP_BACKWARD"]:
                stream[pc + 1] = JUMP_BACKWARD_INITIAL
            elif op in _BRANCHES:
                stream[pc + 1] = BRANCH_HISTORY_INITIAL
            else:
                stream[pc + 1] = WARMUP
        pc += 1 + ncache
    return stream


class Family:
    """An instruction family: the adaptive base instruction and its members."""

    def __init__(self, name, operands=1):
        self.name = name
        self.members = tuple(SPEC.FAMILIES[name])     # (the version's, in its order)
        # how many stack operands --stats records the types of (CALL: -2, the callable)
        self.operands = operands
        self.base_handler = None
        self.decode = None
        # members a fused run executes in place (fusion.py): oparg -> handlers with .fuse_as
        self.inline_members = lambda oparg: ()
        # (oparg, site.arg) -> fusion.Shape of the base instruction's operation, which a
        # fused run executes in place while the counter counts down (None: it does not)
        self.base_shape = None
        # (oparg, site.arg) -> (test(owner), index of the owner among the operands): the
        # test true when the base operation runs no code of the program for that owner
        # (a callee written into its caller runs it so: inlining.py), or None
        self.base_purity = lambda oparg, arg: None

    def adaptive(self, decode=None):
        """Register the base instruction's adaptive handler."""
        def register(fn):
            self.base_handler = fn
            self.decode = decode
            FAMILIES[host.OPMAP[self.name]] = self
            return fn
        return register


FAMILIES = {}   # base opcode -> Family
