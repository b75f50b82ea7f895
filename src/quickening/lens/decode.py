"""Decode CPython's live quickened bytecode (``code._co_code_adaptive``).

This module is stdlib-only and runs on CPython 3.11 to 3.15: the lens
agent loads it by file path inside the watched program, and the analysis in
the parent (which may run another Python version) uses the same code with the
*target's* opcode tables, shipped as a plain dict.

Public API
----------

``Tables.current()``
    Opcode tables of the running interpreter (names of every opcode including
    the specialized ones, specialized -> base map, inline cache sizes and
    field layouts per family, with 3.13's wrong LOAD_GLOBAL labels fixed).
``Tables.from_dict(d)`` / ``tables.to_dict()``
    Ship tables between processes (JSON-safe).
``decode(tables, co_code, adaptive) -> list[Site]``
    Every *specialization site* (an instruction whose family has a
    specialization counter) with its offset, family, live form, counter
    (raw / value / backoff), decoded cache fields and cached type version.
    ``co_code`` is the de-specialized stream, used for the structure (so an
    instruction replaced by INSTRUMENTED_LINE still has a known family);
    ``adaptive`` is the live stream.
``decode_code(code) -> list[Site]``
    Convenience for a code object of the running interpreter.
``structure(tables, co_code)``
    ``[(offset, base opcode, oparg, cache cells)]`` of the sites; pass it to
    ``decode`` when decoding many samples of one code object.
``probe_offsets()``
    Byte offsets of ``tp_version_tag`` / ``func_version`` in this build.

A :class:`Site` has ``offset``, ``family`` (base name), ``oparg``,
``opname`` (live form), ``state`` ("specialized"; "generic" = the base
form; "adaptive" = 3.11's ``*_ADAPTIVE`` waiting form; "instrumented"),
``counter_raw`` / ``counter_value`` / ``backoff``, ``fields`` (cache fields
by name, counter excluded, multi-cell values joined), ``cache`` (raw cells
after the counter) and ``type_version`` (the cached class version of a
specialized form, else None; never a dict-keys version).

Counter encoding (see shared/facts): 3.12-3.14 raw = value << 4 | backoff
for every form, 3.15 raw = value << 3 | backoff; the split is not in any
table, so ``Tables.current()`` measures it on a fresh BINARY_OP site of the
target (value 1, backoff 1 reads 17 or 9) and refuses a layout it does not
recognise.  On 3.11 a *specialized* form holds a plain miss budget (53 at
specialization) while base / ``*_ADAPTIVE`` forms use value << 4 | backoff.
Cache fields: 16-bit little-endian cells after the instruction, a 2-cell
value stored low half first, a 4-cell value is a pointer.
"""

import sys

__all__ = ["Tables", "Site", "decode", "decode_code", "structure",
           "type_version_of", "probe_offsets", "SUPPORTED"]

#: (major, minor) versions whose layouts this module knows.
SUPPORTED = ((3, 11), (3, 12), (3, 13), (3, 14), (3, 15))
SUPPORTED_TEXT = "CPython 3.11 to 3.15"

# Families whose cache word is not a specialization counter (3.13+: only the
# experimental tier 2 reads them).
_NOT_SPECIALIZING = {
    "JUMP_BACKWARD", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE",
    "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE",
}

# Binary operator oparg -> symbol is taken from dis._nb_ops at table build.


class Tables(object):
    """Opcode tables of one CPython version (see module docstring)."""

    def __init__(self, version, opname, deopt, cache_entries, cache_format,
                 families, extended_arg, nb_ops, counter_bits=4, jump_initial=None,
                 layout_error=None, enter_executor=None):
        self.version = tuple(version)            # (major, minor, micro)
        self.opname = list(opname)               # 256 names, "<N>" if unknown
        self.deopt = list(deopt)                 # live opcode -> base opcode
        self.cache_entries = list(cache_entries)  # base opcode -> cells
        self.cache_format = dict(cache_format)   # family -> [(field, cells)]
        self.families = set(families)            # base names that specialize
        self.extended_arg = extended_arg
        self.nb_ops = list(nb_ops)               # BINARY_OP oparg -> symbol
        self.is_311 = self.version[:2] == (3, 11)
        self.counter_bits = counter_bits         # backoff bits of a counter word
        self.counter_mask = (1 << counter_bits) - 1
        self.jump_initial = jump_initial         # fresh JUMP_BACKWARD value (tier 2)
        self.layout_error = layout_error         # why this build can't be read
        self.enter_executor = enter_executor     # ENTER_EXECUTOR's opcode (3.13+)
        self.jump_backward = None
        for i, n in enumerate(self.opname):
            if n == "JUMP_BACKWARD":
                self.jump_backward = i
        self._adaptive = set()
        for i, name in enumerate(self.opname):
            if name.endswith("_ADAPTIVE"):
                self._adaptive.add(i)

    # -- construction -------------------------------------------------

    @classmethod
    def current(cls):
        """Tables for the interpreter this code runs in."""
        import dis
        import opcode
        version = sys.version_info[:3]
        names = list(getattr(dis, "_all_opname", dis.opname)[:256])
        opmap = {}
        for i, n in enumerate(names):
            if not n.startswith("<"):
                opmap[n] = i
        try:
            from _opcode_metadata import _specializations as specs  # 3.13
        except ImportError:
            specs = opcode._specializations
        deopt = list(range(256))
        for base, members in specs.items():
            if base not in opmap:
                continue
            for m in members:
                if m in opmap:
                    deopt[opmap[m]] = opmap[base]
        for i, n in enumerate(names):
            if n.startswith("INSTRUMENTED_"):
                base = n[len("INSTRUMENTED_"):]
                if base in opmap:
                    deopt[i] = opmap[base]
        ice = opcode._inline_cache_entries
        entries = [0] * 256
        if hasattr(ice, "items"):  # 3.13+: name -> cells (3.15: a frozendict)
            for n, k in ice.items():
                if n in opmap:
                    entries[opmap[n]] = k
        else:
            for i in range(min(256, len(ice))):
                entries[i] = ice[i]
        fmt = {}
        for fam, fields in opcode._cache_format.items():
            items = list(fields.items())
            if fam == "LOAD_GLOBAL" and version[:2] >= (3, 13):
                # the labels in opcode._cache_format are in the wrong order
                items = [("counter", 1), ("module_keys_version", 1),
                         ("builtin_keys_version", 1), ("index", 1)]
            fmt[fam] = items
        families = set()
        for base in specs:
            f = fmt.get(base)
            if not f or f[0][0] != "counter" or base in _NOT_SPECIALIZING:
                continue
            families.add(base)
        nb_ops = [sym for (_, sym) in getattr(dis, "_nb_ops", [])]
        bits, jump_initial, error = _measure_counters(version, opmap, entries)
        return cls(version, names, deopt, entries, fmt, families,
                   opmap["EXTENDED_ARG"], nb_ops, bits, jump_initial, error,
                   opmap.get("ENTER_EXECUTOR"))

    def to_dict(self):
        return {
            "version": list(self.version), "opname": self.opname,
            "deopt": self.deopt, "cache_entries": self.cache_entries,
            "cache_format": {k: [list(x) for x in v]
                             for k, v in self.cache_format.items()},
            "families": sorted(self.families),
            "extended_arg": self.extended_arg, "nb_ops": self.nb_ops,
            "counter_bits": self.counter_bits, "jump_initial": self.jump_initial,
            "layout_error": self.layout_error, "enter_executor": self.enter_executor,
        }

    @classmethod
    def from_dict(cls, d):
        return cls(d["version"], d["opname"], d["deopt"], d["cache_entries"],
                   {k: [tuple(x) for x in v]
                    for k, v in d["cache_format"].items()},
                   d["families"], d["extended_arg"], d["nb_ops"],
                   d.get("counter_bits", 4), d.get("jump_initial"), d.get("layout_error"),
                   d.get("enter_executor"))

    # -- queries --------------------------------------------------------

    def supported(self):
        return tuple(self.version[:2]) in SUPPORTED and not self.layout_error

    def is_specialized(self, op):
        """True for a specialized member (not base, ADAPTIVE or INSTRUMENTED)."""
        name = self.opname[op]
        return (self.deopt[op] != op and op not in self._adaptive
                and not name.startswith("INSTRUMENTED_"))

    def state_of(self, op, base):
        """'specialized', 'adaptive' (3.11 waiting form), 'instrumented',
        'generic' (the base form), 'executor' (ENTER_EXECUTOR: a tier-2
        trace starts here; the instruction it covers is kept inside the
        executor, its caches stay in the stream) or 'other'."""
        name = self.opname[op]
        if op == base:
            return "generic"
        if op == self.enter_executor:
            return "executor"
        if name.startswith("INSTRUMENTED_"):
            return "instrumented"
        if op in self._adaptive:
            return "adaptive"
        if self.deopt[op] == base:
            return "specialized"
        return "other"


def _measure_counters(version, opmap, entries):
    """(backoff bits, fresh JUMP_BACKWARD counter value, error or None),
    read from code compiled by this interpreter: a fresh BINARY_OP site holds
    the warm-up counter (value 1, backoff 1)."""
    if tuple(version[:2]) < (3, 12):
        return 4, None, None          # 3.11 quickens lazily; layout fixed
    ns = {}
    exec("def _f(a, b):\n    return a + b\n"
         "def _g(n):\n    for i in n:\n        pass\n", ns)
    raw = ns["_f"].__code__._co_code_adaptive
    word = None
    op = opmap.get("BINARY_OP")
    for i in range(0, len(raw), 2):
        if raw[i] == op and entries[op]:
            word = raw[i + 2] | raw[i + 3] << 8
            break
    bits = {17: 4, 9: 3}.get(word)
    if bits is None:
        return 4, None, ("unknown counter layout: a fresh BINARY_OP site reads %r "
                         "(expected 17 = 12+4 bits or 9 = 13+3 bits)" % (word,))
    jump = None
    raw = ns["_g"].__code__._co_code_adaptive
    op = opmap.get("JUMP_BACKWARD")
    for i in range(0, len(raw), 2):
        if raw[i] == op and entries[op]:
            jump = (raw[i + 2] | raw[i + 3] << 8) >> bits
            break
    return bits, jump, None


class Site(object):
    """One specialization site in one sample of a code object."""

    __slots__ = ("offset", "family", "oparg", "opname", "state",
                 "counter_raw", "counter_value", "backoff", "fields",
                 "cache", "type_version")

    def __init__(self, offset, family, oparg, opname, state, counter_raw,
                 counter_value, backoff, fields, cache, type_version):
        self.offset = offset              # byte offset of the instruction
        self.family = family              # base name, e.g. "LOAD_ATTR"
        self.oparg = oparg                # full oparg (EXTENDED_ARG applied)
        self.opname = opname              # live name, e.g. "LOAD_ATTR_SLOT"
        self.state = state                # see Tables.state_of
        self.counter_raw = counter_raw
        self.counter_value = counter_value
        self.backoff = backoff            # None for 3.11 specialized forms
        self.fields = fields              # {field: int} (counter excluded)
        self.cache = cache                # tuple of raw cells after counter
        self.type_version = type_version  # cached type version or None

    def as_dict(self):
        return {k: getattr(self, k) for k in self.__slots__}

    def __repr__(self):
        return ("Site(%d, %s, %s, counter=%d/%s)"
                % (self.offset, self.opname, self.state, self.counter_value,
                   self.backoff))


def structure(tables, co_code):
    """List of (offset, base opcode, oparg, ncache) for every specialization
    site of a de-specialized stream."""
    out = []
    ext = 0
    i = 0
    n = len(co_code)
    fams = tables.families
    names = tables.opname
    while i < n:
        op = co_code[i]
        arg = co_code[i + 1] | ext
        ncache = tables.cache_entries[op]
        if op == tables.extended_arg:
            ext = arg << 8
        else:
            ext = 0
            if names[op] in fams:
                out.append((i, op, arg, ncache))
        i += 2 + 2 * ncache
    return out


def _cells(adaptive, start, count):
    return tuple(adaptive[start + 2 * k] | (adaptive[start + 2 * k + 1] << 8)
                 for k in range(count))


def _join(cells):
    v = 0
    for k, c in enumerate(cells):
        v |= c << (16 * k)
    return v


def type_version_of(tables, opname, fields):
    """The cached *type* version for a specialized form, or None."""
    if opname.endswith("_MODULE"):
        return None          # keys version of a module dict, not a type
    if opname.startswith(("LOAD_ATTR_", "STORE_ATTR_", "LOAD_METHOD_")):
        v = fields.get("version", fields.get("type_version"))
        return v or None
    if opname == "TO_BOOL_ALWAYS_TRUE":
        return fields.get("version") or None
    if opname == "BINARY_SUBSCR_GETITEM" and "type_version" in fields:
        return fields.get("type_version") or None
    if opname == "CALL_ALLOC_AND_ENTER_INIT":
        return fields.get("func_version") or None
    return None


def decode(tables, co_code, adaptive, sites=None):
    """Decode the live stream ``adaptive`` into a list of :class:`Site`.

    ``sites`` may be a precomputed ``structure(tables, co_code)``.
    """
    if sites is None:
        sites = structure(tables, co_code)
    out = []
    names = tables.opname
    is311 = tables.is_311
    bits, mask = tables.counter_bits, tables.counter_mask
    for off, base, arg, ncache in sites:
        live = adaptive[off]
        opname = names[live]
        family = names[base]
        state = tables.state_of(live, base)
        if ncache:
            cells = _cells(adaptive, off + 2, ncache)
        else:
            cells = (0,)
        raw = cells[0]
        if is311 and state == "specialized":
            value, backoff = raw, None
        else:
            value, backoff = raw >> bits, raw & mask
        fields = {}
        pos = 1
        for name, size in tables.cache_format.get(family, ()):
            if name == "counter":
                continue
            fields[name] = _join(cells[pos:pos + size])
            pos += size
        tv = type_version_of(tables, opname, fields) if state == "specialized" else None
        out.append(Site(off, family, arg, opname, state, raw, value, backoff,
                        fields, cells[1:], tv))
    return out


def loop_offsets(tables, co_code):
    """[(offset, oparg)] of the back edges (JUMP_BACKWARD) of a de-specialized
    stream: where tier 2 puts ENTER_EXECUTOR when a loop gets hot."""
    out = []
    jb = tables.jump_backward
    if jb is None:
        return out
    ext = 0
    i = 0
    n = len(co_code)
    while i < n:
        op = co_code[i]
        arg = co_code[i + 1] | ext
        ext = arg << 8 if op == tables.extended_arg else 0
        if op == jb:
            out.append((i, arg))
        i += 2 + 2 * tables.cache_entries[op]
    return out


def positions_of(linetable, firstlineno, n_units):
    """``code.co_positions()`` as a list, from ``code.co_linetable``: one
    (line, end line, column, end column) per 2-byte code unit.

    The watched program sends the raw table and the parent decodes it (a
    list of positions is ~30 us a code object to make there and ~50 us to
    marshal).  The format is the one of 3.11 to 3.15 (Objects/locations.md):
    entries of a header byte (bit 7 set; kind in bits 3-6, code units - 1
    in bits 0-2) and varints (6 bits a byte, bit 6: more follow; signed
    ones zigzagged in the low bit)."""
    out = []
    n = len(linetable)
    i = 0
    line = firstlineno

    def varint():
        nonlocal i
        b = linetable[i]
        i += 1
        val = b & 63
        shift = 0
        while b & 64:
            b = linetable[i]
            i += 1
            shift += 6
            val |= (b & 63) << shift
        return val

    def signed():
        v = varint()
        return -(v >> 1) if v & 1 else v >> 1

    while i < n:
        head = linetable[i]
        i += 1
        kind = (head >> 3) & 15
        units = (head & 7) + 1
        if kind == 15:                       # no location
            pos = (None, None, None, None)
        elif kind == 14:                     # long form
            line += signed()
            end = line + varint()
            col = varint() - 1
            ecol = varint() - 1
            pos = (line, end, None if col < 0 else col, None if ecol < 0 else ecol)
        elif kind == 13:                     # no column
            line += signed()
            pos = (line, line, None, None)
        elif kind >= 10:                     # one line, 0-2 lines on
            line += kind - 10
            col = linetable[i]
            ecol = linetable[i + 1]
            i += 2
            pos = (line, line, col, ecol)
        else:                                # short form, same line
            second = linetable[i]
            i += 1
            col = kind * 8 + (second >> 4)
            pos = (line, line, col, col + (second & 15))
        out.extend([pos] * units)
    if len(out) < n_units:
        out.extend([(None, None, None, None)] * (n_units - len(out)))
    return out


def site_meta(tables, co_code, names, positions, version):
    """The ``sites`` of a code record: (offset, line, end line, column,
    end column, name) for every specialization site (``name``: the global
    or attribute it looks up, else "").  ``version``: the target's
    (major, minor, ...), whose LOAD_ATTR oparg layout it follows."""
    sites = []
    opname = tables.opname
    v312 = tuple(version[:2]) >= (3, 12)
    for off, op, arg, ncache in structure(tables, co_code):
        p = positions[off // 2] if off // 2 < len(positions) else (None,) * 4
        fam = opname[op]
        idx = None
        if fam == "LOAD_GLOBAL" or (fam == "LOAD_ATTR" and v312):
            idx = arg >> 1
        elif fam == "LOAD_SUPER_ATTR":
            idx = arg >> 2
        elif fam in ("LOAD_ATTR", "STORE_ATTR", "LOAD_METHOD"):
            idx = arg
        name = names[idx] if idx is not None and idx < len(names) else ""
        sites.append((off, p[0], p[1], p[2], p[3], name))
    return sites


def loop_meta(tables, co_code, positions):
    """The ``loops`` of a code record: (offset, line of the back edge, line
    of the loop's head) for every JUMP_BACKWARD."""
    out = []
    for off, arg in loop_offsets(tables, co_code):
        head = off + 2 + 2 * tables.cache_entries[co_code[off]] - 2 * arg
        line = positions[off // 2][0] if off // 2 < len(positions) else None
        hline = positions[head // 2][0] if 0 <= head // 2 < len(positions) else None
        out.append((off, line, hline))
    return out


def complete_code_meta(tables, meta, version):
    """Fill in ``sites`` and ``loops`` of a code record the agent sent raw
    (``names`` and ``linetable`` in place of them): built here, in the
    parent, after the run."""
    if "sites" in meta or "linetable" not in meta:
        return meta
    co_code = meta["co_code"]
    positions = positions_of(meta.pop("linetable"), meta["firstlineno"], len(co_code) // 2)
    meta["sites"] = site_meta(tables, co_code, meta.pop("names"), positions, version)
    meta["loops"] = loop_meta(tables, co_code, positions)
    return meta


def instruction_offsets(tables, co_code):
    """Offsets of the instructions of a de-specialized stream (cache cells
    skipped): where an ENTER_EXECUTOR byte can be an opcode."""
    out = []
    i = 0
    n = len(co_code)
    entries = tables.cache_entries
    while i < n:
        out.append(i)
        i += 2 + 2 * entries[co_code[i]]
    return out


def moving_cells(tables, co_code):
    """Byte offsets of the 2-byte cache cells of the instructions that are
    no specialization site but whose cells change as the code runs: back
    edges' counters (3.14+ with the JIT on: counting toward a trace) and
    conditional jumps' branch history (3.13+)."""
    out = []
    names = tables.opname
    i, n = 0, len(co_code)
    entries = tables.cache_entries
    while i < n:
        op = co_code[i]
        k = entries[op]
        if k and names[op] in _NOT_SPECIALIZING:
            out.extend(range(i + 2, i + 2 + 2 * k, 2))
        i += 2 + 2 * k
    return out


def spans_between(cells, n):
    """[(start, end)] of a stream of ``n`` bytes outside the 2-byte ``cells``."""
    spans, start = [], 0
    for c in sorted(cells):
        if c > start:
            spans.append((start, c))
        start = c + 2
    if start < n:
        spans.append((start, n))
    return spans


def loop_state(tables, co_code, adaptive, offset):
    """(live form, counter value, executor index or None) of one back edge."""
    op = adaptive[offset]
    if tables.enter_executor is not None and op == tables.enter_executor:
        return "ENTER_EXECUTOR", None, adaptive[offset + 1]
    value = None
    if tables.cache_entries[co_code[offset]]:
        raw = adaptive[offset + 2] | adaptive[offset + 3] << 8
        value = raw >> tables.counter_bits
    return tables.opname[op], value, None


_GUARD_PREFIXES = ("_GUARD", "_CHECK", "_DEOPT_IF", "_EXIT_IF", "_ITER_CHECK")
_STUBS = ("_DEOPT", "_EXIT_TRACE", "_ERROR_POP_N", "_HANDLE_PENDING_AND_DEOPT",
          "_DYNAMIC_EXIT", "_COLD_EXIT")


_TRACE_ENDS = ("_JUMP_TO_TOP", "_EXIT_TRACE", "_DEOPT", "_DYNAMIC_EXIT")
_FRAME_PUSH = ("_PUSH_FRAME",)
_FRAME_POP = ("_RETURN_VALUE", "_RETURN_GENERATOR", "_YIELD_VALUE")


def _stub_start(uops):
    """Index of the first exit stub: the trace proper ends at a _JUMP_TO_TOP
    (a loop, or 3.15's trace from RESUME) or, for a trace that leaves (3.14
    starts one at a side exit), an _EXIT_TRACE or _DEOPT, after which only
    stubs follow."""
    n = len(uops)
    for ends in (("_JUMP_TO_TOP",), _TRACE_ENDS):
        for k, u in enumerate(uops):
            if u[0] in ends and all(x[0] in _STUBS for x in uops[k + 1:]):
                return k + 1
    return n


def executor_info(code, offset):
    """The tier-2 executor at ``offset`` of ``code`` (running interpreter):
    a back edge's, or one a trace starts at elsewhere (a side exit's target,
    3.15's RESUME), or None.  Its micro-ops as ``[name, oparg, target,
    instruction offset]``: the tier-1 instruction of ``code`` each came from,
    found through the exit stub a guard jumps to; micro-ops of a function
    the trace entered (after _PUSH_FRAME) are those of the call, and those
    after it returned from ``code`` (into an unknown caller) have None.
    Also the counts of guards and of exits, validity, the size of its
    machine code, and the tier-1 instruction it hides (opcode, oparg)."""
    try:
        import _opcode
        ex = _opcode.get_executor(code, offset)
    except Exception:
        return None
    try:
        uops = [tuple(u) for u in ex]
    except Exception:
        return None
    n = len(uops)
    stub_start = _stub_start(uops)

    def stub_instr(k):
        name, oparg, target, operand = uops[k][:4]
        if name == "_ERROR_POP_N":
            return operand
        return target

    # Which frame a micro-op runs in: a trace follows calls (_PUSH_FRAME) and
    # returns, and its targets are instructions of the frame it is in.
    # _SET_IP's operand is the address of its instruction: in `code`'s own
    # stream (inline at type(code).__basicsize__) exactly when that frame
    # runs `code` (also after returning into a caller, e.g. recursion).
    # Micro-ops of another function's frame count as the call in `code`
    # that led there; with no frame of `code` below, they have None.
    ncode = len(code.co_code) // 2
    base = id(code) + type(code).__basicsize__
    set_ip_known = any(u[0] == "_SET_IP" and len(u) > 3 and u[3] - 2 * u[2] == base
                       for u in uops[:stub_start])
    frames = [[True, offset // 2]]    # [runs `code` (None: unknown), its instruction]
    out = []
    guards = 0
    via_stub = {}            # exit stub -> instruction of the micro-op jumping to it
    for k, u in enumerate(uops):
        name, oparg, target = u[0], u[1], u[2]
        if k >= stub_start:
            instr = via_stub.get(k, stub_instr(k))
            out.append([name, oparg, target, None if instr is None else 2 * instr])
            continue
        top = frames[-1]
        if name == "_SET_IP" and set_ip_known:
            top[0] = u[3] - 2 * target == base
        # guards name an exit stub (whose target is the tier-1 instruction);
        # so do other micro-ops that can leave the trace (their stub exits to
        # the instruction they are part of, or the number is no instruction
        # of `code`); the rest name the instruction itself, or carry an error
        # stub in the high half
        guard = name.startswith(_GUARD_PREFIXES) and name != "_CHECK_PERIODIC"
        if guard:
            guards += 1
        stub = None
        if target >= 0x10000:
            jt, et = target & 0xFFFF, target >> 16
            if guard and stub_start <= jt < n:
                stub = jt
            elif stub_start <= et < n:
                stub = et
        elif stub_start <= target < n and (guard or target >= ncode
                                           or stub_instr(target) == top[1]):
            stub = target
        instr = None
        if stub is not None and not name.startswith("_GUARD_IS_"):
            # (a branch's guard exits to the other branch: it belongs to
            # the instruction at hand)
            instr = stub_instr(stub)
        elif target and name not in ("_JUMP_TO_TOP", "_MAKE_WARM", "_CHECK_PERIODIC"):
            # (0 would be RESUME: a trace from there names stubs instead, and
            # micro-ops with no instruction of their own carry 0)
            instr = target
        if top[0]:
            if instr is None:
                instr = top[1]
            top[1] = instr
        else:
            instr = None
            for f in reversed(frames):
                if f[0]:
                    instr = f[1]    # the call in `code` that led here
                    break
        if stub is not None:
            via_stub.setdefault(stub, instr)
        if name in _FRAME_PUSH:
            frames.append([None if set_ip_known else False, None])
        elif name in _FRAME_POP:
            frames.pop()
            if not frames:            # returned from `code` into its caller
                frames.append([None if set_ip_known else False, None])
        out.append([name, oparg, target, None if instr is None else 2 * instr])
    try:
        jit = len(ex.get_jit_code())
    except Exception:
        jit = None
    try:
        valid = bool(ex.is_valid())
    except Exception:
        valid = None
    try:
        # the tier-1 instruction ENTER_EXECUTOR replaced in the stream (its
        # cache cells stay there): what the site is at tier 1
        opcode, oparg = int(ex.get_opcode()), int(ex.get_oparg())
    except Exception:
        opcode = oparg = None
    return {"uops": out, "trace_length": stub_start, "length": n, "guards": guards,
            "exits": n - stub_start, "valid": valid, "jit_code_bytes": jit,
            "opcode": opcode, "oparg": oparg}, ex


# Mixed operations BINARY_OP_EXTEND may cache a descriptor for (3.14+).
_EXTEND_PROBES = (
    ("1", "2.5", "+"), ("2.5", "1", "+"), ("1", "2.5", "-"), ("2.5", "1", "-"),
    ("1", "2.5", "*"), ("2.5", "1", "*"), ("1", "2.5", "/"), ("2.5", "1", "/"),
    ("3", "5", "|"), ("3", "5", "&"), ("3", "5", "^"), ("'ab'", "3", "*"),
    ("3", "'ab'", "*"), ("1", "2.5", "+="), ("2.5", "1", "+="),
)


def extend_descriptors(t):
    """{descriptor address: "int + float"} for BINARY_OP_EXTEND in the running
    interpreter (``t``: its Tables): each candidate operation is run twice in
    a tiny function and the descriptor its site cached is read.  The
    descriptors are static tables, so one probe per process names every
    site's."""
    out = {}
    if "BINARY_OP_EXTEND" not in t.opname:
        return out
    kinds = {"1": "int", "3": "int", "5": "int", "2.5": "float", "'ab'": "str"}
    for a, b, op in _EXTEND_PROBES:
        if op.endswith("="):
            src = "def _f(a, b):\n    a %s b\n    return a\n" % op
        else:
            src = "def _f(a, b):\n    return a %s b\n" % op
        ns = {}
        try:
            exec(src, ns)
            f = ns["_f"]
            va, vb = eval(a), eval(b)
            f(va, vb)
            f(va, vb)
        except Exception:
            continue
        for site in decode(t, f.__code__.co_code, f.__code__._co_code_adaptive):
            if site.opname == "BINARY_OP_EXTEND" and site.fields.get("descr"):
                out[site.fields["descr"]] = "%s %s %s" % (kinds[a], op, kinds[b])
    return out


_CURRENT = []


def decode_code(code):
    """Decode a code object of the running interpreter."""
    if not _CURRENT:
        _CURRENT.append(Tables.current())
    return decode(_CURRENT[0], code.co_code, code._co_code_adaptive)


def probe_offsets():
    """Byte offsets of ``tp_version_tag`` in a type object and of
    ``func_version`` in a function object, found by matching the versions a
    specialized site cached against the objects' raw memory (ctypes).
    Returns ``{"tp_version_tag": int|None, "func_version": int|None}``."""
    import ctypes

    class _Probe(object):
        def __init__(self):
            self.a = 1

    def _callee(x):
        return x

    def _site(o):
        return o.a + _callee(1)

    for _ in range(20):
        _site(_Probe())
    tv = fv = None
    for s in decode_code(_site.__code__):
        if s.opname.startswith("LOAD_ATTR_") and s.type_version:
            tv = s.type_version
        if s.opname.startswith("CALL_PY") and s.fields.get("func_version"):
            fv = s.fields["func_version"]

    def scan(obj, value, expected):
        if not value:
            return None
        base = id(obj)
        size = type(obj).__basicsize__
        read = ctypes.c_uint32.from_address
        if expected is not None and read(base + expected).value == value:
            return expected
        for off in range(16, size - 3, 4):
            if read(base + off).value == value:
                return off
        return None

    ptr = ctypes.sizeof(ctypes.c_void_p)
    return {"tp_version_tag": scan(_Probe, tv, 48 * ptr),
            "func_version": scan(_callee, fv, None)}


def describe_build():
    """What the lens needs to know about this interpreter before watching it
    (JSON-safe): version, implementation, whether its layout can be read (and
    why not), and its tier-2 / JIT state."""
    import os
    info = {"version": list(sys.version_info[:3]),
            "implementation": sys.implementation.name,
            "executable": sys.executable, "readable": False, "reason": None}
    if sys.implementation.name != "cpython":
        info["reason"] = "%s is not CPython" % sys.implementation.name
    elif tuple(sys.version_info[:2]) not in SUPPORTED:
        info["reason"] = "CPython %d.%d has no layout this lens knows" % sys.version_info[:2]
    elif not hasattr(describe_build.__code__, "_co_code_adaptive"):
        info["reason"] = "code objects have no _co_code_adaptive"
    else:
        try:
            t = Tables.current()
            if t.layout_error:
                info["reason"] = t.layout_error
            elif not t.families:
                info["reason"] = "no specializing families found in its opcode tables"
            else:
                info["readable"] = True
                info["counter_bits"] = t.counter_bits
        except Exception as exc:   # a table of a shape we do not know
            info["reason"] = "its opcode tables have an unknown shape (%s: %s)" % (
                type(exc).__name__, exc)
    info["tier2"] = tier2_state()
    info["env_jit"] = os.environ.get("PYTHON_JIT")
    return info


def tier2_state():
    """{"built": bool, "enabled": bool|None, "executors": bool, "why": str}.

    ``built``: the interpreter has tier 2 (``sys._jit`` present, 3.14+);
    ``enabled``: it is switched on in this process; ``executors``:
    ``_opcode.get_executor`` can answer."""
    jit = getattr(sys, "_jit", None)
    out = {"built": False, "enabled": None, "available": None, "executors": False,
           "why": None}
    try:
        import _opcode
        out["executors"] = hasattr(_opcode, "get_executor")
    except ImportError:
        pass
    if jit is None:
        out["why"] = ("this build has no tier 2 / JIT (CPython %d.%d without "
                      "--enable-experimental-jit)" % sys.version_info[:2])
        return out
    out["built"] = True
    try:
        out["available"] = bool(jit.is_available())
        out["enabled"] = bool(jit.is_enabled())
    except Exception as exc:
        out["why"] = "sys._jit did not answer (%r)" % (exc,)
        return out
    if not out["available"]:
        out["why"] = "the JIT is built in but not available on this machine"
    elif not out["enabled"]:
        out["why"] = ("tier 2 and the JIT are built in but off: run with "
                      "PYTHON_JIT=1 to switch them on")
    return out


def _main(argv):
    """``python decode.py --describe``: print describe_build() as JSON.

    ``python decode.py TABLES [CODE [SHIM]]``: write this interpreter's
    tables (marshal) and, with CODE, the compiled lens agent and decoder,
    with SHIM the start-up shim as a .pyc (so the watched program need not
    compile them at start-up even when bytecode caching is off)."""
    import marshal
    import os
    if argv[1:2] == ["--describe"]:
        import json
        sys.stdout.write(json.dumps(describe_build()) + "\n")
        return 0
    t = Tables.current()
    d = t.to_dict()
    try:
        d["offsets"] = probe_offsets()
    except Exception:
        d["offsets"] = None
    try:
        # BINARY_OP_EXTEND's descriptors are static data of the interpreter,
        # as `int` is: their distance from it is the same in every process
        d["extend_from_int"] = dict((a - id(int), name) for a, name in
                                    extend_descriptors(t).items())
    except Exception:
        d["extend_from_int"] = None
    with open(argv[1], "wb") as f:
        marshal.dump(d, f, 4)
    if len(argv) > 2:
        here = os.path.dirname(os.path.abspath(__file__))
        blob = {}
        for name in ("agent", "decode"):
            path = os.path.join(here, name + ".py")
            with open(path, "rb") as f:
                # without docstrings (optimize=2): a tenth less to load at
                # the watched program's start-up, and nothing there reads them
                blob[name] = compile(f.read(), path, "exec", dont_inherit=True,
                                     optimize=2)
        blob["version"] = list(sys.version_info[:3])
        with open(argv[2], "wb") as f:
            marshal.dump(blob, f)
    if len(argv) > 3:
        # the start-up shim as a sourceless .pyc of this interpreter: with
        # bytecode caching off (PYTHONDONTWRITEBYTECODE), importing it from
        # source compiled it in every watched program (~2 ms of start-up)
        import importlib.util
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            "_site", "sitecustomize.py")
        with open(path, "rb") as f:
            code = compile(f.read(), path, "exec", dont_inherit=True)
        with open(argv[3], "wb") as f:
            f.write(importlib.util.MAGIC_NUMBER + bytes(12) + marshal.dumps(code))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv))
