"""`experiment polymorphism`: the cost of one `o.x` site fed 1 to 5 classes.

One attribute site reads `o.x` from objects of k identically declared classes
(k = 1 is the monomorphic site), built round-robin, in two shapes: a tight
loop (``t = o.x`` per object) and a function call per access
(``t = get_x(o)``).  A baseline per shape runs the same loop without the
attribute load.  Every configuration runs in its own fresh process, all of
them interleaved round by round; each run keeps the best of REPEATS timings.
Reported per k: time per access as a range over runs, the ratio of the
fastest run to the fastest monomorphic run, the range of per-round ratios,
and whether the ranges overlap.  "Load alone" subtracts the baseline.
"""

import sys

from quickening.measure import engine, stats, text
from quickening.measure.corpus import LOOPS_DIR
from quickening.measure.engine import Config, Group
from quickening.measure.machine import busy_note, fmt_load
from quickening.measure.runner import Side, readable_python, resolve_python

NAME = "polymorphism"
SUMMARY = "time per access of one o.x site fed 1..5 classes, loop and call shapes"
VARIANTS = {"loop": "tight loop (t = o.x)", "call": "function call per access (t = get_x(o))"}
MAX_CLASSES = 5


def add_arguments(p):
    p.add_argument("--python", action="append", default=[], metavar="PATH",
                   help="interpreter to measure (repeatable; default: the running one)")
    p.add_argument("-M", "--repeats", type=int, default=6, help="repeats per run, best kept (6)")
    p.add_argument("-N", "--rounds", type=int, default=11, help="interleaved rounds (11)")
    p.add_argument("--objects", type=int, default=1000, help="objects per pass (1000)")
    p.add_argument("--passes", type=int, default=200, help="passes per timed repeat (200)")
    p.add_argument("--max-classes", type=int, default=MAX_CLASSES, help="largest k (5)")
    p.add_argument("--variant", choices=sorted(VARIANTS), action="append", default=[],
                   help="only this shape (repeatable; default both)")


def config_label(k: int) -> str:
    return "baseline" if k == 0 else f"k={k}"


def build_groups(pythons, opts) -> list:
    groups = []
    variants = opts.variant or list(VARIANTS)
    per = opts.objects * opts.passes
    for python in pythons:
        side = Side("-", python)
        for variant in variants:
            configs = []
            for k in range(0, opts.max_classes + 1):
                spec = {"path": str(LOOPS_DIR / "_polymorphism.py"), "mode": "call",
                        "module_name": "qk_polymorphism",
                        "setup": f"_run = make({k}, {variant!r}, {opts.objects}, {opts.passes})",
                        "call": "_run()"}
                configs.append(Config(config_label(k), side, spec, per=per))
            groups.append(Group(f"{python}|{variant}", configs))
    return groups


def total_steps(opts):
    return (len(opts.python or [1]) * len(opts.variant or VARIANTS)
            * (opts.max_classes + 1) * opts.rounds)


def summarize_group(group: Group) -> dict:
    mono = group.bests("k=1")
    base = group.bests("baseline")
    rows = []
    base_best = min(base) if base else None
    for cfg in group.configs:
        vals = group.bests(cfg.label)
        v = stats.judge(mono, vals)
        sp = stats.spread(vals)
        row = {"config": cfg.label, "runs": vals,
               "spread": None if sp is None else vars(sp),
               "ratio": v.ratio, "pair_ratios": list(v.pair_ratios),
               "verdict": v.verdict if cfg.label not in ("k=1", "baseline") else ""}
        if base_best is not None and cfg.label not in ("baseline",) and vals and mono:
            load = min(vals) - base_best
            load_mono = min(mono) - base_best
            row["load_alone"] = load
            row["load_ratio"] = load / load_mono if load_mono > 0 else None
        rows.append(row)
    python, variant = group.name.split("|", 1)
    return {"python": python, "variant": variant, "status": group.status, "rows": rows}


def validate(opts):
    if min(opts.repeats, opts.rounds, opts.objects, opts.passes, opts.max_classes) < 1:
        raise ValueError("--repeats, --rounds, --objects, --passes, --max-classes must be >= 1")
    for p in opts.python or [sys.executable]:
        readable_python(p)


def run(opts, record, progress):
    pythons = [resolve_python(p) for p in (opts.python or [sys.executable])]
    record["params"].update(repeats=opts.repeats, rounds=opts.rounds, objects=opts.objects,
                            passes=opts.passes, max_classes=opts.max_classes,
                            variants=opts.variant or list(VARIANTS), pythons=pythons,
                            unit="seconds per attribute access (per loop iteration)")
    groups = build_groups(pythons, opts)
    interps = engine.run_interleaved(groups, rounds=opts.rounds, repeats=opts.repeats,
                                     env_keys=["PYTHON_JIT"], progress=progress,
                                     check_outputs=False)
    if interps.pop("__interrupted__", False):
        record["interrupted"] = True
    record["interpreters"] = {}
    for key, info in interps.items():
        record["interpreters"].setdefault(key.split("|", 1)[0], info)
    record["runs"] = [r for g in groups for r in g.runs]
    record["summary"] = {"groups": [summarize_group(g) for g in groups]}
    return record


def _ns(x):
    return "-" if x is None else f"{x * 1e9:.2f}"


def _ratio_range(vals):
    return "-" if not vals else f"{min(vals):.2f}–{max(vals):.2f}×"


def render_text(record) -> str:
    p = record["params"]
    lines = [f"experiment polymorphism — one o.x site, objects of k identically declared "
             f"classes round-robin; {text.plural(p['rounds'], 'interleaved round')}, each configuration a "
             f"fresh process keeping the best of {p['repeats']} "
             f"({p['objects']} objects × {p['passes']} passes per repeat)"]
    for g in record["summary"]["groups"]:
        info = record["interpreters"].get(g["python"]) or {}
        lines += ["", f"CPython {info.get('version', '?')} ({g['python']}) — "
                      f"{VARIANTS.get(g['variant'], g['variant'])}"]
        if g["status"] != "ok":
            lines.append(f"  {g['status']}")
        rows = [("classes", "ns per access (range)", "fastest vs k=1", "per-round ratio",
                 "load alone vs k=1", "verdict vs k=1")]
        for r in g["rows"]:
            sp = r["spread"]
            rng = "-" if not sp else f"{_ns(sp['lo'])}–{_ns(sp['hi'])}"
            ratio = "" if r["config"] in ("baseline", "k=1") or r["ratio"] is None \
                else f"{r['ratio']:.2f}×"
            pr = "" if r["config"] in ("baseline", "k=1") else _ratio_range(r["pair_ratios"])
            la = "" if r.get("load_ratio") is None or r["config"] == "k=1" \
                else f"{r['load_ratio']:.1f}×"
            verdict = r["verdict"].replace("B slower", "slower").replace("B faster", "faster")
            label = "baseline (no o.x)" if r["config"] == "baseline" else r["config"]
            rows.append((label, rng, ratio, pr, la, verdict))
        lines += text.table(rows)
    m = record["machine"]
    if record.get("interrupted"):
        lines += ["", "  interrupted: the ranges cover only the runs finished before Ctrl-C"]
    busy = busy_note(record)
    if busy:
        lines += ["", f"  note: {busy}"]
    end = (record.get("machine_end") or {}).get("load_average")
    lines += ["", f"  machine: {m['cpu_model']}, {m['cores']} cores, load "
                  f"{fmt_load(m['load_average'])} at start, {fmt_load(end)} at end; {m['date']}"]
    return "\n".join(lines)


def figure(record, plt):
    groups = record["summary"]["groups"]
    variants = list(dict.fromkeys(g["variant"] for g in groups))
    pythons = list(dict.fromkeys(g["python"] for g in groups))
    colors = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e"]
    fig, axes = plt.subplots(1, len(variants), figsize=(5.2 * len(variants), 4.6), squeeze=False)
    for ax, variant in zip(axes[0], variants):
        for pi, python in enumerate(pythons):
            g = next((x for x in groups if x["python"] == python and x["variant"] == variant), None)
            if g is None:
                continue
            info = record["interpreters"].get(python) or {}
            color = colors[pi % len(colors)]
            xs, best = [], []
            offset = (pi - (len(pythons) - 1) / 2) * 0.16
            for r in g["rows"]:
                if r["config"] == "baseline":
                    if r["runs"]:
                        ax.axhline(min(r["runs"]) * 1e9, color=color, lw=1, ls="--", alpha=0.8)
                    continue
                k = int(r["config"].split("=")[1])
                if not r["runs"]:
                    continue
                vals = [v * 1e9 for v in r["runs"]]
                ax.plot([k + offset] * 2, [min(vals), max(vals)], color=color, lw=5, alpha=0.35)
                ax.plot([k + offset] * len(vals), vals, "o", color=color, ms=3)
                xs.append(k + offset)
                best.append(min(vals))
                if k > 1 and r["ratio"]:
                    ax.annotate(f"{r['ratio']:.2f}×", (k + offset, min(vals)),
                                textcoords="offset points", xytext=(0, -11 - 9 * pi), ha="center",
                                fontsize=6.5, color=color, weight="bold")
            ax.plot(xs, best, "-", color=color, lw=1,
                    label=f"CPython {info.get('version', '?')} (fastest runs)")
        ax.set_xticks(range(1, record["params"]["max_classes"] + 1))
        ax.set_xlabel("number of classes through the site (1 = monomorphic)")
        ax.set_ylabel("ns per access (each dot a run)")
        ax.set_ylim(bottom=0)
        ax.set_title(VARIANTS.get(variant, variant), fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower right", frameon=True, framealpha=0.9)
    p = record["params"]
    fig.suptitle("Cost of one polymorphic attribute site: time per access against the number "
                 "of classes\n(bar: range over runs; number under it: fastest run / fastest "
                 "k=1 run; dashed: the same loop without the load)", fontsize=10)
    m = record["machine"]
    fig.text(0.01, 0.005, f"best of {p['repeats']} per run, {p['rounds']} interleaved rounds; "
             f"{m['cpu_model']}, {m['cores']} cores, load {fmt_load(m['load_average'])}, {m['date']}",
             fontsize=7, color="#555555")
    fig.tight_layout(rect=(0, 0.03, 1, 0.95))
    return fig


def headlines(record) -> dict:
    out = {}
    for g in record["summary"]["groups"]:
        version = (record["interpreters"].get(g["python"]) or {}).get("version", g["python"])
        for r in g["rows"]:
            if r["config"] in ("baseline", "k=1"):
                sp = r["spread"]
                out[f"{version} {g['variant']} {r['config']}: fastest ns"] = \
                    None if not sp else sp["lo"] * 1e9
            else:
                out[f"{version} {g['variant']} {r['config']}: fastest vs k=1"] = r["ratio"]
    return out
