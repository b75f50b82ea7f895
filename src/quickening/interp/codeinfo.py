"""Everything decoded once per code object.

A code object is decoded the first time the interpreter meets it: the
instruction table (one entry per 16-bit code unit, so an index is the
offset // 2 that CPython's quickened stream uses; CACHE units hold None and
are never dispatched), pre-decoded arguments and jump targets, the exception
table by instruction, the line of every instruction, and the layout of the
frame's fast locals.  Nothing here changes while the code runs.

A code object is decoded for a speed engine (fusion.py, or None): the engine arms
it (puts its warming stubs in the table) and is told when one of its sites changes
form (quicken.install).  The code objects an interpreted frame creates get their
creator's engine; the ones run from outside get the one runtime.engine() chooses.
"""

import dis
import weakref

from quickening.interp import host, quicken
from quickening.interp.ops.registry import DECODERS, HANDLERS, NULL


class ExceptionEntry:
    __slots__ = ("start", "end", "target", "depth", "lasti")

    def __init__(self, start, end, target, depth, lasti):
        self.start, self.end, self.target, self.depth, self.lasti = start, end, target, depth, lasti


class CodeInfo:
    """The decoded form of one code object (shared by every function using it)."""

    __slots__ = (
        "code", "instrs", "opcodes", "opargs", "starts", "prev_start", "lines",
        "exc_entries", "handlers", "names", "localsplus", "nlocalsplus", "nfree",
        "free_start", "ncells_and_locals", "argcount", "posonlycount", "kwonlycount",
        "nparams", "varargs_index", "varkw_index", "param_index", "flags",
        "is_generator_like", "trampoline", "plain", "heat", "binder_code", "standin", "__weakref__",
        "quickened", "sites", "site_pcs", "start_index", "cell_names", "exact_call_tail", "line_starts", "first_traceable",
        "unstarted_lasti", "fuse_waits", "fuse_inside", "entry_points", "joins", "leaf",
        "inlined_into", "inline_exits", "inline_calls", "engine",
    )

    def __reduce__(self):
        # A function's __code__ is its trampoline, whose constants hold this CodeInfo:
        # a pickler copying functions by value (cloudpickle) copies it as its code,
        # decoded again where it is loaded (REMAKE), not as the decoded tables (the
        # memory views over the process among them).
        return REMAKE[0], (self.code,)

    def __init__(self, code, engine=None):
        self.code = code
        self.flags = code.co_flags
        self.is_generator_like = bool(code.co_flags & host.GENERATOR_LIKE)
        self.names = code.co_names
        self.trampoline = None
        self.binder_code = None
        self.standin = None
        self.quickened = None
        self.sites = None
        self.site_pcs = frozenset()
        self._decode_locals()
        self._decode_instructions()
        self._decode_exception_table()
        self._decode_lines()
        self.heat = 0
        self.fuse_waits = None     # fusion.py: entry point -> times its run was put off
        self.fuse_inside = None    # fusion.py: (entry points inside other runs, ones made)
        self.entry_points = frozenset()    # fusion.py: where fused functions start
        self.joins = frozenset()           # fusion.py: where runs leave for the loop
        self.leaf = None           # inlining.py: its first run, as callers can write it
        self.inlined_into = None   # inlining.py: (caller's CodeInfo, entry) writing it
        self.inline_exits = 0      # inlining.py: times it left a caller's run
        self.inline_calls = None   # inlining.py: [times it ran written into a caller]
        # where CPython's frame of a generator not yet started stands: after its
        # RETURN_GENERATOR (the generator is made there), on the def line
        self.unstarted_lasti = 0
        if self.is_generator_like:
            ret_gen = host.OPMAP["RETURN_GENERATOR"]
            for k, pc in enumerate(self.starts[:-1]):
                if self.opcodes[pc] == ret_gen:
                    self.unstarted_lasti = self.starts[k + 1]
                    break
        self.engine = engine       # the speed engine: arm(info), refuse(site), stop_inlining(info)
        if engine is not None:
            engine.arm(self)

    # -- fast locals -------------------------------------------------------
    def _decode_locals(self):
        code = self.code
        varnames = code.co_varnames
        extra_cells = [c for c in code.co_cellvars if c not in varnames]
        self.localsplus = tuple(varnames) + tuple(extra_cells) + tuple(code.co_freevars)
        self.nlocalsplus = len(self.localsplus)
        self.nfree = len(code.co_freevars)
        self.free_start = self.nlocalsplus - self.nfree
        self.ncells_and_locals = self.free_start
        self.cell_names = frozenset(code.co_cellvars)
        self.argcount = code.co_argcount
        self.posonlycount = code.co_posonlyargcount
        self.kwonlycount = code.co_kwonlyargcount
        n = code.co_argcount + code.co_kwonlyargcount
        self.varargs_index = n if code.co_flags & host.CO_VARARGS else -1
        if code.co_flags & host.CO_VARARGS:
            n += 1
        self.varkw_index = n if code.co_flags & host.CO_VARKEYWORDS else -1
        if code.co_flags & host.CO_VARKEYWORDS:
            n += 1
        self.nparams = n
        # keyword-addressable parameters (not positional-only)
        # a call with exactly argcount positional arguments binds by copying
        # them, when there are no *args, **kwargs, keyword-only parameters,
        # and the body is not a generator: the rest of the fast locals is NULL
        simple = (n == code.co_argcount and not code.co_flags & host.GENERATOR_LIKE)
        self.exact_call_tail = [NULL] * (self.free_start - n) if simple else None
        self.param_index = {varnames[i]: i for i in range(code.co_posonlyargcount,
                                                         code.co_argcount + code.co_kwonlyargcount)}

    # -- instructions ------------------------------------------------------
    def _decode_instructions(self):
        raw = self.code.co_code
        nunits = len(raw) // 2
        opcodes = [0] * nunits
        opargs = [0] * nunits
        instrs = [None] * nunits
        # the instruction table: instrs is what the loop dispatches (fusion.py may put a
        # fused run at an instruction); plain always holds the instruction's own handler
        self.plain = plain = [None] * nunits
        starts = []
        prev_start = {}
        ext = 0
        pc = 0
        last = -1
        while pc < nunits:
            op = raw[2 * pc]
            arg = raw[2 * pc + 1] | ext
            ext = (arg << 8) if op == host.EXTENDED_ARG else 0
            ncache = host.CACHE_ENTRIES.get(op, 0)
            nxt = pc + 1 + ncache
            opcodes[pc] = op
            opargs[pc] = arg
            starts.append(pc)
            if last >= 0:
                prev_start[pc] = last
            last = pc
            pc = nxt
        prev_start[nunits] = last
        self.opcodes = opcodes
        self.opargs = opargs
        self.starts = starts
        self.prev_start = prev_start
        self.instrs = instrs
        self.quickened = quicken.new_stream(self.code)
        families = quicken.FAMILIES if quicken.Config.specialize else {}
        sites = []
        for i, pc in enumerate(starts):
            op = opcodes[pc]
            nxt = starts[i + 1] if i + 1 < len(starts) else nunits
            handler = HANDLERS[op]
            if handler is None:
                raise SystemError(f"no handler for opcode {host.OPNAME.get(op, op)}")
            decode = DECODERS[op]
            family = families.get(op)
            if family is not None:
                decode = family.decode or decode
            arg = decode(self, opargs[pc], pc, nxt) if decode is not None else opargs[pc]
            if family is not None:
                site = quicken.Site(self, pc, nxt, family, family.base_handler, arg, opargs[pc])
                sites.append(site)
                quicken.install(site, family.base_handler)
            else:
                instrs[pc] = plain[pc] = (handler, arg, nxt)
        self.sites = sites
        self.site_pcs = {site.pc for site in sites}

    def _decode_exception_table(self):
        entries = []
        for e in dis._parse_exception_table(self.code):
            entries.append(ExceptionEntry(e.start // 2, e.end // 2, e.target // 2, e.depth, e.lasti))
        self.exc_entries = entries
        # instruction -> the entry covering it (the loop looks one up per frame an
        # exception passes through)
        self.handlers = {u: e for e in entries for u in range(e.start, e.end)}

    def _decode_lines(self):
        nunits = len(self.opcodes)
        lines = [None] * nunits
        self.line_starts = {start // 2 for start, end, line in self.code.co_lines() if line is not None}
        resume = host.OPMAP["RESUME"]
        self.first_traceable = next((pc for pc in self.starts if self.opcodes[pc] == resume), -1)
        for start, end, line in self.code.co_lines():
            for u in range(start // 2, min(end // 2, nunits)):
                lines[u] = line
        self.lines = lines

    # -- queries -----------------------------------------------------------
    def handler_for(self, pc):
        """The exception-table entry covering instruction pc, or None."""
        return self.handlers.get(pc)

    def line_at(self, pc):
        if 0 <= pc < len(self.lines):
            return self.lines[pc]
        return None

    def target_of(self, pc):
        """For a relative jump at pc, the code unit it lands on (used by decoders)."""
        return pc


# what a CodeInfo pickles as: f(code) -> its CodeInfo, for the engine of code run
# from outside (runtime.py sets it)
REMAKE = [None]
_INFOS = weakref.WeakKeyDictionary() if False else {}
# id(trampoline code) -> CodeInfo of the real code (functions.trampoline_for)
TRAMPOLINES = {}


def info_for(code, engine):
    """The CodeInfo of a code object, decoding it on first use (for engine: see the top).

    Keyed by id() because code objects hash by value; the entry keeps the
    code alive, so the id cannot be reused while it is in the table.
    """
    info = _INFOS.get(id(code))
    if info is None:
        info = CodeInfo(code, engine)
        _INFOS[id(code)] = info
    return info
