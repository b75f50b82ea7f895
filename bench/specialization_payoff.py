"""Where specialization pays inside the interpreter, family by family.

    .venv/bin/python bench/specialization_payoff.py [--repeat N] [--only NAME]... [--against TREE]
                                                    [--clock cpu|instructions]

Each workload is a loop dominated by one kind of site.  It runs in fresh
processes natively, interpreted (default) and interpreted with
Interpreter(specialize=False), interleaved, best CPU time of --repeat (as a
user's Python runs: the interpreter's code cache written and read); the
results must be equal before any time counts.  The table gives, per
workload, the slowdown of each interpreted mode against native and the
ratio no-spec / default (above 1: specialization pays).  With --against TREE (a
checkout of another commit) both interpreted modes also run with that tree's
quickening, interleaved, and the table adds this tree's time over that tree's.
--clock instructions counts instead the machine instructions of the workload
call under valgrind, as bench/interp_speed.py does (a run less a run that
stops before the call, both reading one private code cache an unmeasured
run filled): the same on a loaded machine, one run per mode.

Why the ratio is what it is: a generic instruction here is one C-level
operation (`a + b`, `o.name`, `o[i]`) that CPython already runs
with its own internal caches, while a specialized member must first run
the guard CPython's member runs -- an exact type check, and for attribute
members a type version and an object's inline-values flag read from memory
-- in Python.  Where the generic path is itself Python work (binding a call,
pushing a frame, looking up a global in two dicts), the member can skip it.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import textwrap

N = 200_000

WORKLOADS = {
    "int_add": ("", "t = 0\nfor i in range(N):\n    t = t + i\nreturn t"),
    "float_mul": ("", "t = 1.0\nfor i in range(N):\n    t = t * 1.0000001\nreturn t"),
    "compare_int": ("", "t = 0\nfor i in range(N):\n    if i < 100:\n        t += 1\nreturn t"),
    "list_subscr": ("", "l = list(range(10))\nt = 0\nfor i in range(N):\n    t += l[i % 10]\nreturn t"),
    "attr_instance": ("class P:\n    def __init__(self):\n        self.x = 1\n",
                      "p = P()\nt = 0\nfor i in range(N):\n    t += p.x\nreturn t"),
    "attr_store": ("class P:\n    def __init__(self):\n        self.x = 1\n",
                   "p = P()\nfor i in range(N):\n    p.x = i\nreturn p.x"),
    "method_call": ("class P:\n    def m(self):\n        return 1\n",
                    "p = P()\nt = 0\nfor i in range(N):\n    t += p.m()\nreturn t"),
    "function_call": ("def g(a, b):\n    return a\n",
                      "t = 0\nfor i in range(N):\n    t += g(i, 2)\nreturn t"),
    "global_load": ("K = 3\n", "t = 0\nfor i in range(N):\n    t += K\nreturn t"),
    "builtin_call": ("", "l = [1, 2]\nt = 0\nfor i in range(N):\n    t += len(l)\nreturn t"),
}

CHILD = r"""
import json, sys, time
mode, source = sys.argv[1], sys.argv[2]
code = compile(source, "<workload>", "exec")
ns = {"__name__": "workload"}
if mode == "native":
    exec(code, ns)
    run = ns["workload"]
else:
    from quickening import api
    api.Interpreter(specialize=(mode == "default"))
    api.run_code(code, ns)
    run = lambda: api.call(ns["workload"])
if len(sys.argv) > 3:        # (setup only: what an instruction count subtracts)
    run = lambda: None
t0 = time.process_time()
result = run()
print(json.dumps([time.process_time() - t0, repr(result)]))
"""


def program(setup, body):
    return f"N = {N}\n{setup}\ndef workload():\n{textwrap.indent(body, '    ')}\n"


def measure(mode, source, against=None, clock="cpu"):
    """(seconds, or with clock "instructions" billions of instructions, of the
    workload call; repr of its result)."""
    if clock == "instructions":
        return _count_instructions(mode, source, against)
    return _run(mode, source, against)


def _run(mode, source, against, extra_env=(), under=(), setup_only=False):
    # (children run as a user's Python does, as interp_speed.py's: bytecode files and
    # the interpreter's code cache are written and read, so the best of --repeat runs
    # is one that found what earlier runs generated)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(extra_env)
    if mode.startswith("before-"):
        env["PYTHONPATH"] = os.path.join(against, "src")
        mode = mode.removeprefix("before-")
    out = subprocess.run([*under, sys.executable, "-c", CHILD, mode, source,
                          *(["setup-only"] if setup_only else [])],
                         capture_output=True, text=True, timeout=600 * (100 if under else 1),
                         env=env)
    if out.returncode != 0:
        raise SystemExit(f"{mode} run failed:\n{out.stderr}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if under:
        from interp_speed import instruction_count
        count = instruction_count(out.stderr)
        if count is None:
            raise SystemExit("valgrind printed no instruction count")
        result.append(count)
    return result


def _count_instructions(mode, source, against):
    """The workload call's instructions: a run under valgrind less a setup-only
    run, both from the same private code cache (filled by an unmeasured run)."""
    import tempfile
    from interp_speed import VALGRIND
    with tempfile.TemporaryDirectory(prefix="quickening-bench-cache-") as private:
        env = {"QUICKENING_CACHE": private, "PYTHONHASHSEED": "0"}
        if mode != "native":
            _run(mode, source, against, env)
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        _, result, full = _run(mode, source, against, env, VALGRIND)
        *_, setup = _run(mode, source, against, env, VALGRIND, setup_only=True)
    return (full - setup) / 1e9, result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", action="append")
    ap.add_argument("--against", metavar="TREE",
                    help="also run the interpreted modes with TREE's quickening, interleaved")
    ap.add_argument("--clock", choices=("cpu", "instructions"), default="cpu",
                    help="CPU time (default) or machine instructions under valgrind")
    opts = ap.parse_args()
    if opts.clock == "instructions":
        opts.repeat = 1     # (the same count every run)
    modes = ("native", "default", "nospec") + (
        ("before-default", "before-nospec") if opts.against else ())
    names = [n for n in WORKLOADS if not opts.only or n in opts.only]
    rows = []
    for name in names:
        source = program(*WORKLOADS[name])
        best = {}
        results = {}
        for _ in range(opts.repeat):
            for mode in modes:
                t, r = measure(mode, source, opts.against, opts.clock)
                best[mode] = min(best.get(mode, t), t)
                results[mode] = r
        if len(set(results.values())) != 1:
            print(f"{name}: results differ {results}", file=sys.stderr)
            continue
        rows.append((name, best["native"], best["default"] / best["native"],
                     best["nospec"] / best["native"], best["nospec"] / best["default"],
                     *((best["default"] / best["before-default"],
                        best["nospec"] / best["before-nospec"]) if opts.against else ())))
        print(f"[{name}] done", file=sys.stderr)
    extra = f" {'default after/before':>22} {'no-spec after/before':>21}" if opts.against else ""
    unit = "native G" if opts.clock == "instructions" else "native s"
    print(f"{'workload':15} {unit:>9} {'default':>8} {'no-spec':>8} {'no-spec/default':>16}{extra}")
    for name, nat, d, ns, ratio, *change in rows:
        tail = f" {change[0]:22.3f} {change[1]:21.3f}" if change else ""
        print(f"{name:15} {nat:9.4f} {d:7.1f}x {ns:7.1f}x {ratio:15.2f}x{tail}")
    if rows:
        def g(i):
            return math.exp(sum(math.log(r[i]) for r in rows) / len(rows))
        tail = f" {g(5):22.3f} {g(6):21.3f}" if opts.against else ""
        print(f"{'geomean':15} {'':9} {'':8} {'':8} {g(4):15.2f}x{tail}")
    clock = ("machine instructions of the workload call (valgrind), one run per mode"
             if opts.clock == "instructions" else
             f"CPU time, best of {opts.repeat} fresh processes per mode")
    print(f"python {sys.version.split()[0]}; {clock}, interleaved; N = {N}")


if __name__ == "__main__":
    main()
