"""`quickening compare`: A/B of two interpreter configurations on workloads."""

from quickening.measure import engine, machine, stats, text
from quickening.measure.engine import Config, Group


def side_summary(interpreters: dict, label: str) -> dict | None:
    """The first full interpreter description seen for side `label`."""
    for key, info in interpreters.items():
        if key.rsplit("/", 1)[-1] == label:
            return info
    return None


def jit_text(jit: dict | None) -> str:
    if not jit:
        return "JIT state unknown"
    if not jit.get("has_sys_jit"):
        if jit.get("configured"):
            return "JIT: built with --enable-experimental-jit, no sys._jit to confirm its state"
        return "JIT: not in this build (no sys._jit)"
    if not jit.get("available"):
        return "JIT: not available"
    return "JIT: enabled" if jit.get("enabled") else "JIT: available, disabled"


def consistency_notes(group_runs, label) -> list:
    """Warn when runs of one side disagree about what they had (JIT state, env)."""
    states = set()
    for r in group_runs:
        if r.get("config") != label or not r.get("interpreter"):
            continue
        it = r["interpreter"]
        states.add((it.get("executable"), it.get("version"), repr(it.get("jit")),
                    repr(sorted((it.get("env") or {}).items())), repr(r.get("jit_after"))))
    if len(states) > 1:
        return [f"{label}: runs differed in interpreter, JIT state or environment; "
                "see the record"]
    return []


def summarize_group(group: Group, a="A", b="B") -> dict:
    verdict = stats.judge(group.bests(a), group.bests(b))
    out = {"workload": group.name, "status": group.status, **verdict.as_dict(),
           "a_runs": group.bests(a), "b_runs": group.bests(b)}
    if group.status != "ok":
        # (a failed or different run means the two sides ran different work)
        out["verdict"] = ("not compared: outputs differ" if group.status == "outputs differ"
                          else f"not compared: {group.status}")
        # nor is any ratio of their times shown: "B 4.4% slower" beside "not
        # compared" reads as a claim (the times stay in a_runs and b_runs)
        out["ratio"], out["pair_ratios"] = None, []
    return out


def build_record(record: dict, sides, groups, interpreters) -> dict:
    if interpreters.pop("__interrupted__", False):
        record["interrupted"] = True
    record["sides"] = [s.as_dict() for s in sides]
    record["interpreters"] = {s.label: side_summary(interpreters, s.label) for s in sides}
    record["runs"] = [r for g in groups for r in g.runs]
    notes = []
    for g in groups:
        for s in sides:
            notes += consistency_notes(g.runs, s.label)
    record["summary"] = {"workloads": [summarize_group(g) for g in groups],
                         "notes": sorted(set(notes))}
    record["machine_end"] = {"load_average": machine.load_average(), "date": machine.now_utc()}
    return record


def run(record, sides, workloads, *, repeats, pairs, timeout=None, progress=None,
        check_outputs=True, runner=None):
    """Measure `workloads` ((name, spec) pairs) on the two sides; fill `record`."""
    groups = [Group(name, [Config(s.label, s, spec) for s in sides]) for name, spec in workloads]
    env_keys = sorted({k for s in sides for k in s.env} | {"PYTHON_JIT"})
    kwargs = {"run": runner} if runner else {}
    interpreters = engine.run_interleaved(groups, rounds=pairs, repeats=repeats,
                                          env_keys=env_keys, timeout=timeout,
                                          progress=progress, check_outputs=check_outputs,
                                          **kwargs)
    return build_record(record, sides, groups, interpreters)


def describe_side(side: dict, info: dict | None) -> str:
    label = side["label"] + (f" ({side['name']})" if side.get("name") else "")
    parts = [f"{label}: {side['python']}"]
    if info:
        impl = info.get("implementation", "python")
        impl = {"cpython": "CPython", "pypy": "PyPy"}.get(impl, impl)
        parts.append(f"{impl} {info.get('version')}")
        parts.append(jit_text(info.get("jit")))
    if side.get("env"):
        parts.append("env " + " ".join(f"{k}={v}" for k, v in side["env"].items()))
    if side.get("unset"):
        parts.append("unset " + " ".join(side["unset"]))
    if side.get("args"):
        parts.append("args " + " ".join(side["args"]))
    return "  ".join(parts)


def render_text(record: dict) -> str:
    p = record["params"]
    m = record["machine"]
    n = len(record["summary"]["workloads"])
    lines = [f"quickening compare — {text.plural(n, 'workload')}, "
             f"{text.plural(p['pairs'], 'pair')} run A B A B ..., each run a fresh process "
             f"keeping the best of {text.plural(p['repeats'], 'repeat')}"]
    for side in record["sides"]:
        lines.append("  " + describe_side(side, record["interpreters"].get(side["label"])))
    load_end = (record.get("machine_end") or {}).get("load_average")
    lines.append(f"  machine: {m['cpu_model']}, {m['cores']} cores, load "
                 f"{machine.fmt_load(m['load_average'])} at start, {machine.fmt_load(load_end)}"
                 f" at end (1/5/15 min); {m['date']}")
    lines.append("")
    rows = [("workload", "A range (runs)", "B range (runs)", "B/A fastest", "B/A per pair",
             "verdict")]
    for w in record["summary"]["workloads"]:
        a, b = w.get("a"), w.get("b")
        ra = "-" if not a else f"{stats.fmt_range(_sp(a))} ({a['n']})"
        rb = "-" if not b else f"{stats.fmt_range(_sp(b))} ({b['n']})"
        ratio = "-" if w.get("ratio") is None else \
            f"{w['ratio']:.3f} ({stats.describe_ratio(w['ratio'])})"
        pr = w.get("pair_ratios") or []
        pairs = f"{min(pr):.3f}–{max(pr):.3f}" if pr else "-"
        rows.append((w["workload"], ra, rb, ratio, pairs, w["verdict"]))
    lines += text.table(rows)
    for w in record["summary"]["workloads"]:
        if w["status"] == "outputs differ":
            lines.append(f"  {w['workload']}: A and B produced different output; "
                         "no time of it counts")
        elif w["status"] != "ok":
            lines.append(f"  {w['workload']}: {w['status']}")
    if record.get("interrupted"):
        lines.append("  interrupted: the ranges cover only the runs finished before Ctrl-C")
    busy = machine.busy_note(record)
    if busy:
        lines.append(f"  note: {busy}")
    for note in record["summary"].get("notes", []):
        lines.append(f"  note: {note}")
    return "\n".join(lines)


def _sp(d):
    return stats.Spread(d["n"], d["lo"], d["hi"], d["median"])


def headlines(record) -> dict:
    """key -> value, the figures two records of this kind are compared on."""
    out = {}
    for w in record["summary"]["workloads"]:
        ratio = w.get("ratio")
        out[f"{w['workload']}: fastest B/A"] = ratio
        out[f"{w['workload']}: verdict"] = w["verdict"]
    return out
