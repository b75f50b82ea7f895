#!/usr/bin/env python
"""Longer differential fuzzing run of the interpreter.

    python scripts/fuzz.py --seconds 600 --seed N [--generator codegen|writer|both]
                           [--out DIR] [--minimize] [--jobs J] [--count K]
    python scripts/fuzz.py --replay DIR/program.py ...

Generates programs from seed N upwards (see tests/interp/fuzzing.py), runs each
natively and in the interpreter, and saves every program that behaves
differently to DIR (default fuzz-failures/) with the difference in a header
comment; with --minimize the first program of each kind of difference is also
shrunk to DIR/<name>.min.py. Exits 1 when a difference was found.
--replay re-checks saved programs (for example after a fix).
"""

import argparse
import multiprocessing
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "interp"))

import fuzzing  # noqa: E402


def check(job):
    generator, seed = job
    try:
        src, diff = fuzzing.check_seed(generator, seed)
    except fuzzing.Skip as e:
        return generator, seed, "skip", str(e), None
    except Exception as e:  # a harness problem: report it, keep going
        return generator, seed, "error", f"{type(e).__name__}: {e}", None
    if diff is None:
        return generator, seed, "ok", None, None
    return generator, seed, "diff", diff, src


def jobs(generators, seed, count):
    n = 0
    while count is None or n < count:
        for g in generators:
            yield g, seed + n
        n += 1


def header(generator, seed, diff):
    kind, text = diff
    lines = [f"# fuzz: {generator} program, seed {seed}: {kind} difference",
             "# (run with PYTHONHASHSEED=0 natively and interpreted to compare by hand)"]
    lines += ["# " + line for line in text.splitlines()]
    return "\n".join(lines) + "\n"


def save_and_minimize(args, generator, seed, diff, src, seen):
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"{generator}-{seed}.py")
    with open(path, "w") as f:
        f.write(header(generator, seed, diff) + src)
    sig = fuzzing.signature(diff)
    first = sig not in seen
    seen.setdefault(sig, []).append(path)
    print(f"  DIFF {generator} {seed}: {sig}\n    saved {path}", flush=True)
    if args.minimize and first:
        deadline = time.monotonic() + args.minimize_seconds
        small = fuzzing.minimize(src, fuzzing.same_kind(diff[0]), deadline=deadline)
        small_diff = fuzzing.check_source(small) or diff
        mpath = path[:-3] + ".min.py"
        with open(mpath, "w") as f:
            f.write(header(generator, seed, small_diff) + small)
        print(f"    minimized to {len(small)} chars: {mpath}", flush=True)


def replay(paths):
    failed = 0
    for path in paths:
        with open(path) as f:
            src = f.read()
        try:
            diff = fuzzing.check_source(src)
        except fuzzing.Skip as e:
            print(f"{path}: skipped ({e})")
            continue
        if diff is None:
            print(f"{path}: same")
        else:
            failed += 1
            print(f"{path}: {diff[0]} difference\n{diff[1]}")
    return 1 if failed else 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=600, help="time budget (default 600)")
    p.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    p.add_argument("--count", type=int, default=None, help="number of seeds per generator")
    p.add_argument("--generator", choices=["codegen", "writer", "both"], default="both")
    p.add_argument("--out", default="fuzz-failures", help="where failing programs go")
    p.add_argument("--minimize", action="store_true", help="shrink one program per kind of difference")
    p.add_argument("--minimize-seconds", type=float, default=300)
    p.add_argument("--jobs", type=int, default=1, help="programs checked in parallel")
    p.add_argument("--replay", nargs="+", metavar="FILE", help="re-check saved programs")
    args = p.parse_args(argv)
    if args.replay:
        return replay(args.replay)

    import quickening.api  # noqa: F401  (imported once, before any fork)
    generators = ["codegen", "writer"] if args.generator == "both" else [args.generator]
    deadline = time.monotonic() + args.seconds
    counts = {"ok": 0, "skip": 0, "diff": 0, "error": 0}
    seen = {}
    pool = None
    if args.jobs > 1:
        pool = multiprocessing.get_context("fork").Pool(args.jobs)
        results = pool.imap(check, jobs(generators, args.seed, args.count))
    else:
        results = map(check, jobs(generators, args.seed, args.count))
    last = None
    try:
        for generator, seed, status, detail, src in results:
            counts[status] += 1
            last = seed
            if status == "diff":
                save_and_minimize(args, generator, seed, detail, src, seen)
            elif status == "error":
                print(f"  harness error on {generator} {seed}: {detail}", flush=True)
            if time.monotonic() > deadline:
                break
    except KeyboardInterrupt:
        print("interrupted")
    finally:
        if pool is not None:
            pool.terminate()
    print(f"seeds {args.seed}..{last}: {counts['ok']} same, {counts['diff']} different, "
          f"{counts['skip']} skipped, {counts['error']} harness errors")
    for sig, paths in sorted(seen.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(paths):4d} x {sig}\n         e.g. {paths[0]}")
    return 1 if counts["diff"] or counts["error"] else 0


if __name__ == "__main__":
    sys.exit(main())
