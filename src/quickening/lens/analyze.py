"""Turn the agent's raw samples into per-site histories and findings.

Input: the record stream written by :mod:`quickening.lens.agent` (see its
docstring).  Output: a :class:`Report` with one :class:`SiteReport` per
specialization site that executed, and a ranked list of findings with a plain
sentence each.  Everything here runs in the parent process; the target's
opcode tables come from the record stream, so a 3.11 program is decoded with
3.11's tables.
"""

import marshal
import os

from quickening.lens import decode as D

# Value a counter is set to on a successful specialization.
_COOLDOWN = {(3, 11): 53}
_DEFAULT_COOLDOWN = 52

_FAMILY_HINTS = {
    "BINARY_OP": "its operands are mixed or not exact int/float/str "
                 "(int + float, bool, subclasses, big ints...)",
    "LOAD_ATTR": "the attribute is probably a non-Python property, a class- or "
                 "staticmethod, another descriptor, or found through "
                 "__getattr__/__getattribute__",
    "LOAD_METHOD": "the method is found through a descriptor or __getattr__ "
                   "CPython does not specialize",
    "STORE_ATTR": "the attribute is a property/descriptor or the object has no "
                  "plain instance dict or slot",
    "LOAD_GLOBAL": "the globals or builtins are not plain dicts, or the name "
                   "is missing",
    "CALL": "the callee is of a kind CPython does not specialize here (keyword "
            "arguments, *args, callable instances or classes on 3.12...)",
    "PRECALL": "the callee is of a kind CPython 3.11 does not specialize",
    "COMPARE_OP": "its operands are mixed or not exact float/int/str (str only "
                  "for == and !=)",
    "FOR_ITER": "the iterator is not a list, tuple, range or generator "
                "(dict views, enumerate, zip, map...)",
    "TO_BOOL": "the value is not a bool, int, list, None, str or a plain "
               "class instance (float, dict, tuple, set...)",
    "BINARY_SUBSCR": "the container/index are not list/tuple/str with a small "
                     "non-negative int, a dict, or a class with a Python "
                     "__getitem__",
    "STORE_SUBSCR": "the container is not a list indexed in range or a dict",
    "UNPACK_SEQUENCE": "the value is not an exact tuple or list of the "
                       "unpacked length",
    "CONTAINS_OP": "the right operand is not a dict or set",
}

_SPECIALIZED_BINOPS = {"+", "-", "*", "+=", "-=", "*="}


class RunData(object):
    """Raw records of one watched run, grouped."""

    def __init__(self):
        self.hello = None
        self.tables = None
        self.codes = {}
        self.samples = []
        self.types = {}
        self.funcs = {}
        self.events = []
        self.end = None
        self.probe = None
        self.executors = []      # (t, cid, offset, index, info)
        self.tier2 = None        # tier-2 state as the program saw it running
        self.extend = {}         # BINARY_OP_EXTEND descriptor -> "int + float"
        self.executors_gone = []  # (t, cid, offset, index, valid)
        self.outside = []        # (t, cid, bytes) read by the parent (outside.py)
        self.outside_info = None

    @classmethod
    def load(cls, path):
        run = cls()
        with open(path, "rb") as f:
            while True:
                try:
                    rec = marshal.load(f)
                except EOFError:
                    break
                except Exception:  # truncated by a crash: keep what we have
                    break
                kind = rec[0]
                if kind == "hello":
                    run.hello = rec[1]
                    tables = rec[1].get("tables")
                    if tables is None:
                        with open(rec[1]["tables_path"], "rb") as tf:
                            tables = marshal.loads(tf.read())
                    run.tables = D.Tables.from_dict(tables)
                elif kind == "code":
                    run.codes[rec[1]] = D.complete_code_meta(
                        run.tables, rec[2], run.hello["version"])
                elif kind == "sample":
                    run.samples.append((rec[1], rec[2], rec[3]))
                elif kind == "types":
                    run.types.update(rec[1])
                elif kind == "funcs":
                    run.funcs.update(rec[1])
                elif kind == "event":
                    run.events.append((rec[1], rec[2], rec[3]))
                elif kind == "probe":
                    run.probe = rec[1]
                elif kind == "executor":
                    run.executors.append(tuple(rec[1:]))
                elif kind == "extend":
                    run.extend.update(rec[1])
                elif kind == "tier2":
                    run.tier2 = rec[2]
                elif kind == "executor-gone":
                    run.executors_gone.append(tuple(rec[1:]))
                elif kind == "end":
                    run.end = rec[2]
                elif kind == "outside":
                    run.outside.append((rec[1], rec[2], rec[3]))
                elif kind == "outside-end":
                    run.outside_info = rec[1]
        run._merge_outside()
        return run

    def _merge_outside(self):
        """The parent's copies join the agent's samples, up to the agent's
        last one (the state at exit); a copy of a code object the agent
        never described is dropped."""
        if not self.outside or not self.samples:
            return
        t_last = max(t for t, _, _ in self.samples)
        for t, cid, b in self.outside:
            if t <= t_last and cid in self.codes:
                self.samples.append((t, [(cid, b)], False))


class Obs(object):
    """One observed state of a site."""

    __slots__ = ("t", "opname", "state", "raw", "value", "backoff", "key",
                 "type_version", "target")

    def __init__(self, t, site, target):
        self.t = t
        self.opname = site.opname
        self.state = site.state
        self.raw = site.counter_raw
        self.value = site.counter_value
        self.backoff = site.backoff
        self.key = site.cache
        self.type_version = site.type_version
        self.target = target

    def same(self, other):
        return (self.opname == other.opname and self.raw == other.raw
                and self.key == other.key)


class SiteReport(object):
    def __init__(self, code, meta_site, family, oparg):
        self.code = code                      # code meta dict
        off, line, endline, col, endcol, argrepr = meta_site
        self.offset = off
        self.line = line
        self.endline = endline
        self.col = col
        self.endcol = endcol
        self.argrepr = argrepr
        self.family = family
        self.oparg = oparg
        self.obs = []
        self.events = []       # (t, kind, opname, target, detail)
        self.source = ""
        self.classes = []      # distinct class names seen, in order
        self.targets = []      # distinct cache targets (names or keys)
        self.specializations = 0
        self.retargets = 0
        self.fallbacks = 0
        self.failed_attempts = 0
        self.misses = 0
        self.misses_exact = True
        self.time_specialized = 0.0
        self.first_specialized = None
        self.instrumented = False
        self.gave_up = False   # 3.11: base form put back for good
        self.executor_since = None   # a tier-2 executor sits on the site (from t)
        self.executor_at_exit = False
        self.cooldown = None   # counter value right after specializing

    @property
    def final(self):
        return self.obs[-1] if self.obs else None

    @property
    def key(self):
        return "%s:%s:%s:%d" % (self.code["filename"], self.code["qualname"],
                                self.code["firstlineno"], self.offset)

    @property
    def where(self):
        return "%s:%s" % (os.path.basename(self.code["filename"]), self.line)

    def executed(self, is311=False, quickened=False):
        """Did the site ever leave its creation state?"""
        o = self.final
        if o is None:
            return False
        if len(self.obs) > 1 or o.state != "generic":
            return True
        if is311:
            return quickened
        # the warm-up counter (value 1, backoff 1: 17 on 3.12-3.14, 9 on 3.15)
        return (o.value, o.backoff) != (1, 1)

    def missing_since_specialized(self):
        """Guard misses since the last (re)specialization, read from the
        counter at exit (3.12+; 3.11's miss budget is not comparable)."""
        o = self.final
        if o is None or o.state != "specialized" or self.cooldown is None:
            return 0
        if self.family == "RESUME":
            return 0      # 3.15's RESUME counter counts calls toward a trace
        return max(0, self.cooldown - o.value)

    def verdict(self):
        """One word for the state at exit, used for colours and ranking."""
        o = self.final
        if o is None:
            return "unknown"
        if o.state == "instrumented":
            return "instrumented"
        if o.state == "specialized":
            if len(self.classes) > 1 or self.retargets >= 2:
                return "polymorphic"
            if self.missing_since_specialized() >= 5:
                return "missing"
            return "specialized"
        if self.specializations:
            return "fell-back"
        if self.failed_attempts or self.gave_up or (o.state == "adaptive" and o.backoff):
            return "unspecialized"
        return "cold"


class Finding(object):
    def __init__(self, kind, site, score, sentence):
        self.kind = kind
        self.site = site          # the site the sentence is about
        self.score = score
        self.sentence = sentence
        self.also = []            # further sites of this kind on that line


class Report(object):
    def __init__(self, run, sites, findings, info, tier2=None):
        self.run = run
        self.sites = sites
        self.findings = findings
        self.info = info
        self.tier2 = tier2


def tier2_why(state, version):
    """Why tier 2 is not running, with how to switch it on (or None)."""
    if not state:
        return "tier 2 is not known for this build"
    if not state.get("built"):
        return ("CPython %s here has no tier 2 (it is built into 3.14+ configured with "
                "--enable-experimental-jit, e.g. Debian's python3.14/3.15)" % version)
    if state.get("available") is False:
        return "tier 2 and the JIT are built in but not available on this machine"
    if not state.get("enabled"):
        return ("tier 2 and the JIT are built in but off: run with PYTHON_JIT=1 "
                "(e.g. `PYTHON_JIT=1 quickening watch ...`) to switch them on")
    return None


def _hidden_forms(run):
    """{(cid, offset): [(t, executor index, tier-1 opcode)]}: the instruction
    each executor the agent read replaced with ENTER_EXECUTOR."""
    out = {}
    for (t, cid, off, index, info) in run.executors:
        op = info.get("opcode")
        if op is not None:
            out.setdefault((cid, off), []).append((t, index, op))
    return out


def _hidden_opcode(records, t, index):
    """The tier-1 opcode under the ENTER_EXECUTOR with ``index`` seen at ``t``:
    from the executor of that index read last before ``t`` (indexes are reused
    once an executor goes), else the first read after it (a copy from outside
    the process may come before the agent's read), else None."""
    if not records:
        return None
    same = [r for r in records if r[1] == index] or records
    before = [r for r in same if r[0] <= t]
    return (before[-1] if before else same[0])[2]


def _executors_made(run, per_code=None):
    """{(cid, offset): [executor dict]} of every executor the agent read, in
    order of appearance, with when it went (if it did)."""
    tables = run.tables
    made = {}
    for (t, cid, off, index, info) in run.executors:
        op = info.get("opcode")
        made.setdefault((cid, off), []).append({
            "index": index, "appeared_s": t, "gone_s": None, "valid": info.get("valid"),
            "tier1_form": tables.opname[op] if op is not None else None,
            "uops": info["uops"], "trace_length": info["trace_length"],
            "guards": info["guards"], "exits": info["exits"],
            "jit_code_bytes": info.get("jit_code_bytes")})
    for (t, cid, off, index, valid) in run.executors_gone:
        for e in made.get((cid, off), ()):
            if e["index"] == index and e["gone_s"] is None and e["appeared_s"] <= t:
                e["gone_s"] = t
                e["valid"] = valid
                break
    if per_code is not None and tables.enter_executor is not None:
        for (cid, off), execs in made.items():
            _refine_times(execs, per_code.get(cid) or [], off, tables.enter_executor)
    return made


def _refine_times(execs, timeline, off, ee):
    """When each executor appeared and went, to the read that first saw it
    there / first saw it gone: the agent reads an executor at its own
    samples, the parent's copies from outside come about every millisecond
    in between (``timeline``: [(t, stream)] in time order)."""
    for e in execs:
        there = [k for k, (t, b) in enumerate(timeline)
                 if b[off] == ee and b[off + 1] == e["index"] and t <= (
                     e["gone_s"] if e["gone_s"] is not None else float("inf"))]
        if not there:
            continue
        # the run of reads showing it that contains the agent's own read
        k = max((k for k in there if timeline[k][0] <= e["appeared_s"]), default=there[0])
        shown = set(there)
        while k - 1 in shown:
            k -= 1
        e["appeared_s"] = min(e["appeared_s"], timeline[k][0])
        if e["gone_s"] is not None:
            last = max(there)
            if last + 1 < len(timeline) and timeline[last + 1][0] <= e["gone_s"]:
                e["gone_s"] = timeline[last + 1][0]


def _trace_views(execs, lines):
    for e in execs:
        e["by_line"] = _group_uops(e["uops"][:e["trace_length"]], lines)
        e["exit_stubs"] = [[u[0], u[2], u[4] if len(u) > 4 else None]
                           for u in e["uops"][e["trace_length"]:]]


def _entries(run, made, per_code, src_cache, code_text):
    """Executors a trace starts at elsewhere than a back edge: the target of
    a side exit whose guard kept failing (3.14+), a hot function's RESUME
    (3.15).  One entry per instruction that held one."""
    tables = run.tables
    out = []
    for cid, meta in sorted(run.codes.items()):
        backs = set(l[0] for l in meta.get("loops") or [])
        offs = sorted(off for (c, off) in made if c == cid and off not in backs)
        if not offs:
            continue
        lines = _read_source(meta["filename"], src_cache, code_text)
        positions = dict((s[0], s[1]) for s in meta["sites"])
        timeline = per_code.get(cid)
        last = timeline[-1][1] if timeline else None
        for off in offs:
            execs = made[(cid, off)]
            _trace_views(execs, lines)
            line = positions.get(off)
            if line is None:       # not a site: the line its micro-ops start on
                line = next((u[4] for u in execs[-1]["uops"] if len(u) > 4
                             and u[4] is not None), None)
            instruction = tables.opname[meta["co_code"][off]]
            key = "%s:%s:%s:%d" % (meta["filename"], meta["qualname"],
                                   meta["firstlineno"], off)
            out.append({
                "id": key, "file": meta["filename"], "function": meta["qualname"],
                "offset": off, "line": line,
                "source": [[line, lines[line - 1]]] if lines and line
                and 0 < line <= len(lines) else [],
                "instruction": instruction,
                "starts_at": "function entry" if instruction == "RESUME" else "side exit",
                "site": key if off in positions and instruction in tables.families else None,
                "form": execs[-1]["tier1_form"],
                "at_exit": bool(last is not None and tables.enter_executor is not None
                                and last[off] == tables.enter_executor),
                "executors": execs,
            })
    out.sort(key=lambda x: (not x["at_exit"], x["file"], x["line"] or 0))
    return out


def _loops(run, made, per_code, src_cache, code_text):
    """Per back edge of every code object that ran: its tier-2 executors
    (when they appeared and went, their micro-ops grouped under source
    lines) or the JUMP_BACKWARD counter's progress toward a trace."""
    tables = run.tables
    out = []
    initial = tables.jump_initial
    for cid, meta in sorted(run.codes.items()):
        timeline = per_code.get(cid)
        loops = meta.get("loops") or []
        if not timeline or not loops:
            continue
        lines = _read_source(meta["filename"], src_cache, code_text)
        first, last = timeline[0][1], timeline[-1][1]
        for off, line, head in loops:
            form, value, index = D.loop_state(tables, meta["co_code"], last, off)
            f0, v0, _ = D.loop_state(tables, meta["co_code"], first, off)
            execs = made.get((cid, off), [])
            if not execs and form == f0 and value == v0 and value == initial:
                continue          # the back edge never ran while watched
            _trace_views(execs, lines)
            lo, hi = min(line or 0, head or 0), max(line or 0, head or 0)
            out.append({
                "id": "%s:%s:%s:%d" % (meta["filename"], meta["qualname"],
                                       meta["firstlineno"], off),
                "file": meta["filename"], "function": meta["qualname"], "offset": off,
                "line": head, "end_line": line,
                "source": [[n, lines[n - 1]] for n in range(lo, hi + 1)
                           if lines and 0 < n <= len(lines)],
                "form": form, "executor_index": index,
                "counter": value, "threshold": initial,
                "executors": execs,
            })
    # loops with an executor first, then those nearest to getting one
    out.sort(key=lambda l: (not l["executors"],
                            l["counter"] if l["counter"] is not None else 1 << 20))
    return out


def _group_uops(uops, lines):
    """[{"line", "source", "uops": [[name, oparg, target]]}] in trace order,
    consecutive micro-ops of one line together."""
    groups = []
    for u in uops:
        name, oparg, target, line = u[0], u[1], u[2], (u[4] if len(u) > 4 else None)
        if groups and groups[-1]["line"] == line:
            groups[-1]["uops"].append([name, oparg, target])
            continue
        if line is None:
            # no frame of the code object on the stack: the trace returned
            # from it into a caller
            text = "(in a caller, after the return)"
        else:
            text = lines[line - 1].strip() if lines and 0 < line <= len(lines) else ""
        groups.append({"line": line, "source": text, "uops": [[name, oparg, target]]})
    return groups


def _read_source(filename, cache, code_text=None):
    if filename in cache:
        return cache[filename]
    lines = None
    if filename in ("<string>", "<stdin>") and code_text is not None:
        # (-c code or a program piped in: one of them, never both)
        lines = code_text.splitlines()
    else:
        try:
            with open(filename, "r", encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError:
            lines = None
    cache[filename] = lines
    return lines


def _snippet(lines, line, endline, col, endcol):
    if not lines or not line or line > len(lines):
        return ""
    text = lines[line - 1]
    if col is None:
        return text.strip()
    if endline == line and endcol is not None:
        return text[col:endcol]
    return text[col:].rstrip()


def analyze(run, code_text=None):
    """Build the :class:`Report` of a :class:`RunData`."""
    tables = run.tables
    cooldown = _COOLDOWN.get(tuple(tables.version[:2]), _DEFAULT_COOLDOWN)
    per_code = {}
    for t, changed, final in run.samples:
        for cid, b in changed:
            per_code.setdefault(cid, []).append((t, b))
    for timeline in per_code.values():
        timeline.sort(key=lambda x: x[0])   # baselines arrive late
    src_cache = {}
    sites = []
    state = run.tier2 or (run.hello or {}).get("tier2") or {}
    hidden = _hidden_forms(run)
    counters_move = bool(state.get("enabled")) and tuple(tables.version[:2]) >= (3, 15)
    for cid, meta in sorted(run.codes.items()):
        timeline = per_code.get(cid)
        if not timeline:
            continue
        struct = D.structure(tables, meta["co_code"])
        by_off = {s[0]: s for s in meta["sites"]}
        reports = []
        for (off, op, arg, ncache) in struct:
            ms = by_off.get(off, (off, None, None, None, None, ""))
            r = SiteReport(meta, ms, tables.opname[op], arg)
            reports.append(r)
        co_code = meta["co_code"]
        spans = [(st[0], st[0] + 2 + 2 * st[3]) for st in struct]
        prev = None
        for t, b in timeline:
            for i, (lo, hi) in enumerate(spans):
                if prev is not None and b[lo:hi] == prev[lo:hi]:
                    continue          # this site's bytes did not change
                (s,) = D.decode(tables, co_code, b, [struct[i]])
                r = reports[i]
                if s.state == "executor":
                    # tier 2 took the site over (3.14+ also starts traces at a
                    # hot side exit, e.g. a guard that keeps failing): its
                    # tier-1 form is hidden in the executor, not gone; the
                    # agent read it there, and the cache cells are in place
                    if r.executor_since is None:
                        r.executor_since = t
                        r.events.append((t, "tier-2 executor", s.opname, None,
                                         "a trace starts here"))
                    op = _hidden_opcode(hidden.get((cid, lo)), t, b[lo + 1])
                    if op is None:
                        continue
                    (s,) = D.decode(tables, co_code,
                                    b[:lo] + bytes([op]) + b[lo + 1:], [struct[i]])
                    if s.state == "executor":
                        continue
                o = Obs(t, s, _target_name(run, s))
                if r.obs and r.obs[-1].same(o):
                    continue
                r.obs.append(o)
            prev = b
        lines = _read_source(meta["filename"], src_cache, code_text)
        last = timeline[-1][1]
        if tables.enter_executor is not None:
            for (lo, hi), r in zip(spans, reports):
                r.executor_at_exit = last[lo] == tables.enter_executor
        quickened = any(tables.opname[last[i]] == "RESUME_QUICK"
                        for i in range(0, min(len(last), 40), 2))
        for r in reports:
            # 3.15 with tier 2 on: recording a trace moves the counters of the
            # specialized instructions it passes (52 -> 0 on `int += int`,
            # which cannot miss), so a counter is no evidence of misses there
            r.cooldown = None if tables.is_311 or counters_move else cooldown
            _history(r, cooldown, tables)
            r.events.sort(key=lambda e: e[0])
            if counters_move:
                r.misses = 0        # not counted from counters (see above)
            r.source = _snippet(lines, r.line, r.endline, r.col, r.endcol)
            if tables.is_311 and quickened and r.final is not None \
                    and r.final.state == "generic":
                r.gave_up = True
            if r.executed(tables.is_311, quickened):
                sites.append(r)
    t_end = max(t for t, _, _ in run.samples) if run.samples else 0.0
    for r in sites:
        _time_specialized(r, t_end)
    findings = _findings(run, sites, tables)
    info = {
        "version": ".".join(map(str, tables.version)),
        "supported": tables.supported(),
        "samples": (run.end or {}).get("samples", len(run.samples)),
        "found": (run.end or {}).get("codes"),
        "duration": t_end,
        "interval_ms": run.hello["interval"] * 1000 if run.hello else None,
        "codes": len(run.codes),
        "events": run.events,
        "complete": run.end is not None,
        "sample_cost": (run.end or {}).get("sample_cost"),
        "focused_reads": (run.end or {}).get("focused_reads", 0),
        "outside_reads": (run.outside_info or {}).get("rounds", 0),
        "outside_copies": (run.outside_info or {}).get("copies", 0),
        "outside_error": (run.outside_info or {}).get("error"),
        "outside_stopped": (run.outside_info or {}).get("stopped"),
        "probe_error": (run.probe or {}).get("error"),
    }
    state = run.tier2 or (run.hello or {}).get("tier2")
    made = _executors_made(run, per_code)
    tier2 = {"state": state, "why_not": tier2_why(state, info["version"]),
             "loops": _loops(run, made, per_code, src_cache, code_text),
             "entries": _entries(run, made, per_code, src_cache, code_text)}
    return Report(run, sites, findings, info, tier2)


def _unseen(r):
    """What reading the site's cache may have missed, and why (one sentence)."""
    gaps = sum(1 for a, b in zip(r.obs, r.obs[1:])
               if a.type_version != b.type_version and b.state == "specialized")
    unnamed = sum(1 for c in r.classes if c.startswith("a class (type version"))
    text = ("(Seen in %d reads of the site; its cache holds one class at a time and "
            "changed between %d pairs of consecutive reads, so a class that held it "
            "only between two reads is not named" % (len(r.obs), gaps))
    if unnamed:
        text += ("; %d cached type version%s matched no class alive at exit"
                 % (unnamed, "" if unnamed == 1 else "s"))
    return text + ".)"


def _target_name(run, s):
    if s.state != "specialized":
        return None
    if s.opname == "BINARY_OP_EXTEND":
        d = s.fields.get("descr")
        return run.extend.get(d) or ("a mixed operation (descriptor %#x)" % d if d else None)
    if s.type_version:
        name = run.types.get(s.type_version)
        return name or "a class (type version %d)" % s.type_version
    fv = s.fields.get("func_version")
    if fv and ("PY_" in s.opname or "BOUND_METHOD" in s.opname):
        return run.funcs.get(fv) or "a function (version %d)" % fv
    return None


def _history(r, cooldown, tables):
    prev = None
    seen_classes = []
    seen_targets = []
    for o in r.obs:
        if o.state == "instrumented":
            r.instrumented = True
        if o.target and o.type_version and o.target not in seen_classes:
            seen_classes.append(o.target)
        tkey = o.target or (o.opname, o.key) if o.state == "specialized" else None
        if tkey is not None and tkey not in seen_targets:
            seen_targets.append(tkey)
        if prev is None:
            if o.state == "specialized":
                r.specializations += 1
                r.first_specialized = o.t
                r.misses += max(0, cooldown - o.value)   # since it specialized
                r.events.append((o.t, "specialized", o.opname, o.target, ""))
            else:
                r.events.append((o.t, "first seen", o.opname, None,
                                 _counter_text(o, tables)))
            prev = o
            continue
        if o.state == "specialized":
            if prev.state != "specialized":
                if r.specializations == 0:
                    r.first_specialized = o.t
                    kind = "specialized"
                else:
                    kind = "re-specialized"
                    r.retargets += 1
                r.specializations += 1
                r.misses += max(0, cooldown - o.value)
                r.events.append((o.t, kind, o.opname, o.target, ""))
            else:
                changed = (o.opname != prev.opname or o.key != prev.key)
                refilled = o.value > prev.value
                if changed or refilled:
                    r.retargets += 1
                    r.specializations += 1
                    # misses: drained prev to 0, the 53rd miss re-specialized,
                    # then the new counter went down from cooldown
                    r.misses += prev.value + 1 + max(0, cooldown - o.value)
                    r.misses_exact = False
                    r.events.append((o.t, "re-targeted", o.opname, o.target,
                                     "counter %d -> %d" % (prev.value, o.value)))
                else:
                    r.misses += prev.value - o.value
        else:
            if prev.state == "specialized":
                r.fallbacks += 1
                r.misses += prev.value + 1
                r.misses_exact = False
                r.events.append((o.t, "fell back", o.opname, None,
                                 "backoff %s" % (o.backoff,)))
            elif o.state in ("generic", "adaptive") and prev.backoff is not None \
                    and o.backoff is not None and o.backoff > prev.backoff:
                r.events.append((o.t, "failed attempt", o.opname, None,
                                 "backoff %d" % o.backoff))
            if o.state == "instrumented" and prev.state != "instrumented":
                r.events.append((o.t, "instrumented", o.opname, None, ""))
        prev = o
    r.classes = seen_classes
    r.targets = seen_targets
    f = r.final
    if f is not None and f.state in ("generic", "adaptive") and f.backoff is not None:
        if tables.is_311:
            r.failed_attempts = f.backoff if f.state == "adaptive" else 0
        else:
            # warm-up leaves backoff 1; each failed attempt adds one
            r.failed_attempts = max(0, f.backoff - 1)


def _counter_text(o, tables):
    """What the counter of a non-specialized site says, in words."""
    if o.backoff is None:
        return "miss budget %d" % o.value
    if tables.is_311:
        if o.state == "generic":
            return "not quickened yet" if o.raw == 0 else "counter %d" % o.raw
        return "attempt in %d executions (backoff %d)" % (o.value, o.backoff)
    if (o.value, o.backoff) == (1, 1):
        return "warming up: never executed"
    if o.backoff == 1:
        return "warming up: next execution specializes" if o.value == 0 else \
            "warming up (value %d)" % o.value
    return "failed %d attempt(s); next in %d executions" % (o.backoff - 1, o.value)


def _time_specialized(r, t_end):
    total = 0.0
    for a, b in zip(r.obs, r.obs[1:] + [None]):
        if a.state == "specialized":
            total += (b.t if b is not None else t_end) - a.t
    r.time_specialized = total


def _min_executions(failed, is311):
    """Executions implied by ``failed`` failed specialization attempts."""
    if failed <= 0:
        return 0
    if is311:
        n = 8
        for k in range(1, failed):
            n += 2 ** k - 1
        return n
    n = 2
    for k in range(1, failed):
        n += 2 ** (k + 1) - 1
    return n


def describe_site(r):
    where = "`%s`" % (r.source or r.argrepr or r.family)
    fn = r.code["qualname"]
    if fn == "<module>":
        return "%s at module level (%s)" % (where, r.where)
    return "%s in `%s()` (%s)" % (where, fn, r.where)


def short_name(name):
    """'__main__.Shape.area' -> 'Shape.area'; other modules keep their name."""
    for prefix in ("__main__.", "builtins."):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def _at_least(n, exact):
    return format(n, ",") if exact else "at least %s" % format(n, ",")


def _findings(run, sites, tables):
    cooldown = _COOLDOWN.get(tuple(tables.version[:2]), _DEFAULT_COOLDOWN)
    out = []
    for r in sites:
        f = r.final
        desc = describe_site(r)
        mp = ""
        if r.misses:
            rate = r.misses / r.time_specialized if r.time_specialized > 0 else 0
            mp = "; %s guard misses%s" % (
                _at_least(r.misses, r.misses_exact),
                " (~%s/s)" % format(int(rate), ",") if rate else "")
        if len(r.classes) > 1:
            n = len(r.classes)
            shown = ", ".join(short_name(c) for c in r.classes[:6])
            if n > 6:
                shown += ", ..."
            # what a reading of the cache cannot show, said where the count is
            s = ("%d classes seen passing through %s (%s); it re-targeted %s "
                 "times%s. Split the site so each class gets its own, or give "
                 "the objects one class. %s"
                 % (n, desc, shown, _at_least(r.retargets, False), mp, _unseen(r)))
            out.append(Finding("polymorphic", r, 1000 + r.retargets * n, s))
        elif r.retargets >= 2:
            forms = []
            for o in r.obs:
                if o.state == "specialized" and o.opname not in forms:
                    forms.append(o.opname)
            what = ""
            if len(forms) > 1:
                what = " between %s" % ", ".join(forms)
            else:
                names = [t for t in r.targets if isinstance(t, str)]
                if len(names) > 1:
                    what = " between %s" % ", ".join(short_name(x) for x in names[:5])
            s = ("%s re-specialized %s times%s%s: what reaches it keeps "
                 "changing; keep its operands to one type." % (
                     desc, _at_least(r.retargets, False), what, mp))
            out.append(Finding("churning", r, 500 + r.retargets, s))
        if r.verdict() == "missing":
            s = ("%s is specialized as %s, but its guard failed %s times since "
                 "it last specialized (counter %d of %d): other types or "
                 "objects also pass through it. Sample more often "
                 "(--interval) or run longer to see which." % (
                     desc, f.opname, _at_least(cooldown - f.value, False),
                     f.value, cooldown))
            out.append(Finding("missing", r, 400 + cooldown - f.value, s))
        if r.fallbacks and f.state != "specialized":
            what = ("%s, 3.11's waiting form" % f.opname if f.state == "adaptive"
                    else "the generic %s" % f.opname)
            s = ("%s was specialized, then fell back to %s %s%s; it "
                 "retries after a delay (backoff level %s)." % (
                     desc, what,
                     "once" if r.fallbacks == 1 else "%d times" % r.fallbacks,
                     mp, f.backoff))
            out.append(Finding("fell-back", r, 300 + r.fallbacks, s))
        elif not r.specializations and f.state in ("generic", "adaptive") \
                and (r.failed_attempts >= 4 or r.gave_up):
            n = _min_executions(r.failed_attempts, tables.is_311)
            hint = _FAMILY_HINTS.get(r.family, "its operands are of a kind "
                                     "CPython does not specialize")
            if r.family == "BINARY_OP" and tables.nb_ops \
                    and 0 <= r.oparg < len(tables.nb_ops) \
                    and tables.nb_ops[r.oparg] not in _SPECIALIZED_BINOPS:
                hint = "CPython has no specialized form for `%s`" % tables.nb_ops[r.oparg]
            if r.gave_up:
                s = ("%s runs in quickened code but CPython 3.11 put the "
                     "generic %s back for good: %s." % (desc, r.family, hint))
            else:
                s = ("%s ran at least %s times but never specialized (%d "
                     "failed attempts): %s." % (desc, format(n, ","),
                                                r.failed_attempts, hint))
            out.append(Finding("never-specialized", r, 100 + r.failed_attempts, s))
        if r.instrumented:
            s = ("%s was instrumented by a tracer/profiler/monitoring tool: "
                 "instrumented sites do not specialize." % desc)
            out.append(Finding("instrumented", r, 50, s))
    out.sort(key=lambda x: -x.score)
    return _merge_same_line(out)


def _merge_same_line(findings):
    """One finding per (kind, file, line): the strongest speaks, the others
    on that line are named after it."""
    first = {}
    merged = []
    for f in findings:
        key = (f.kind, f.site.code["filename"], f.site.line)
        lead = first.get(key)
        if lead is None:
            first[key] = f
            merged.append(f)
        else:
            lead.also.append(f.site)
    for f in merged:
        if f.also:
            names = ", ".join("`%s`" % (o.source or o.argrepr or o.family)
                              for o in f.also[:4])
            more = " and %d more" % (len(f.also) - 4) if len(f.also) > 4 else ""
            f.sentence += " Same on this line: %s%s." % (names, more)
    return merged
