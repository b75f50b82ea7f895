"""Charts of records, PNG and SVG, drawn with matplotlib's Agg backend.

Every chart is drawn from a record alone, so `quickening records render`
gives the same picture later.  Each is meant to be read without the table:
titles say what was measured and on what, axes say the unit, each run is a
dot and each range a bar.
"""

from pathlib import Path

from quickening.measure.machine import fmt_load
from quickening.measure.runner import MeasureError

COLORS = {"A": "#1f77b4", "B": "#d62728"}
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
           "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]


def pyplot():
    import matplotlib
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt
    return plt


def draw(record: dict, stem, experiments=None) -> list:
    """Draw the chart for `record` to STEM.png and STEM.svg; return the paths.
    experiments: name -> module drawing that experiment's records (experiments.EXPERIMENTS;
    passed in, as the experiments draw with this module's charts)."""
    plt = pyplot()
    fig = figure_for(record, plt, experiments or {})
    if fig is None:
        return []
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext in ("png", "svg"):
        path = stem.with_name(stem.name + "." + ext)
        fig.savefig(path, dpi=110 if ext == "png" else None, bbox_inches="tight")
        paths.append(path)
    plt.close(fig)
    return paths


def figure_for(record, plt, experiments):
    if record.get("kind") == "compare":
        return compare_figure(record, plt)
    exp = experiments.get(record.get("name"))
    if exp is None:
        raise MeasureError(f"no chart for records of kind {record.get('name')!r}")
    return exp.figure(record, plt)


def side_caption(side: dict, info: dict | None) -> str:
    text = side.get("name") or ""
    if not text:
        version = (info or {}).get("version") or Path(side["python"]).name
        text = f"CPython {version}"
        if side.get("env"):
            text += " " + " ".join(f"{k}={v}" for k, v in side["env"].items())
        if side.get("args"):
            text += " " + " ".join(side["args"])
    return f"{side['label']}: {text}"


def ranges_figure(plt, rows, title, xlabel, series, colors=None, note="", texts=None,
                  ref_line=None):
    """Horizontal range chart.

    rows: [(row label, {series: [values...]}, annotation)], one row per group;
    each series draws its runs as dots and its range as a bar.
    """
    colors = colors or {s: PALETTE[i % len(PALETTE)] for i, s in enumerate(series)}
    height = 1.0 + 0.55 * len(rows) * max(1, len(series)) + 0.6
    fig, ax = plt.subplots(figsize=(9, max(2.8, height)))
    ticks, labels = [], []
    step = 0.8 / max(1, len(series))
    for i, (label, values, annotation) in enumerate(rows):
        base = len(rows) - 1 - i
        for j, s in enumerate(series):
            vals = values.get(s) or []
            y = base + 0.4 - step * (j + 0.5)
            if vals:
                ax.plot([min(vals), max(vals)], [y, y], color=colors[s], lw=6, alpha=0.35,
                        solid_capstyle="butt")
                ax.plot(vals, [y] * len(vals), "o", color=colors[s], ms=4,
                        label=s if i == 0 else None)
                if texts and texts.get((i, s)):
                    ax.annotate(texts[(i, s)], (max(vals), y), textcoords="offset points",
                                xytext=(6, 0), va="center", fontsize=7.5, color=colors[s])
        if i:
            ax.axhline(base + 0.5, color="#cccccc", lw=0.8)
        ticks.append(base)
        labels.append(label if not annotation else f"{label}\n{annotation}")
    if ref_line is not None:
        ax.axvline(ref_line, color="#888888", lw=0.8, ls=":")
    ax.margins(x=0.12)
    ax.set_yticks(ticks)
    ax.set_yticklabels(labels, fontsize=9)
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=11)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="best", fontsize=8, frameon=False)
    if note:
        fig.text(0.01, 0.005, note, fontsize=7, color="#555555", va="bottom")
    fig.tight_layout(rect=(0, 0.03 if note else 0, 1, 1))
    return fig


def compare_figure(record, plt):
    sides = record["sides"]
    names = {s["label"]: side_caption(s, record["interpreters"].get(s["label"])) for s in sides}
    rows, texts = [], {}
    from quickening.measure.stats import fmt_seconds
    for w in record["summary"]["workloads"]:
        a_runs, b_runs = w.get("a_runs") or [], w.get("b_runs") or []
        ref = min(a_runs) if a_runs else None
        if not ref:
            rows.append((w["workload"], {}, w["verdict"]))
            continue
        values = {names["A"]: [v / ref for v in a_runs], names["B"]: [v / ref for v in b_runs]}
        ratio = w.get("ratio")
        ann = w["verdict"] + (f", fastest B/A {ratio:.3f}" if ratio else "")
        for lab, runs in (("A", a_runs), ("B", b_runs)):
            if runs:
                texts[(len(rows), names[lab])] = f"{fmt_seconds(min(runs))} – {fmt_seconds(max(runs))}"
        rows.append((_short(w["workload"]), values, ann))
    p = record["params"]
    m = record["machine"]
    title = (f"{names['A']}  vs  {names['B']}\n"
             f"best of {p['repeats']} per run, {p['pairs']} interleaved pairs")
    note = (f"{m['cpu_model']}, {m['cores']} cores, load {fmt_load(m['load_average'])}, "
            f"{m['date']}; each dot is one run (a fresh process, best of its repeats); "
            "a difference is claimed only when the ranges do not overlap")
    return ranges_figure(plt, rows, title, "run time relative to A's fastest run (lower is faster)",
                         [names["A"], names["B"]],
                         {names["A"]: COLORS["A"], names["B"]: COLORS["B"]}, note, texts, 1.0)


def _short(name: str) -> str:
    return Path(name).name if "/" in name else name
