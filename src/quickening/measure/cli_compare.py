"""`quickening compare`: interleaved A/B of two interpreter configurations."""

import sys

from quickening.measure import cliutil, compare, corpus, machine, records
from quickening.measure.progress import Progress
from quickening.measure.runner import Side, isolate_env, parse_env, readable_python

PROG = "quickening compare"

DESCRIPTION = """\
Run WORKLOADs under two interpreter configurations, A and B, interleaved
(A B A B ...). Each run is a fresh process that times the workload REPEATS
times and keeps its best; PAIRS runs per side give a range. A difference is
claimed only when the ranges do not overlap. Outputs of A and B must agree
before any time counts.

A WORKLOAD is a .py file (if it defines workload(), that is called per repeat;
otherwise the whole file runs as a script), pyperformance:NAME (fetched at run
time: richards, deltablue, nbody, float, fannkuch, nqueens, spectral_norm,
generators, coroutines, raytrace) or loop:NAME (dict, list_walk, float_math,
calls)."""

EXAMPLES = """\
examples:
  quickening compare --a-python python3.12 --b-python python3.13 pyperformance:richards
  quickening compare --a-env PYTHON_JIT=0 --b-env PYTHON_JIT=1 loop:dict loop:calls
  quickening compare --b-arg -Xfrozen_modules=off my_workload.py"""


def build_parser():
    p = cliutil.Parser(prog=PROG, description=DESCRIPTION, epilog=EXAMPLES,
                       formatter_class=__import__("argparse").RawDescriptionHelpFormatter)
    for s in ("a", "b"):
        S = s.upper()
        p.add_argument(f"--{s}-python", metavar="PATH", default=None,
                       help=f"interpreter for {S} (default: the running one)")
        p.add_argument(f"--{s}-env", metavar="K=V", action="append", default=[],
                       help=f"environment variable given only to {S}'s processes (repeatable)")
        p.add_argument(f"--{s}-arg", metavar="ARG", action="append", default=[],
                       help=f"interpreter argument for {S}, e.g. -Xfoo (repeatable)")
        p.add_argument(f"--{s}-name", metavar="NAME", help=f"a label for {S} in the output")
    p.add_argument("-M", "--repeats", type=int, default=6, help="repeats per run, best kept (6)")
    p.add_argument("-N", "--pairs", type=int, default=11, help="A/B pairs (11)")
    p.add_argument("--loops", type=int, default=1,
                   help="workload calls per timed repeat, for very short workloads (1)")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds allowed per run (600)")
    p.add_argument("--ignore-output", action="store_true",
                   help="do not require A's and B's outputs to agree")
    cliutil.add_output_options(p)
    p.add_argument("workloads", nargs="*", metavar="WORKLOAD")
    return p


def make_sides(opts) -> list:
    sides = []
    for s in ("a", "b"):
        python = getattr(opts, f"{s}_python") or sys.executable
        side = Side(label=s.upper(), python=readable_python(python),
                    env=parse_env(getattr(opts, f"{s}_env"), f"--{s}-env"),
                    args=list(getattr(opts, f"{s}_arg")),
                    name=getattr(opts, f"{s}_name") or "")
        sides.append(side)
    isolate_env(sides)
    return sides


def _main(argv) -> int:
    argv = cliutil.attach_values(list(argv), ("--a-arg", "--b-arg"))
    opts = build_parser().parse_args(argv)
    if not opts.workloads:
        raise cliutil.UsageError("no workload given (a .py file, pyperformance:NAME or loop:NAME)")
    if opts.repeats < 1 or opts.pairs < 1 or opts.loops < 1:
        raise cliutil.UsageError("--repeats, --pairs and --loops must be at least 1")
    sides = make_sides(opts)
    note = None if opts.quiet else (lambda t: print(t, file=sys.stderr, flush=True))
    workloads = [corpus.resolve_workload(w, note) for w in opts.workloads]
    for _, spec in workloads:
        spec["loops"] = opts.loops
    params = {"repeats": opts.repeats, "pairs": opts.pairs, "loops": opts.loops,
              "workloads": [name for name, _ in workloads], "timeout": opts.timeout,
              "order": "A B per workload, workloads in turn, repeated per pair"}
    record = records.new_record("compare", "compare", ["quickening", "compare", *argv], params,
                                machine.describe_machine())
    total = opts.pairs * len(workloads) * 2
    with Progress(total, "compare", quiet=opts.quiet) as progress:
        compare.run(record, sides, workloads, repeats=opts.repeats, pairs=opts.pairs,
                    timeout=opts.timeout, progress=progress,
                    check_outputs=not opts.ignore_output)
    failed = [w for w in record["summary"]["workloads"] if w["status"] != "ok"]
    cliutil.finish(record, opts, compare.render_text)
    for w in failed:
        run = next((r for r in record["runs"] if r["group"] == w["workload"] and r.get("error")),
                   None)
        if run and run.get("traceback"):
            print(f"\n{w['workload']} ({run['side']}) failed:\n{run['traceback']}",
                  file=sys.stderr)
    return 1 if failed else 0


def main(argv) -> int:
    return cliutil.guarded(PROG, _main, argv)
