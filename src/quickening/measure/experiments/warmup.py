"""`experiment warmup`: the execution at which each snippet's site changes form.

The one-line operations of `experiment specialize` are executed one
at a time in a child process of each interpreter named with ``--python``;
after every execution each site's live form and counter are read.  The
report gives, per operation, the execution after which its main site first
showed a different form, and the forms it went through.  This uses the same
machinery as `quickening warmup` (``quickening.lens.warmup.trace_warmup``)
when it is installed, and otherwise a small probe of the same kind
(``dis.get_instructions(adaptive=True)`` plus the first cache word of
``code._co_code_adaptive`` after each execution).
"""

import sys

from quickening.measure import snippets, text
from quickening.measure.runner import readable_python, resolve_python, run_json_child

NAME = "warmup"
SUMMARY = "the execution at which each of the sixteen sites changes form"


def add_arguments(p):
    p.add_argument("--python", action="append", default=[], metavar="PATH",
                   help="interpreter to trace (repeatable; default: the running one)")
    p.add_argument("--executions", type=int, default=10,
                   help="executions to follow (10; 3.11 needs 8 before it quickens)")
    p.add_argument("--probe-only", action="store_true",
                   help="use only the experiment's own probe, not `quickening warmup`'s tracer")


# ---------------------------------------------------------------- tracing

SITE_FUNCTION = "_qk_site"


def lens_tracer():
    """`quickening warmup`'s tracer, or None where the lens is not installed."""
    try:
        from quickening.lens.warmup import trace_warmup
    except ImportError:
        return None
    return trace_warmup


def trace_with_lens(trace_warmup, python, snippet, executions):
    """Per-execution snapshots of the snippet's function, taken by the lens.

    The lens executes `stmt` as module-level code; to get the same function
    the probe uses (so LOAD_GLOBAL, not LOAD_NAME), the function is defined
    in the setup and the statement calls it once per execution.
    """
    setup = f"{snippet.setup}\n\ndef {SITE_FUNCTION}():\n    return {snippet.stmt}\n"
    result = trace_warmup(python, f"{SITE_FUNCTION}()", setup=setup, executions=executions)
    shots = []
    for n, sites in enumerate(result, start=1):
        rows = [{"offset": s["offset"], "base": s["family"], "live": s["opname"],
                 "counter": s.get("counter_raw")}
                for s in sites if s.get("code") == SITE_FUNCTION]
        shots.append({"calls": n, "sites": rows})
    return shots


def trace_with_probe(python, chosen, executions):
    spec = {"snippets": [s.as_dict() for s in chosen],
            "checkpoints": list(range(0, executions + 1))}
    data = run_json_child(python, "qk_sites_child.py", spec, timeout=300)
    return data["interpreter"], {r["key"]: r["snapshots"] for r in data["results"]}


def focus_offset(shots, snippet):
    for want in snippet.focus:
        for shot in shots[:1]:
            hits = sorted(s["offset"] for s in shot["sites"] if s["base"] == want)
            if hits:
                return hits[0]
    return None


def history(shots, offset):
    """[(execution, form, counter)] of one site, one entry per snapshot."""
    out = []
    for shot in shots:
        site = next((s for s in shot["sites"] if s["offset"] == offset), None)
        if site is not None:
            out.append((shot["calls"], site["live"], site["counter"]))
    return out


def changes(hist):
    """[(execution, from form, to form)] where the form differs from the previous one."""
    out = []
    for (_, f0, _), (n1, f1, _) in zip(hist, hist[1:]):
        if f1 != f0:
            out.append((n1, f0, f1))
    return out


def validate(opts):
    if opts.executions < 1:
        raise ValueError("--executions must be at least 1")
    for p in opts.python or [sys.executable]:
        readable_python(p)


def run(opts, record, progress):
    pythons = [resolve_python(p) for p in (opts.python or [sys.executable])]
    record["params"].update(executions=opts.executions, pythons=pythons,
                            snippets=[s.as_dict() for s in snippets.SNIPPETS])
    record["interpreters"] = []
    for python in pythons:
        progress.starting(python)
        info, probe = trace_with_probe(python, snippets.SNIPPETS, opts.executions)
        traces, machinery, lens_error = probe, "probe", None
        tracer = None if opts.probe_only else lens_tracer()
        if tracer is not None:
            try:
                lens = {s.key: trace_with_lens(tracer, python, s, opts.executions)
                        for s in snippets.SNIPPETS}
                # the lens has no "before any execution" snapshot: take the probe's
                traces = {k: probe[k][:1] + v for k, v in lens.items()}
                machinery = "quickening warmup (quickening.lens.warmup)"
            except Exception as exc:  # say so, and fall back to the probe
                lens_error = f"{type(exc).__name__}: {exc}"
        sites, disagreements = [], []
        for snip in snippets.SNIPPETS:
            shots = traces[snip.key]
            off = focus_offset(shots, snip)
            hist = history(shots, off) if off is not None else []
            sites.append({"key": snip.key, "offset": off, "history": hist,
                          "changes": changes(hist), "snapshots": shots})
            if traces is not probe:      # two independent readings must agree
                p_off = focus_offset(probe[snip.key], snip)
                p_hist = history(probe[snip.key], p_off) if p_off is not None else []
                if len(hist) == 1:
                    # not a specialization site on this version (3.14's
                    # GET_ITER): the lens has nothing to say, the probe must
                    # show it never changing
                    if changes(p_hist):
                        disagreements.append(snip.key)
                elif [h[:2] for h in p_hist] != [h[:2] for h in hist]:
                    disagreements.append(snip.key)
        record["interpreters"].append({"python": python, "interpreter": info,
                                       "machinery": machinery, "lens_error": lens_error,
                                       "probe_disagrees": disagreements, "sites": sites})
        progress.finished(python, info["version"])
    return record


# ---------------------------------------------------------------- output

def _forms(hist):
    out = []
    for _, form, _ in hist:
        if not out or out[-1] != form:
            out.append(form)
    return " → ".join(out)


def _counter_text(raw, version_info):
    """The first cache word: 3.12-3.14 pack value<<4 | backoff, 3.15 packs
    value<<3 | backoff (13 + 3 bits); 3.11's specialized forms hold a plain
    miss budget."""
    if tuple(version_info[:2]) >= (3, 12):
        bits = 3 if tuple(version_info[:2]) >= (3, 15) else 4
        return f"0x{raw:04x} (value {raw >> bits}, backoff {raw & ((1 << bits) - 1)})"
    return f"{raw} (miss budget)"


def render_text(record) -> str:
    n = record["params"]["executions"]
    lines = [f"experiment warmup — each operation executed {n} times, one at a time; after "
             "each execution every site's live form is read"]
    for interp in record["interpreters"]:
        info = interp["interpreter"]
        lines += ["", f"CPython {info['version']} ({interp['python']}), via {interp['machinery']}"]
        if interp.get("lens_error"):
            lines.append(f"  (quickening warmup's tracer failed: {interp['lens_error']}; "
                         "the probe's reading is shown)")
        elif interp.get("machinery", "").startswith("quickening warmup"):
            bad = interp.get("probe_disagrees") or []
            lines.append("  cross-check: the experiment's own dis-based probe "
                         + ("agrees on every site" if not bad else
                            "DISAGREES on " + ", ".join(bad)))
        rows = [("operation", "statement", "first change after execution", "forms",
                 "counter word then")]
        for site in interp["sites"]:
            snip = snippets.BY_KEY[site["key"]]
            first = site["changes"][0][0] if site["changes"] else f"none in {n}"
            counter = ""
            if site["changes"]:
                at = next((h for h in site["history"] if h[0] == first), None)
                if at and at[2] is not None:
                    counter = _counter_text(at[2], info["version_info"])
            rows.append((snip.label, snip.stmt, first, _forms(site["history"]), counter))
        # too narrow for the forms at 26: the counter word goes first
        lines += text.table(rows, drop_order=("counter word then",),
                            floors={"operation": 12, "statement": 10, "forms": 26,
                                    "counter word then": 14})
    return "\n".join(lines)


def _kind(form, base):
    if form == base:
        return 0
    if form.endswith("_ADAPTIVE") or form.endswith("_QUICK"):
        return 1
    return 2


def figure(record, plt):
    interps = record["interpreters"]
    n = record["params"]["executions"]
    colors = ["#e6e6e6", "#ffe08a", "#b7e4b0"]
    fig, axes = plt.subplots(len(interps), 1, figsize=(11, 0.36 * len(snippets.SNIPPETS) * len(interps) + 1.2),
                             squeeze=False)
    for ax, interp in zip(axes[:, 0], interps):
        rows = interp["sites"]
        for r, site in enumerate(rows):
            y = len(rows) - 1 - r
            hist = site["history"]
            base = hist[0][1] if hist else ""
            prev = None
            for execution, form, _counter in hist:
                ax.add_patch(plt.Rectangle((execution, y), 0.97, 0.85,
                                           color=colors[_kind(form, base)]))
                if form != prev:
                    short = form if execution == 0 else form.replace(base + "_", "…_", 1)
                    ax.text(execution + 0.05, y + 0.42, short, va="center", ha="left",
                            fontsize=6.5, family="monospace", clip_on=False)
                prev = form
            snip = snippets.BY_KEY[site["key"]]
            ax.text(-0.1, y + 0.42, f"{snip.label} ({snip.stmt})", ha="right", va="center",
                    fontsize=8)
        ax.set_xlim(0, n + 1)
        ax.set_ylim(0, len(rows))
        ax.set_yticks([])
        ax.set_xticks([i + 0.5 for i in range(n + 1)])
        ax.set_xticklabels(["before"] + [str(i) for i in range(1, n + 1)], fontsize=8)
        ax.set_xlabel("after execution")
        for side in ("top", "right", "left"):
            ax.spines[side].set_visible(False)
        ax.set_title(f"CPython {interp['interpreter']['version']}: form of each operation's "
                     "site after each execution (grey generic, yellow adaptive/quick, "
                     "green specialized)", fontsize=9.5)
    fig.tight_layout()
    return fig


def headlines(record) -> dict:
    out = {}
    for interp in record["interpreters"]:
        version = interp["interpreter"]["version"]
        for site in interp["sites"]:
            label = snippets.BY_KEY[site["key"]].label
            first = site["changes"][0] if site["changes"] else None
            out[f"{version} {label}"] = (f"after execution {first[0]}: {first[2]}"
                                         if first else "no change")
    return out
