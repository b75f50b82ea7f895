"""`experiment specialize`: what each of the one-line operations becomes.

For every interpreter named with ``--python`` (default: the running one) a
child process runs each snippet's function ``--calls`` times (500) and reads
its live instructions with ``dis.get_instructions(fn, adaptive=True)``; the
form before any call is what the compiler emitted.  Nothing is looked up in a
stored table: the answer is whatever that interpreter does.
"""

import sys

from quickening.measure import snippets, text
from quickening.measure.runner import readable_python, resolve_python, run_json_child

NAME = "specialize"
SUMMARY = "what sixteen one-line operations become after warm-up, per interpreter"


def add_arguments(p):
    p.add_argument("--python", action="append", default=[], metavar="PATH",
                   help="interpreter to ask (repeatable; default: the running one)")
    p.add_argument("--calls", type=int, default=500, help="calls before reading (500)")


def probe(python: str, calls: int, chosen=None, checkpoints=None) -> dict:
    chosen = chosen or snippets.SNIPPETS
    spec = {"snippets": [s.as_dict() for s in chosen],
            "checkpoints": checkpoints if checkpoints is not None else [0, calls]}
    return run_json_child(python, "qk_sites_child.py", spec, timeout=300)


def site_at(sites, offset):
    for s in sites:
        if s["offset"] == offset:
            return s
    return None


def first_site(sites, bases):
    for want in bases:
        for s in sites:
            if s["base"] == want:
                return s
    return None


def summarize(result: dict, snippet: snippets.Snippet) -> dict:
    """Focus and companion sites: compiled form, form after the calls."""
    before = result["snapshots"][0]["sites"]
    after = result["snapshots"][-1]["sites"]
    rows = []
    focus = site_at(after, result["focus_offset"]) if result["focus_offset"] is not None else None
    if focus:
        rows.append({"role": snippet.label, "offset": focus["offset"], "base": focus["base"],
                     "before": site_at(before, focus["offset"])["live"], "after": focus["live"],
                     "counter": focus["counter"]})
    for role, bases in snippet.also:
        s = first_site([x for x in after if not focus or x["offset"] != focus["offset"]], bases)
        if s:
            rows.append({"role": role, "offset": s["offset"], "base": s["base"],
                         "before": site_at(before, s["offset"])["live"], "after": s["live"],
                         "counter": s["counter"]})
    return {"key": snippet.key, "sites": rows}


def validate(opts):
    if opts.calls < 1:
        raise ValueError("--calls must be at least 1")
    for p in opts.python or [sys.executable]:
        readable_python(p)


def run(opts, record, progress):
    pythons = [resolve_python(p) for p in (opts.python or [sys.executable])]
    record["params"].update(calls=opts.calls, pythons=pythons,
                            snippets=[s.as_dict() for s in snippets.SNIPPETS])
    record["interpreters"] = []
    for python in pythons:
        progress.starting(python)
        data = probe(python, opts.calls)
        summary = [summarize(res, snippets.BY_KEY[res["key"]]) for res in data["results"]]
        record["interpreters"].append({"python": python, "interpreter": data["interpreter"],
                                       "families": data["families"], "raw": data["results"],
                                       "summary": summary})
        progress.finished(python, data["interpreter"]["version"])
    return record


def _cell(site, show_base):
    if site is None:
        return "-"
    return f"{site['base']}: {site['after']}" if show_base else site["after"]


def grid_rows(record):
    """[(snippet, role, [site or None per interpreter])], rows aligned by role."""
    interps = record["interpreters"]
    out = []
    for snip in snippets.SNIPPETS:
        per = []
        for i in interps:
            s = next((x for x in i["summary"] if x["key"] == snip.key), None)
            per.append({site["role"]: site for site in (s["sites"] if s else [])})
        roles = [snip.label] + [role for role, _ in snip.also]
        for role in roles:
            sites = [p.get(role) for p in per]
            if any(sites):
                out.append((snip, role, sites))
    return out


def render_text(record) -> str:
    interps = record["interpreters"]
    versions = [i["interpreter"]["version"] for i in interps]
    lines = [f"experiment specialize — each one-line operation called "
             f"{record['params']['calls']} times, then read with "
             "dis.get_instructions(adaptive=True) in that interpreter", ""]
    rows = [("operation", "statement", "compiled as", *versions)]
    for snip, role, sites in grid_rows(record):
        bases = sorted({s["base"] for s in sites if s})
        first = role == snip.label
        rows.append((role if first else "  + " + role, snip.stmt if first else "",
                     " / ".join(bases), *[_cell(s, len(bases) > 1) for s in sites]))
    # too narrow: "compiled as" goes first (each form names its base), then the
    # operation and statement wrap before the forms do
    lines += text.table(rows, drop_order=("compiled as",),
                        floors={"operation": 12, "statement": 10, "compiled as": None,
                                **{v: 16 for v in versions}})
    lines.append("")
    for i in interps:
        lines.append(f"  {i['interpreter']['version']}: {i['python']}")
    return "\n".join(lines)


def figure(record, plt):
    interps = record["interpreters"]
    versions = [i["interpreter"]["version"] for i in interps]
    grid = []
    for snip, role, sites in grid_rows(record):
        label = f"{snip.label}  ({snip.stmt})" if role == snip.label else "    + " + role
        grid.append((label, sites))
    first = 1.0            # column 0 holds what the compiler emitted
    fig, ax = plt.subplots(figsize=(5.5 + 3.3 * len(versions), 0.42 * len(grid) + 1.6))
    for row, (label, sites) in enumerate(grid):
        y = len(grid) - 1 - row
        bases = " / ".join(sorted({s["base"] for s in sites if s}))
        ax.text(0.49, y + 0.45, bases, ha="center", va="center", fontsize=7.5,
                family="monospace", color="#555555")
        for col, s in enumerate(sites):
            x = first + col
            if s is None:
                ax.text(x + 0.49, y + 0.45, "(no such site)", ha="center", va="center",
                        fontsize=7, color="#999999")
                continue
            specialized = s["after"] != s["base"] and not s["after"].endswith("_ADAPTIVE")
            ax.add_patch(plt.Rectangle((x, y), 0.98, 0.9,
                                       color="#b7e4b0" if specialized else "#e6e6e6"))
            ax.text(x + 0.49, y + 0.45, s["after"], ha="center", va="center", fontsize=7.5,
                    family="monospace")
        ax.text(-0.05, y + 0.45, label, ha="right", va="center", fontsize=8.5)
    ax.set_xlim(-0.02, first + len(versions))
    ax.set_ylim(0, len(grid))
    ax.text(0.49, len(grid) + 0.1, "compiled as", ha="center", va="bottom", fontsize=10,
            color="#555555")
    for col, v in enumerate(versions):
        ax.text(first + col + 0.49, len(grid) + 0.1, f"CPython {v}", ha="center", va="bottom",
                fontsize=10, weight="bold")
    ax.axis("off")
    ax.set_title(f"What each operation became after {record['params']['calls']} calls, read "
                 "with dis(adaptive=True) (green: specialized; grey: generic or adaptive form)",
                 fontsize=10.5, pad=22)
    fig.tight_layout()
    return fig


def headlines(record) -> dict:
    out = {}
    versions = [i["interpreter"]["version"] for i in record["interpreters"]]
    for snip, role, sites in grid_rows(record):
        for version, site in zip(versions, sites):
            key = f"{version} {snip.label}" + ("" if role == snip.label else f" / {role}")
            out[key] = None if site is None else site["after"]
    return out
