"""Terminal and JSON renderings of a lens :class:`~quickening.lens.analyze.Report`.

JSON schema (``quickening watch --json FILE``), ``"schema": "quickening.lens/2"``
(2 added ``tier2``; everything of 1 is unchanged):

``python``    ``{"version", "executable", "supported"}``
``run``       ``{"argv", "exit_status", "wall_s", "duration_s", "interval_ms",
               "samples", "focused_reads", "code_objects", "code_objects_found",
               "complete", "sample_cost_s", "outside_reads", "outside_copies",
               "outside_error"}``: ``samples`` are the agent's whole reads,
              ``focused_reads`` its reads of the changing code objects in
              between, ``outside_reads`` the parent's rounds of reads of
              the streams from /proc/PID/mem (about one a millisecond; 0
              where that memory cannot be read, ``outside_error`` says why)
              and ``outside_copies`` the changed streams they kept
              (``outside_stopped``: why they stopped early, past 32 MB)
``observers`` list of ``{"t", "kind", "detail"}``: the program turned on
              sys.settrace / sys.setprofile / sys.monitoring (these
              de-specialize what they watch).
``findings``  ranked list of ``{"kind", "site", "also", "score",
              "sentence"}``; kind is polymorphic | churning | missing |
              fell-back | never-specialized | instrumented; ``site`` is a site ``id``,
              ``also`` the ids of further sites of that kind on the same line.
``sites``     one entry per site that executed:
  ``id``                    "file:qualname:firstlineno:offset" (stable across
                            processes; joins with `quickening run`'s sites)
  ``file, function, firstlineno, offset, line, end_line, col, end_col,
  source``                  where it is (source = the expression's text)
  ``family``                base instruction, e.g. LOAD_ATTR
  ``form``                  live instruction at exit, e.g. LOAD_ATTR_SLOT (when
                            a tier-2 executor covers the site, the tier-1 form
                            it hides: the executor's get_opcode(); its cache
                            cells stay in the stream)
  ``executor_at_exit, executor_since_s``  an ENTER_EXECUTOR sits on the site
                            at exit / since when one was first seen there
                            (3.14+ with the JIT on: a trace starts here)
  ``state``                 specialized | generic | adaptive (3.11) |
                            instrumented
  ``verdict``               specialized | polymorphic | missing (specialized
                            but its guard failed >= 5 times since) |
                            fell-back | unspecialized | cold | instrumented
  ``counter``               ``{"raw", "value", "backoff"}`` at exit (3.11
                            specialized forms: value = misses left, backoff
                            null)
  ``classes``               classes whose type version the site cached, in
                            order of first sight
  ``targets``               distinct cache targets seen (class or function
                            names, or form + raw cache cells)
  ``specializations, retargets, fallbacks, failed_attempts``   counts seen
  ``misses``                ``{"at_least", "exact", "per_second"}``: guard misses
                            inferred from counter movement; ``exact`` is false
                            when a re-specialization fell between two samples
                            (then several may have happened: a lower bound)
  ``first_specialized_s``   time of the first specialized sample
  ``history``               ``[t, form, state, counter_value, backoff, target]``
                            per observed change
  ``events``                ``[t, kind, form, target, detail]``
``tier2``     per-loop tier 2 (3.14+ builds with the JIT switched on):
  ``state``                 ``{"built", "available", "enabled", "executors", "why"}``
                            as the watched process saw it (``sys._jit``)
  ``why_not``               null while tier 2 ran; else why not and how to
                            switch it on
  ``loops``                 one entry per back edge (JUMP_BACKWARD) that ran:
    ``id, file, function, offset``  the back edge (offset of JUMP_BACKWARD)
    ``line, end_line``      the loop's first and last line; ``source``
                            ``[[line, text]]`` of those lines
    ``form``                live form at exit: ENTER_EXECUTOR (it has an
                            executor), JUMP_BACKWARD_JIT (counting toward a
                            trace), JUMP_BACKWARD_NO_JIT, JUMP_BACKWARD
    ``counter, threshold``  the back edge's counter value at exit and its
                            fresh value (the trace is asked for at 0);
                            null while an executor sits there
    ``executors``           in order of appearance: ``{"index", "appeared_s",
                            "gone_s" (null: still there at exit), "valid"
                            (is_valid() at exit, or when it went),
                            "trace_length", "guards", "exits",
                            "jit_code_bytes", "uops": [[name, oparg, target,
                            tier-1 offset, line]] (the trace, then its exit
                            stubs), "by_line": [{"line", "source", "uops":
                            [[name, oparg, target]]}] (the trace only, in
                            order, one group per run of one line),
                            "exit_stubs": [[name, target, line]],
                            "tier1_form": the instruction it hides under
                            ENTER_EXECUTOR (get_opcode())}``; a micro-op of
                            a function the trace called has the call's line,
                            one after the trace returned from this code
                            object into its caller has none
  ``entries``               one entry per instruction, not a back edge, that a
                            trace started at (3.14+: the target of a side
                            exit whose guard kept failing; 3.15 also a hot
                            function's RESUME):
    ``id, file, function, offset, line, source``  as for loops (``source``:
                            ``[[line, text]]`` of the instruction's line)
    ``instruction``         its base instruction (e.g. LOAD_ATTR, RESUME,
                            LOAD_FAST_BORROW)
    ``starts_at``           "side exit" | "function entry" (RESUME)
    ``site``                the ``sites`` id when the instruction is a
                            specialization site, else null
    ``form``                the tier-1 form the last executor hides
    ``at_exit``             an executor sits there at exit
    ``executors``           as for loops
"""

import json
import os

from quickening import termtable
from quickening.lens.analyze import describe_site, short_name

SCHEMA = "quickening.lens/2"


def site_dict(r):
    f = r.final
    rate = None
    if r.misses and r.time_specialized > 0:
        rate = r.misses / r.time_specialized
    return {
        "id": r.key,
        "file": r.code["filename"],
        "function": r.code["qualname"],
        "firstlineno": r.code["firstlineno"],
        "offset": r.offset,
        "line": r.line, "end_line": r.endline, "col": r.col, "end_col": r.endcol,
        "source": r.source,
        "argrepr": r.argrepr,
        "family": r.family,
        "form": f.opname,
        "state": f.state,
        "executor_at_exit": r.executor_at_exit,
        "executor_since_s": r.executor_since,
        "verdict": r.verdict(),
        "counter": {"raw": f.raw, "value": f.value, "backoff": f.backoff},
        "classes": list(r.classes),
        "targets": [t if isinstance(t, str) else "%s %s" % (t[0], list(t[1]))
                    for t in r.targets],
        "specializations": r.specializations,
        "retargets": r.retargets,
        "fallbacks": r.fallbacks,
        "failed_attempts": r.failed_attempts,
        "misses": {"at_least": r.misses, "exact": r.misses_exact,
                   "per_second": rate},
        "first_specialized_s": r.first_specialized,
        "history": [[round(o.t, 6), o.opname, o.state, o.value, o.backoff,
                     o.target] for o in r.obs],
        "events": [[round(t, 6), k, form, tgt, d] for (t, k, form, tgt, d) in r.events],
    }


def to_json(report, argv=None, exit_status=None, wall=None):
    run = report.run
    info = report.info
    return {
        "schema": SCHEMA,
        "python": {"version": info["version"],
                   "executable": (run.hello or {}).get("executable"),
                   "supported": info["supported"]},
        "run": {"argv": argv, "exit_status": exit_status, "wall_s": wall,
                "duration_s": info["duration"],
                "interval_ms": info["interval_ms"],
                "samples": info["samples"], "focused_reads": info.get("focused_reads", 0), "code_objects": info["codes"],
               "code_objects_found": info.get("found"),
                "complete": info["complete"],
                "sample_cost_s": info["sample_cost"],
                "outside_reads": info.get("outside_reads", 0),
                "outside_copies": info.get("outside_copies", 0),
                "outside_error": info.get("outside_error"),
                "outside_stopped": info.get("outside_stopped")},
        "observers": [{"t": t, "kind": k, "detail": d}
                      for (t, k, d) in info["events"]
                      if k not in ("agent-error", "note")],
        "agent_errors": [d for (t, k, d) in info["events"] if k == "agent-error"],
        "notes": [d for (t, k, d) in info["events"] if k == "note"],
        "findings": [{"kind": f.kind, "site": f.site.key, "score": f.score,
                      "sentence": f.sentence,
                      "also": [o.key for o in f.also]} for f in report.findings],
        "sites": [site_dict(r) for r in report.sites],
        "tier2": report.tier2,
    }


def write_json(report, path, **kw):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(to_json(report, **kw), f, indent=1)


_COLOURS = {
    "missing": "dark_orange",
    "specialized": "green", "polymorphic": "yellow", "fell-back": "magenta",
    "unspecialized": "red", "cold": "dim", "instrumented": "cyan",
}

# The sites table; at a width too small for all of it, it gives up these columns
# first, in this order (where, site, form and re-targetings stay: which site, and
# what it did), then wraps the site's text and the classes
SITE_COLUMNS = ("where", "site", "form at exit", "classes", "re-tgt", "falls", "misses≥",
                "counter")
SITE_DROP_ORDER = ("counter", "falls", "classes", "misses≥")
SITE_FLOORS = {"where": 12, "site": 20, "form at exit": None, "classes": 12,
               "re-tgt": None, "falls": None, "misses≥": None, "counter": None}
_SGR_COLOURS = {"missing": "orange", "specialized": "green", "polymorphic": "yellow",
                "fell-back": "magenta", "unspecialized": "red", "cold": "dim",
                "instrumented": "cyan"}

_OBSERVER_TEXT = {
    "sys.settrace": "the program called sys.settrace: a tracer de-specializes "
                    "the first instruction of each line it traces (3.11: "
                    "nothing specializes while tracing)",
    "sys.setprofile": "the program called sys.setprofile (or a profiler "
                      "did): calls are instrumented and stop specializing",
    "sys._settraceallthreads": "the program set a tracer on all threads",
    "sys._setprofileallthreads": "the program set a profiler on all threads",
    "sys.monitoring.register_callback": "the program registered a "
                                        "sys.monitoring callback",
    "sys.monitoring": "sys.monitoring events were on",
}


def observer_lines(report, kinds=False):
    out = []
    seen = set()
    for t, kind, detail in report.info["events"]:
        if kind == "agent-error":
            out.append(("error", "the lens agent stopped sampling at %.3f s: %s"
                        % (t, detail)))
            continue
        if kind == "note":
            out.append(("note", detail))
            continue
        text = _OBSERVER_TEXT.get(kind, kind)
        if detail:
            text += " (%s)" % detail
        if text in seen:
            continue
        seen.add(text)
        out.append(("observer", "%s at %.3f s; sites it watched may show "
                    "de-specialized or INSTRUMENTED forms" % (text, t)))
    return out if kinds else [line for _, line in out]


def _colour(console):
    """Colour in the tables as in the rest of the report: on a terminal, unless
    NO_COLOR (the console has no colour system then)."""
    return termtable.colour_for(console.file) and console.color_system is not None


def _render_sites(report, console, all_sites=False, max_findings=15,
                    argv=None, exit_status=None):
    from rich.text import Text

    info = report.info
    head = Text()
    head.append("quickening watch", style="bold")
    head.append(" — CPython %s" % info["version"])
    if argv:
        head.append(" — %s" % " ".join(argv)[:80])
    console.print(head)
    cost = info["sample_cost"]
    line = ("%d samples every %g ms over %.3f s, %d code objects ran"
            % (info["samples"], info["interval_ms"] or 0, info["duration"],
               info["codes"]))
    if info.get("found"):
        line += " (of %d found)" % info["found"]
    if info.get("focused_reads"):
        line += ", %d reads of the changing ones between samples" % info["focused_reads"]
    if info.get("outside_reads"):
        line += (", %d rounds of reads from outside the process (%d changes kept)"
                 % (info["outside_reads"], info.get("outside_copies", 0)))
    if cost is not None:
        line += ", %.1f ms spent sampling" % (cost * 1000)
    if exit_status is not None:
        line += ", exit status %d" % exit_status
    console.print(line, style="dim")
    if info.get("outside_stopped"):
        console.print("note: reads from outside the process %s; the agent's samples "
                      "go on to the end" % info["outside_stopped"], style="yellow")
    if info.get("outside_error"):
        console.print("note: %s: only the agent's own samples were used"
                      % info["outside_error"], style="yellow")
    if info["samples"] < 5 and report.sites and not info.get("outside_reads"):
        console.print("note: only %d samples: re-targetings between samples are "
                      "invisible; use a smaller --interval or a longer run"
                      % info["samples"], style="yellow")
    if not info["supported"]:
        console.print("warning: the lens knows CPython 3.11 to 3.15; "
                      "this is %s, so forms may be misread" % info["version"],
                      style="bold red")
    if not info["complete"]:
        console.print("note: the lens's record stream ended early (the program "
                      "called os._exit, crashed, or closed the lens's file): "
                      "the last sample is from before the end", style="yellow")
    for kind, obs in observer_lines(report, kinds=True):
        if kind == "note":
            console.print("note: " + obs, style="yellow")
        else:
            console.print("warning: " + obs, style="bold red")

    if not report.sites:
        console.print("No site of the program's own code ran long enough to "
                      "be seen (code from the standard library and "
                      "site-packages is left out unless --all-code; a run "
                      "shorter than one --interval is only seen at exit).",
                      style="yellow")
        return
    counts = {}
    for r in report.sites:
        v = r.verdict()
        counts[v] = counts.get(v, 0) + 1
    summary = Text("%d sites executed: " % len(report.sites))
    first = True
    for v in ("specialized", "polymorphic", "missing", "fell-back",
              "unspecialized", "instrumented", "cold"):
        if counts.get(v):
            if not first:
                summary.append(", ")
            summary.append("%d %s" % (counts[v], v), style=_COLOURS[v])
            first = False
    console.print(summary)

    if report.findings:
        console.print()
        console.print("What to look at", style="bold underline")
        for i, f in enumerate(report.findings[:max_findings], 1):
            t = Text("%2d. " % i)
            t.append("[%s] " % f.kind, style=_COLOURS.get(f.site.verdict(), ""))
            t.append(f.sentence)
            console.print(t)
        more = len(report.findings) - max_findings
        if more > 0:
            console.print("    ... and %d more (see --json / --html)" % more,
                          style="dim")
    else:
        console.print("Nothing stands out: every hot site specialized and "
                      "stayed on one target.", style="green")

    flagged = set(id(f.site) for f in report.findings)
    flagged.update(id(o) for f in report.findings for o in f.also)
    rows = [r for r in report.sites
            if all_sites or id(r) in flagged or r.retargets]
    if not rows:
        return
    console.print()
    console.print("Sites with something to say (--all-sites for all %d)" % len(report.sites)
                  if not all_sites else "Every executed site", style="bold")
    rows.sort(key=lambda r: (r.code["filename"], r.line or 0, r.col or 0))
    cells, styles = [], []
    for r in rows:
        f = r.final
        counter = "%d" % f.value if f.backoff is None else "%d/b%d" % (f.value, f.backoff)
        misses = format(r.misses, ",") if r.misses else ""
        if r.misses and not r.misses_exact:
            misses += "*"
        fn = r.code["qualname"]
        site = (fn + ": " if fn != "<module>" else "") + (r.source or r.argrepr or r.family)
        cells.append(["%s:%s" % (os.path.basename(r.code["filename"]), r.line), site,
                      f.opname, ", ".join(short_name(c) for c in r.classes),
                      str(r.retargets) if r.retargets else "",
                      str(r.fallbacks) if r.fallbacks else "", misses, counter])
        styles.append({"form at exit": _SGR_COLOURS.get(r.verdict(), "")})
    out = console.file
    for line in termtable.render(list(SITE_COLUMNS), cells, width=termtable.width_for(out),
                                 drop_order=SITE_DROP_ORDER, floors=SITE_FLOORS,
                                 right=("re-tgt", "falls", "misses≥", "counter"),
                                 colour=_colour(console), styles=styles):
        out.write(line + "\n")
    out.flush()
    if any(r.misses and not r.misses_exact for r in rows):
        console.print("* a lower bound: a re-specialization fell between two "
                      "samples, so more may have happened; CPython does not "
                      "count hits, so this is not a miss *rate*. Sample more "
                      "often (--interval) to tighten it.", style="dim")


def render_terminal(report, console, *args, **kw):
    """The terminal report: the sites, then tier 2 per loop."""
    _render_sites(report, console, *args, **kw)
    render_tier2(report, console)


def _render_executors(console, head, execs):
    """One line per executor of a loop or entry, then the last one's trace
    grouped under its source lines."""
    for e in execs:
        if e["gone_s"] is None:
            fate = "still there at exit, %s" % ("valid" if e["valid"] else "invalid")
        else:
            fate = ("gone at %.3f s (no longer valid: invalidated by a change it "
                    "depended on, or thrown away as cold)" % e["gone_s"])
        console.print("  %s — executor #%d at %.3f s: %d micro-ops, %d guards, "
                      "%d exits; %s" % (head, e["index"], e["appeared_s"],
                                         e["trace_length"], e["guards"], e["exits"], fate))
    last = execs[-1]
    by_line = [[str(g["line"]), g["source"], " ".join(u[0] for u in g["uops"])]
               for g in last["by_line"] if g["line"] is not None]
    if by_line:
        out = console.file
        for line in termtable.render(["line", "source", "micro-ops"], by_line,
                                     width=termtable.width_for(out), indent="      ",
                                     right=("line",), floors={"source": 16, "micro-ops": 20},
                                     colour=_colour(console)):
            out.write(line + "\n")
        out.flush()


def _where(x):
    where = "%s:%s" % (os.path.basename(x["file"]), x["line"])
    fn = x["function"]
    return "%s %s" % (where, "in %s()" % fn if fn != "<module>" else "at module level")


def render_tier2(report, console, max_loops=8, max_entries=8):
    t2 = report.tier2 or {}
    loops = t2.get("loops") or []
    entries = t2.get("entries") or []
    console.print()
    if t2.get("why_not"):
        console.print("Tier 2: not running — " + t2["why_not"], style="dim")
        return
    made = [l for l in loops if l["executors"]]
    console.print("Tier 2 (JIT on): %d loop(s) ran, %d got an executor"
                  % (len(loops), len(made)), style="bold underline")
    for l in loops[:max_loops]:
        head = _where(l)
        if not l["executors"]:
            prog = ""
            if l["counter"] is not None and l["threshold"]:
                done = l["threshold"] - l["counter"]
                prog = ": back edge counter %d of %d toward a trace" % (
                    max(done, 0), l["threshold"])
            console.print("  %s — no executor (%s%s)" % (head, l["form"], prog))
            continue
        _render_executors(console, head, l["executors"])
    if len(loops) > max_loops:
        console.print("  ... and %d more loops (see --json / --html)" % (len(loops) - max_loops),
                      style="dim")
    if not entries:
        return
    console.print("Tier 2 traces that start elsewhere than a back edge: %d instruction(s)"
                  % len(entries), style="bold underline")
    for x in entries[:max_entries]:
        what = ("a function's entry" if x["starts_at"] == "function entry"
                else "a side exit's target")
        head = "%s — %s (%s, tier-1 form %s)" % (_where(x), x["instruction"], what,
                                                 x["form"] or "unknown")
        console.print("  %s" % head)
        _render_executors(console, "  " + x["instruction"], x["executors"])
    if len(entries) > max_entries:
        console.print("  ... and %d more (see --json / --html)" % (len(entries) - max_entries),
                      style="dim")


__all__ = ["to_json", "write_json", "render_terminal", "site_dict",
           "describe_site", "SCHEMA", "render_tier2"]
