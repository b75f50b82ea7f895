"""`experiment jit`: four short loops with the experimental JIT off and on.

The seed's protocol: the loops (a dictionary loop, a list walk, float
arithmetic and small calls; see ``quickening/measure/workloads``) are run
like `quickening compare` with A = ``PYTHON_JIT=0`` and B = ``PYTHON_JIT=1``
on the same interpreter, interleaved (A B A B ..., six pairs by default), each
run a fresh process keeping the best of eleven repeats; ranges over pairs and
an overlap verdict; the machine's load is recorded per run.  Each run checks
inside itself, through ``sys._jit``, whether the JIT was enabled, and after
its repeats whether its loops got tier-2 executors (the ENTER_EXECUTOR byte
and ``_opcode.get_executor``): a JIT-on run with none, or a JIT-off run with
one, is reported.  The seed's published figures are printed beside this
machine's.  An interpreter without ``sys._jit`` (a build without the JIT,
or older than 3.14) cannot run this experiment: it says so and exits 1.
"""

import sys

from quickening.measure import compare, corpus, text
from quickening.measure.runner import Side, isolate_env, readable_python, resolve_python, run_json_child

NAME = "jit"
SUMMARY = "four short loops with PYTHON_JIT=0 against PYTHON_JIT=1 (needs a JIT build)"
LOOPS = ["dict", "list_walk", "float_math", "calls"]


def add_arguments(p):
    p.add_argument("--python", default=None, metavar="PATH",
                   help="interpreter with a JIT (default: the running one)")
    p.add_argument("-M", "--repeats", type=int, default=11,
                   help="repeats per run, best kept (11)")
    p.add_argument("-N", "--pairs", type=int, default=6,
                   help="off/on pairs, interleaved (6)")
    p.add_argument("--loop", action="append", default=[], choices=LOOPS,
                   help="only this loop (repeatable; default all four)")


def total_steps(opts):
    return opts.pairs * 2 * len(opts.loop or LOOPS)


def probe_jit(python: str) -> dict:
    """The interpreter's own answer about its JIT, asked with PYTHON_JIT=1."""
    data = run_json_child(python, "qk_probe_child.py", {"env_keys": ["PYTHON_JIT"]},
                          env={"PYTHON_JIT": "1"}, timeout=60)
    return data


def no_jit_message(python: str, info: dict) -> str | None:
    jit = info.get("jit") or {}
    where = f"CPython {info.get('version')} at {python}"
    if not jit.get("has_sys_jit"):
        extra = (" It was configured with --enable-experimental-jit, but without sys._jit "
                 "the JIT state of a run cannot be checked from inside it."
                 if jit.get("configured") else "")
        return (f"{where}: this build has no JIT (sys._jit is absent), so there is nothing "
                f"to switch on; the jit experiment stops here.{extra}")
    if not jit.get("available"):
        return (f"{where}: sys._jit says the JIT is not available in this build or on this "
                "machine; the jit experiment stops here.")
    return None


#: The seed article's figures (CPython 3.14.7): JIT on against off, per loop.
SEED = {"version": "3.14.7", "dict": 10.7, "list_walk": 36.7,
        "text": "all four loops slower with the JIT on, from +10.7% (dict loop) "
                "to +36.7% (list walk)"}


def mismatches(record) -> list:
    out = []
    for r in record["runs"]:
        jit = (r.get("interpreter") or {}).get("jit") or {}
        want = r["side"] == "B"
        if jit.get("enabled") is not None and jit["enabled"] != want:
            out.append(f"{r['group']} round {r['round'] + 1} side {r['side']}: JIT enabled="
                       f"{jit['enabled']} although PYTHON_JIT={'1' if want else '0'}")
        if r.get("error") or "tier2_loops" not in r:
            continue
        loops = r["tier2_loops"]
        if loops is None:
            out.append(f"{r['group']} round {r['round'] + 1} side {r['side']}: could not "
                       "read its loops' executors" + (f" ({r['tier2_error']})"
                                                      if r.get("tier2_error") else ""))
            continue
        made = sum(1 for l in loops if l["executor"])
        if want and not made:
            out.append(f"{r['group']} round {r['round'] + 1} side B: JIT on but none of its "
                       f"{len(loops)} loops got a tier-2 executor")
        if not want and made:
            out.append(f"{r['group']} round {r['round'] + 1} side A: JIT off but {made} "
                       "loop(s) got a tier-2 executor")
    return out


def tier2_summary(record) -> dict:
    """workload -> {"A": (runs with an executor, runs), "B": ..., "loops": [...]}:
    what the runs found about their loops' executors."""
    out = {}
    for r in record["runs"]:
        loops = r.get("tier2_loops")
        if loops is None:
            continue
        w = out.setdefault(r["group"], {"A": [0, 0], "B": [0, 0], "loops": {}})
        w[r["side"]][1] += 1
        if any(l["executor"] for l in loops):
            w[r["side"]][0] += 1
        if r["side"] == "B":
            for l in loops:
                key = f"{l['function']}@{l['offset']}"
                seen = w["loops"].setdefault(key, [0, 0])
                seen[1] += 1
                seen[0] += bool(l["executor"])
    return out


def validate(opts):
    if min(opts.repeats, opts.pairs) < 1:
        raise ValueError("--repeats and --pairs must be at least 1")


def preflight(opts) -> str | None:
    """Stop before any timing when the interpreter has no JIT to switch."""
    python = readable_python(opts.python or sys.executable)
    return no_jit_message(python, probe_jit(python)["interpreter"])


def run(opts, record, progress):
    python = resolve_python(opts.python or sys.executable)
    sides = [Side("A", python, {"PYTHON_JIT": "0"}, name="JIT off (PYTHON_JIT=0)"),
             Side("B", python, {"PYTHON_JIT": "1"}, name="JIT on (PYTHON_JIT=1)")]
    isolate_env(sides)
    workloads = [corpus.resolve_workload(f"loop:{name}") for name in (opts.loop or LOOPS)]
    for _, spec in workloads:
        spec["tier2_check"] = True    # each run reports whether its loops got executors
    record["params"].update(repeats=opts.repeats, pairs=opts.pairs, loops=1,
                            workloads=[w for w, _ in workloads], python=python,
                            order="A B per loop, loops in turn, repeated per pair")
    compare.run(record, sides, workloads, repeats=opts.repeats, pairs=opts.pairs,
                progress=progress)
    record["summary"]["notes"] = sorted(set(record["summary"].get("notes", []))
                                        | set(mismatches(record)))
    record["summary"]["tier2"] = tier2_summary(record)
    record["summary"]["seed"] = SEED
    return record


def render_text(record) -> str:
    body = compare.render_text(record)
    body = body.replace("quickening compare —", "experiment jit — JIT off (A) against on (B):", 1)
    lines = [body, ""]
    t2 = record["summary"].get("tier2") or {}
    if t2:
        lines.append("tier 2, checked inside each run after its repeats (runs whose loops had "
                     "an executor):")
        for name, w in t2.items():
            loops = ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in sorted(w["loops"].items()))
            lines.append(f"  {name}: JIT on {w['B'][0]}/{w['B'][1]} runs, JIT off "
                         f"{w['A'][0]}/{w['A'][1]}" + (f"; per loop (on): {loops}" if loops else ""))
        lines.append("")
    version = (record["interpreters"].get("B") or {}).get("version", "?")
    lines.append(f"the seed article (CPython {SEED['version']}): {SEED['text']}")
    rows = [("loop", f"seed, {SEED['version']}", f"this machine, {version}", "verdict here")]
    for w in record["summary"]["workloads"]:
        key = w["workload"].split(":", 1)[-1]
        seed = f"+{SEED[key]:.1f}%" if key in SEED else "slower (figure not given)"
        here = "-" if w.get("ratio") is None else f"{(w['ratio'] - 1) * 100:+.1f}%"
        rows.append((w["workload"], seed, here, w["verdict"]))
    lines += text.table(rows)
    lines.append("  (+: the JIT-on runs were slower; B/A of the fastest runs)")
    return "\n".join(lines)


def figure(record, plt):
    from quickening.measure.charts import compare_figure
    return compare_figure(record, plt)


def headlines(record) -> dict:
    return compare.headlines(record)
