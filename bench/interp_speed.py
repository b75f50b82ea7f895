"""Speed of the interpreter against native CPython on the benchmark corpus.

    .venv/bin/python bench/interp_speed.py [--only NAME]... [--repeat N]
                                           [--no-specialize] [--tracemalloc]
                                           [--against TREE] [--json FILE] [--timeout S]

For each benchmark of ../shared/facts/corpus.md (pyperformance 1.14.0 programs,
fetched at run time into bench/.cache/) plus our own exception and closure
workloads (bench/programs/), every measurement runs in a fresh subprocess:

  native       the benchmark module is exec'd natively, the workload called natively;
  interpreted  the module's code runs through quickening.api.run_code into a fresh
               module dict (so every function is created by the interpreter) and the
               workload is called with quickening.api.call;
  no-spec      (with --no-specialize) the same, with Interpreter(specialize=False);
  before       (with --against TREE, a checkout of another commit) the interpreted
               modes again with that tree's quickening (its src/ first on PYTHONPATH),
               so two commits are measured side by side in one run: the table adds
               each one's time and the ratio of this tree's to that tree's.

Runs are interleaved (native, interpreted, no-spec, native, ...) and the best
time of --repeat runs counts (process CPU time by default, --clock wall for
wall-clock time).  --clock instructions counts instead the machine instructions
the workload call executes (valgrind's cachegrind, which must be installed:
each measurement is a run under valgrind less a run that stops before the
workload, both with PYTHONHASHSEED=0 and both reading one private code cache
that an unmeasured run of the workload filled): slow (~60x), but the same on
a quiet and a loaded machine, so small differences between two trees are seen.
Children run as a user's Python does (PYTHONDONTWRITEBYTECODE is dropped):
bytecode files and the interpreter's cache of the code it generates
(interp/codecache.py) are written and read; --no-code-cache turns the latter
off, to measure the interpreter compiling everything it generates.  Each run reports a digest of the workload's
result, of what it printed and of the file it wrote; a benchmark whose
interpreted digest differs from the native one is reported as MISMATCH and
left out of the geometric means.  Peak memory is the process's ru_maxrss (all
of it: interpreter start-up included); --tracemalloc adds one more run per mode
measuring the tracemalloc peak of the workload call alone.

Progress goes to stderr, the table to stdout.
"""

import argparse
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.path.join(HERE, ".cache")
PYPERFORMANCE = "1.14.0"
WHEEL = f"pyperformance-{PYPERFORMANCE}-py3-none-any.whl"
UNPACKED = os.path.join(CACHE, f"pyperformance-{PYPERFORMANCE}-benchmarks")
STUB_DIR = os.path.join(HERE, "pyperf_stub")
PROGRAMS = os.path.join(HERE, "programs")

# ---------------------------------------------------------------------------
# The corpus.  Each entry: where the module is, and a driver, i.e. source text
# exec'd into the benchmark module's namespace in the same mode as the module
# (interpreted in the interpreted modes).  The driver defines
#   __bench_setup__(tmp)  -> args     (untimed; optional)
#   __bench_run__(*args)  -> result   (timed; compared between modes)
# `tmp` is a scratch path for benchmarks that write a file; its bytes are
# part of the digest.

BENCHMARKS = {
    "richards": ("pyperformance", "richards", """
def __bench_run__():
    ok = Richards().run(3)
    return ok, taskWorkArea.holdCount, taskWorkArea.qpktCount
"""),
    "deltablue": ("pyperformance", "deltablue", """
def __bench_run__():
    delta_blue(5000)
    return planner.current_mark
"""),
    "nbody": ("pyperformance", "nbody", """
def __bench_run__():
    bench_nbody(1, "sun", 20000)
    return report_energy()
"""),
    "float": ("pyperformance", "float", """
def __bench_run__():
    p = benchmark(100000)
    return p.x, p.y, p.z
"""),
    "fannkuch": ("pyperformance", "fannkuch", """
def __bench_run__():
    return fannkuch(8)
"""),
    "spectral_norm": ("pyperformance", "spectral_norm", """
def __bench_run__():
    # bench_spectral_norm's loop body with DEFAULT_N = 100, keeping the result.
    global DEFAULT_N
    DEFAULT_N = 100
    u = [1] * DEFAULT_N
    for dummy in range(10):
        v = eval_AtA_times_u(u)
        u = eval_AtA_times_u(v)
    vBv = vv = 0
    for ue, ve in zip(u, v):
        vBv += ue * ve
        vv += ve * ve
    return vBv, vv
"""),
    "nqueens": ("pyperformance", "nqueens", """
def __bench_run__():
    return list(n_queens(8))
"""),
    "generators": ("pyperformance", "generators", """
def __bench_setup__(tmp):
    assert list(tree(range(10))) == list(range(10))
    return (tree(range(100000)),)

def __bench_run__(iterable):
    count = total = 0
    for value in iterable:
        count += 1
        total += value
    return count, total
"""),
    "raytrace": ("pyperformance", "raytrace", """
def __bench_setup__(tmp):
    return (tmp,)

def __bench_run__(tmp):
    bench_raytrace(1, 50, 50, tmp)
"""),
    "chaos": ("pyperformance", "chaos", """
class __BenchArgs:
    thickness = 0.25
    width = 64
    height = 64
    iterations = 5000
    rng_seed = 1234

def __bench_setup__(tmp):
    import pyperf
    runner = pyperf.Runner()
    args = __BenchArgs()
    args.filename = tmp
    main(runner, args)
    (name, func, fargs), = runner.recorded
    return func, fargs

def __bench_run__(func, fargs):
    return func(*fargs)
"""),
    "coroutines": ("pyperformance", "coroutines", """
def __bench_run__():
    coro = fibonacci(27)
    try:
        while True:
            coro.send(None)
    except StopIteration as stop:
        return stop.value
"""),
    "exceptions": ("ours", "exceptions", """
def __bench_run__():
    return bench_exceptions(25000)
"""),
    "closures": ("ours", "closures", """
def __bench_run__():
    return bench_closures(80000)
"""),
}

MODES = ("native", "interp", "nospec", "before", "before-nospec")
MODE_TITLES = {"native": "native s", "interp": "interp s", "nospec": "no-spec s",
               "before": "before s", "before-nospec": "before no-spec s"}
# what the child runs for a mode measured with the other tree
CHILD_MODE = {"before": "interp", "before-nospec": "nospec"}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Fetching pyperformance

def ensure_corpus(python):
    marker = os.path.join(UNPACKED, ".complete")
    if os.path.exists(marker):
        return UNPACKED
    os.makedirs(CACHE, exist_ok=True)
    wheel = os.path.join(CACHE, WHEEL)
    if not os.path.exists(wheel):
        log(f"fetching pyperformance=={PYPERFORMANCE} into {CACHE}")
        subprocess.run([python, "-m", "pip", "download", "--quiet", "--no-deps",
                        f"pyperformance=={PYPERFORMANCE}", "-d", CACHE], check=True)
    prefix = "pyperformance/data-files/benchmarks/"
    with zipfile.ZipFile(wheel) as zf:
        for name in zf.namelist():
            if name.startswith(prefix) and name.endswith("/run_benchmark.py"):
                zf.extract(name, UNPACKED)
    with open(marker, "w") as fh:
        fh.write(WHEEL + "\n")
    return UNPACKED


def module_path(kind, name):
    if kind == "pyperformance":
        return os.path.join(UNPACKED, "pyperformance", "data-files", "benchmarks",
                            f"bm_{name}", "run_benchmark.py")
    return os.path.join(PROGRAMS, f"{name}.py")


# ---------------------------------------------------------------------------
# One measurement (child process)

def _rss_kb():
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _digest(result, printed, tmp):
    h = hashlib.sha256()
    h.update(repr(result).encode())
    h.update(b"\0")
    h.update(printed.encode())
    h.update(b"\0")
    if tmp and os.path.exists(tmp):
        with open(tmp, "rb") as fh:
            h.update(fh.read())
    return h.hexdigest()[:16]


def child(spec):
    import contextlib
    import io
    import resource
    import types

    name, mode, tmp, use_tracemalloc = spec["bench"], spec["mode"], spec["tmp"], spec["tracemalloc"]
    kind, modname, driver = BENCHMARKS[name]
    path = module_path(kind, modname)
    sys.path.insert(0, STUB_DIR)
    sys.path.insert(1, os.path.dirname(path))
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    out = {"bench": name, "mode": mode}

    if mode == "native":
        def execute(code, namespace):
            exec(code, namespace)

        def invoke(fn, *args):
            return fn(*args)
    else:
        from quickening import api
        execute, invoke, out["specialize_option"] = _interpreter_entry(api, mode)

    with open(path, "rb") as fh:
        source = fh.read()
    mod_name = f"bm_{name}"
    module = types.ModuleType(mod_name)
    module.__file__ = path
    module.__builtins__ = __builtins__
    sys.modules[mod_name] = module
    execute(compile(source, path, "exec", dont_inherit=True), module.__dict__)
    execute(compile(driver, f"<driver {name}>", "exec", dont_inherit=True), module.__dict__)
    ns = module.__dict__
    args = ()
    if "__bench_setup__" in ns:
        args = invoke(ns["__bench_setup__"], tmp)
    run = ns["__bench_run__"]
    if spec.get("setup_only"):
        # (what an instruction count subtracts: everything but the workload call)
        run = lambda *args: None  # noqa: E731
        invoke = _call_natively

    printed = io.StringIO()
    rss_before = _rss_kb()
    if use_tracemalloc:
        import tracemalloc
        tracemalloc.start()
    with contextlib.redirect_stdout(printed):
        c0 = time.process_time()
        t0 = time.perf_counter()
        result = invoke(run, *args)
        elapsed = time.perf_counter() - t0
        cpu = time.process_time() - c0
    if use_tracemalloc:
        out["tracemalloc_peak"] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    out["wall"] = elapsed
    out["cpu"] = cpu
    out["maxrss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out["rss_before_kb"] = rss_before
    out["digest"] = _digest(result, printed.getvalue(), tmp)
    out["result"] = repr(result)[:120]
    if mode != "native":
        import quickening
        out["module"] = os.path.dirname(quickening.__file__)
    return out


def _call_natively(fn, *args):
    return fn(*args)


def _interpreter_entry(api, mode):
    """run_code/call for the interpreted modes.

    api.Interpreter(specialize=...) sets the interpreter's process-wide options
    (each measurement is its own process); if a later API gives the object its
    own run_code/call, those are used instead."""
    specialize = mode == "interp"
    try:
        interp = api.Interpreter(specialize=specialize)
    except TypeError:
        interp = None
    if interp is not None and hasattr(interp, "run_code") and hasattr(interp, "call"):
        return interp.run_code, interp.call, f"Interpreter(specialize={specialize}).run_code/call"
    try:
        from quickening.interp import quicken
        effective = quicken.Config.specialize == specialize
    except (ImportError, AttributeError):
        effective = None
    how = f"Interpreter(specialize={specialize})"
    if effective is False or interp is None:
        how += " (no observable effect)"
    return api.run_code, api.call, how


def src_fingerprint():
    """A hash of the quickening sources: the tree may change during a run."""
    import quickening
    root = os.path.dirname(quickening.__file__)
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in sorted(os.walk(root)):
        dirnames.sort()
        for fn in sorted(filenames):
            if fn.endswith(".py"):
                with open(os.path.join(dirpath, fn), "rb") as fh:
                    h.update(fn.encode() + fh.read())
    return h.hexdigest()[:12]


def git_head():
    try:
        out = subprocess.run(["git", "-C", HERE, "describe", "--always", "--dirty"],
                             capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


# ---------------------------------------------------------------------------
# The driver (parent process)

NO_CODE_CACHE = False      # --no-code-cache
VALGRIND = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
if shutil.which("setarch"):
    # the same addresses in every run (no ASLR): the interpreter keys dictionaries by
    # id(), whose collisions otherwise move the count by a percent or two
    VALGRIND = ["setarch", os.uname().machine, "-R", *VALGRIND]


def run_child(python, name, mode, timeout, tracemalloc=False, against=None, clock="cpu"):
    if clock == "instructions":
        return _count_instructions(python, name, mode, timeout, against)
    return _run_child(python, name, mode, timeout, tracemalloc, against)


def _count_instructions(python, name, mode, timeout, against):
    """The machine instructions of the workload call: a run under valgrind less a
    run of everything but the call (both with the same hash seed).

    Both runs must start from the same code cache, or the difference counts what
    one of them compiled and the other read (the interpreter compiles ~100 sources
    at start-up with an empty cache).  So each measurement has a cache of its own:
    filled by one unmeasured run of the whole workload, then read, not written, by
    the two counted runs (PYTHONDONTWRITEBYTECODE); with --no-code-cache both
    compile everything."""
    import tempfile
    counts = []
    with tempfile.TemporaryDirectory(prefix="quickening-bench-cache-") as private:
        cache_env = {"QUICKENING_CACHE": private}
        if not NO_CODE_CACHE and mode != "native":
            res = _run_child(python, name, mode, timeout, against=against, hash_seed="0",
                             extra_env=cache_env)
            if "error" in res:
                return res
            cache_env["PYTHONDONTWRITEBYTECODE"] = "1"
        for setup_only in (False, True):
            res = _run_child(python, name, mode, timeout * 100, against=against,
                             setup_only=setup_only, under=VALGRIND, hash_seed="0",
                             extra_env=cache_env)
            if "error" in res:
                return res
            counts.append(res["instructions"])
            if not setup_only:
                full = res
    full["instructions"] = (counts[0] - counts[1]) / 1e9
    return full


def _run_child(python, name, mode, timeout, tracemalloc=False, against=None, setup_only=False,
               under=(), hash_seed=None, extra_env=()):
    tmp = os.path.join(CACHE, "tmp", f"{name}-{mode}-{os.getpid()}.out")
    os.makedirs(os.path.dirname(tmp), exist_ok=True)
    if os.path.exists(tmp):
        os.unlink(tmp)
    env = dict(os.environ)
    # (children run as a user's Python does: bytecode files, and quickening's cache of
    # the code it generates, interp/codecache.py, written and read)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if NO_CODE_CACHE:
        env["QUICKENING_CODE_CACHE"] = "0"
    if mode in CHILD_MODE:
        env["PYTHONPATH"] = os.path.join(against, "src")
        mode = CHILD_MODE[mode]
    if hash_seed is not None:
        env["PYTHONHASHSEED"] = hash_seed
    env.update(extra_env)
    spec = json.dumps({"bench": name, "mode": mode, "tmp": tmp, "tracemalloc": tracemalloc,
                       "setup_only": setup_only})
    try:
        proc = subprocess.run([*under, python, os.path.abspath(__file__), "--child", spec],
                              capture_output=True, text=True, timeout=timeout, env=env)
    except FileNotFoundError:
        return {"error": f"cannot run {under[0] if under else python}: not installed"}
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout}s"}
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-25:])
        return {"error": f"exit status {proc.returncode}\n{tail}"}
    last = proc.stdout.strip().splitlines()[-1]
    out = json.loads(last)
    if under:
        count = instruction_count(proc.stderr)
        if count is None:
            return {"error": "valgrind printed no instruction count"}
        out["instructions"] = count
    return out


def instruction_count(stderr):
    """The instructions valgrind's summary line (`I refs:`) gives, or None."""
    refs = [line for line in stderr.splitlines() if "I   refs:" in line or "I refs:" in line]
    return int(refs[-1].rsplit(":", 1)[1].replace(",", "")) if refs else None


def geomean(values):
    values = [v for v in values if v and v > 0]
    if not values:
        return float("nan")
    return math.exp(sum(math.log(v) for v in values) / len(values))


def fmt_mb(kb):
    return "-" if kb is None else f"{kb / 1024:.0f}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", metavar="NAME",
                    help="run only this benchmark (repeatable, comma-separated allowed)")
    ap.add_argument("--repeat", type=int, default=3, metavar="N",
                    help="runs per mode, best time counts (default 3)")
    ap.add_argument("--no-specialize", action="store_true",
                    help="add a column interpreted with Interpreter(specialize=False)")
    ap.add_argument("--tracemalloc", action="store_true",
                    help="one more run per mode measuring the tracemalloc peak of the workload")
    ap.add_argument("--json", metavar="FILE", help="write all measurements as JSON")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per run (default 900)")
    ap.add_argument("--clock", choices=("cpu", "wall", "instructions"), default="cpu",
                    help="what to compare: process CPU time (default), wall-clock time, or "
                         "the workload's machine instructions under valgrind (slow, but "
                         "the same on a loaded machine; one run per mode is enough)")
    ap.add_argument("--python", default=sys.executable,
                    help="Python with quickening installed (default: this one)")
    ap.add_argument("--against", metavar="TREE",
                    help="also measure the interpreted modes with the quickening of TREE "
                         "(a checkout of another commit), interleaved with this tree's")
    ap.add_argument("--no-code-cache", action="store_true",
                    help="the interpreter compiles every source it generates in each run "
                         "(QUICKENING_CODE_CACHE=0) instead of taking earlier runs' code")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    opts = ap.parse_args(argv)
    global NO_CODE_CACHE
    NO_CODE_CACHE = opts.no_code_cache

    if opts.child:
        print(json.dumps(child(json.loads(opts.child))))
        return 0

    ensure_corpus(opts.python)
    names = list(BENCHMARKS)
    if opts.only:
        wanted = [n for item in opts.only for n in item.split(",") if n]
        unknown = [n for n in wanted if n not in BENCHMARKS]
        if unknown:
            ap.error(f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}")
        names = [n for n in names if n in wanted]
    modes = ["native", "interp"] + (["nospec"] if opts.no_specialize else [])
    if opts.against:
        if not os.path.isdir(os.path.join(opts.against, "src", "quickening")):
            ap.error(f"--against {opts.against}: no src/quickening there")
        modes += ["before"] + (["before-nospec"] if opts.no_specialize else [])

    results = {}
    started = time.perf_counter()
    fp_start, head = src_fingerprint(), git_head()
    for name in names:
        rec = results[name] = {m: {"runs": []} for m in modes}
        rec["status"] = "ok"
        for r in range(opts.repeat):
            for mode in modes:
                if "error" in rec[mode]:
                    continue
                res = run_child(opts.python, name, mode, opts.timeout, against=opts.against,
                                clock=opts.clock)
                if "error" in res:
                    rec[mode]["error"] = res["error"]
                    rec["status"] = "FAIL" if mode != "native" or rec["status"] == "ok" else rec["status"]
                    log(f"[{name}] {mode} run {r + 1}: FAILED: {res['error']}")
                    continue
                res["seconds"] = res[opts.clock]
                rec[mode]["runs"].append(res)
                log(f"[{name}] {mode} run {r + 1}/{opts.repeat}: {res['seconds']:.3f}{UNITS[opts.clock]} "
                    f"{opts.clock} "
                    f"digest {res['digest']} maxrss {fmt_mb(res['maxrss_kb'])} MB")
            if "error" in rec["native"]:
                break
        if opts.tracemalloc:
            for mode in modes:
                if rec[mode]["runs"]:
                    res = run_child(opts.python, name, mode, opts.timeout, tracemalloc=True)
                    rec[mode]["tracemalloc_peak"] = res.get("tracemalloc_peak")
                    log(f"[{name}] {mode} tracemalloc peak: {res.get('tracemalloc_peak')}")
        native_runs = rec["native"]["runs"]
        if native_runs:
            ref = native_runs[0]["digest"]
            rec["native_result"] = native_runs[0]["result"]
            for mode in modes:
                runs = rec[mode]["runs"]
                bad = [x for x in runs if x["digest"] != ref]
                if bad:
                    rec[mode]["mismatch"] = {"native": native_runs[0]["result"],
                                             mode: bad[0]["result"]}
                    rec["status"] = "MISMATCH"
                    log(f"[{name}] {mode}: MISMATCH native={native_runs[0]['result']!r} "
                        f"{mode}={bad[0]['result']!r}")
        for mode in modes:
            runs = rec[mode]["runs"]
            if runs:
                rec[mode]["best"] = min(x["seconds"] for x in runs)
                rec[mode]["maxrss_kb"] = max(x["maxrss_kb"] for x in runs)
                if mode != "native":
                    rec[mode]["specialize_option"] = runs[0].get("specialize_option")
                    rec[mode]["module"] = runs[0].get("module")

    fp_end = src_fingerprint()
    opts.src = {"git": head, "fingerprint_start": fp_start, "fingerprint_end": fp_end}
    report(results, modes, opts, time.perf_counter() - started)
    if opts.json:
        with open(opts.json, "w") as fh:
            json.dump({"python": opts.python, "repeat": opts.repeat, "clock": opts.clock, "src": opts.src,
                       "pyperformance": PYPERFORMANCE, "benchmarks": results},
                      fh, indent=1)
        log(f"wrote {opts.json}")
    return 0 if all(r["status"] == "ok" for r in results.values()) else 1


UNITS = {"cpu": "s", "wall": "s", "instructions": "G"}


def report(results, modes, opts, wall):
    spec = "nospec" in modes
    u = UNITS[opts.clock]
    head = ["benchmark", f"native {u}", f"interp {u}", "slowdown"]
    if spec:
        head += [f"no-spec {u}", "nospec/def"]
    against = "before" in modes
    if against:
        head += [f"before {u}", "after/before"] + ([f"bef no-spec {u}", "after/before"] if spec else [])
    head += ["rss nat MB", "rss int MB"]
    if opts.tracemalloc:
        head += ["tm nat KB", "tm int KB"]
    head += ["status"]
    rows = []
    ratios, spec_ratios, nospec_slow = [], [], []
    changes = {"before": [], "before-nospec": []}
    for name, rec in results.items():
        nat, itp = rec["native"].get("best"), rec["interp"].get("best")
        ok = rec["status"] == "ok"
        ratio = itp / nat if nat and itp else None
        row = [name, f"{nat:.3f}" if nat else "-", f"{itp:.3f}" if itp else "-",
               f"{ratio:.1f}x" if ratio else "-"]
        if ok and ratio:
            ratios.append(ratio)
        if spec:
            ns = rec["nospec"].get("best")
            sr = ns / itp if ns and itp else None
            row += [f"{ns:.3f}" if ns else "-", f"{sr:.2f}x" if sr else "-"]
            if ok and sr:
                spec_ratios.append(sr)
            if ns and nat:
                nospec_slow.append(ns / nat) if ok else None
        if against:
            for mode, now in (("before", "interp"), ("before-nospec", "nospec")):
                if mode not in modes:
                    continue
                was, new = rec[mode].get("best"), rec[now].get("best")
                change = new / was if was and new else None
                row += [f"{was:.3f}" if was else "-", f"{change:.3f}" if change else "-"]
                if ok and change:
                    changes[mode].append(change)
        row += [fmt_mb(rec["native"].get("maxrss_kb")), fmt_mb(rec["interp"].get("maxrss_kb"))]
        if opts.tracemalloc:
            tn, ti = rec["native"].get("tracemalloc_peak"), rec["interp"].get("tracemalloc_peak")
            row += [f"{tn / 1024:.0f}" if tn is not None else "-", f"{ti / 1024:.0f}" if ti is not None else "-"]
        row += [rec["status"]]
        rows.append(row)
    gm = ["geomean", "", "", f"{geomean(ratios):.1f}x"]
    if spec:
        gm += ["", f"{geomean(spec_ratios):.2f}x"]
    if against:
        gm += ["", f"{geomean(changes['before']):.3f}"]
        if spec:
            gm += ["", f"{geomean(changes['before-nospec']):.3f}"]
    gm += [""] * (len(head) - len(gm))
    widths = [max(len(str(r[i])) for r in [head, gm] + rows) for i in range(len(head))]

    def line(r):
        return "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                         for i, (c, w) in enumerate(zip(r, widths)))
    print(line(head))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(line(r))
    print("  ".join("-" * w for w in widths))
    print(line(gm))
    print()
    what = ("machine instructions of the workload call (valgrind; G = 1e9)"
            if opts.clock == "instructions" else f"{opts.clock} time")
    print(f"python {sys.version.split()[0]} ({opts.python}); {what}, best of "
          f"{opts.repeat} fresh-process runs per mode, interleaved; geomean over {len(ratios)} matching benchmark(s); "
          f"wall {wall:.0f}s")
    if spec:
        opt = {rec["nospec"].get("specialize_option") for rec in results.values()} - {None}
        print(f"no-spec mode: {', '.join(sorted(opt)) or '-'}; "
              f"no-spec geomean slowdown vs native {geomean(nospec_slow):.1f}x")
    src = opts.src
    print(f"quickening at {src['git']}, sources {src['fingerprint_start']}"
          + ("" if src["fingerprint_start"] == src["fingerprint_end"] else
             f" -> {src['fingerprint_end']} (WARNING: src changed during the run)"))
    if against:
        where = {rec["before"].get("module") for rec in results.values()} - {None}
        print(f"before = {opts.against} (imported from {', '.join(sorted(where)) or '-'}); "
              "after/before = this tree's best time / that tree's (< 1: this tree is faster)")
    print("code cache (interp/codecache.py): " + (
        "off (--no-code-cache)" if opts.no_code_cache
        else "on: each count reads a private cache filled by one unmeasured run"
        if opts.clock == "instructions"
        else "on: a tree that has one takes earlier runs' generated code"))
    print("rss = ru_maxrss of the whole process (interpreter start-up included)"
          + ("; tm = tracemalloc peak of the workload call" if opts.tracemalloc else ""))
    for name, rec in results.items():
        for mode in modes:
            if "error" in rec[mode]:
                print(f"\n{name} [{mode}] failed:\n{rec[mode]['error']}")
            if "mismatch" in rec[mode]:
                print(f"\n{name} [{mode}] result differs from native: {rec[mode]['mismatch']}")


if __name__ == "__main__":
    sys.exit(main())
