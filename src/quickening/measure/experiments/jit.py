"""`experiment jit`: four short loops with the experimental JIT off and on.

The loops (a dictionary loop, a list walk, float arithmetic and small calls;
see ``quickening/measure/workloads``) are run like `quickening compare` with
A = ``PYTHON_JIT=0`` and B = ``PYTHON_JIT=1`` on the same interpreter,
interleaved.  Each run checks inside itself, through ``sys._jit``, whether
the JIT is available and enabled, and the record keeps what it found; a run
whose JIT state does not match its side is reported.  An interpreter without
``sys._jit`` (a build without the JIT, or older than 3.14) cannot run this
experiment: it says so and stops.
"""

import sys

from quickening.measure import compare, corpus
from quickening.measure.runner import Side, isolate_env, readable_python, resolve_python, run_json_child

NAME = "jit"
SUMMARY = "four short loops with PYTHON_JIT=0 against PYTHON_JIT=1 (needs a JIT build)"
LOOPS = ["dict", "list_walk", "float_math", "calls"]


def add_arguments(p):
    p.add_argument("--python", default=None, metavar="PATH",
                   help="interpreter with a JIT (default: the running one)")
    p.add_argument("-M", "--repeats", type=int, default=6, help="repeats per run, best kept (6)")
    p.add_argument("-N", "--pairs", type=int, default=11, help="off/on pairs (11)")
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


def mismatches(record) -> list:
    out = []
    for r in record["runs"]:
        jit = (r.get("interpreter") or {}).get("jit") or {}
        want = r["side"] == "B"
        if jit.get("enabled") is not None and jit["enabled"] != want:
            out.append(f"{r['group']} round {r['round'] + 1} side {r['side']}: JIT enabled="
                       f"{jit['enabled']} although PYTHON_JIT={'1' if want else '0'}")
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
    record["params"].update(repeats=opts.repeats, pairs=opts.pairs, loops=1,
                            workloads=[w for w, _ in workloads], python=python,
                            order="A B per loop, loops in turn, repeated per pair")
    compare.run(record, sides, workloads, repeats=opts.repeats, pairs=opts.pairs,
                progress=progress)
    record["summary"]["notes"] = sorted(set(record["summary"].get("notes", []))
                                        | set(mismatches(record)))
    return record


def render_text(record) -> str:
    body = compare.render_text(record)
    return body.replace("quickening compare —", "experiment jit — JIT off (A) against on (B):", 1)


def figure(record, plt):
    from quickening.measure.charts import compare_figure
    return compare_figure(record, plt)


def headlines(record) -> dict:
    return compare.headlines(record)
