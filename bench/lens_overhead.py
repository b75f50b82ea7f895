"""Overhead of `quickening watch`: a watched run vs the plain native run.

Not a test.  For each workload the plain run (``python prog``) and the
watched run (the same command with the lens agent injected, sampling at the
default interval) are run in interleaved pairs (A B, B A, A B, ...) and their
process wall times compared: the median of the per-pair ratios is the figure
(target <= 1.05x, --target).  The outputs of both runs must match before a
time counts.  The parent-side analysis time (decoding samples, building the
report) is shown separately: it happens after the program has finished.

--python chooses the interpreter; --jit runs both sides with PYTHON_JIT=1
(without it PYTHON_JIT is taken out of their environment).  Every run goes
through a small start script that asks ``sys._jit.is_enabled()`` from inside
the program (the JIT is not yet on while ``site`` runs) and then executes the
workload as ``__main__``; a run whose JIT state is not the one asked for
stops the bench.

Workloads: the programs in bench/lens_workloads/ and, unless
--no-pyperformance, a few pyperformance benchmarks (fetched with
``pip download --no-deps pyperformance==1.14.0`` into bench/.cache/ on first
use, driven without pyperf through a stand-in module).

    .venv/bin/python bench/lens_overhead.py [--python PATH] [--jit] [--pairs 7]
"""

import argparse
import math
import resource
import os
import statistics
import subprocess
import sys
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "src"))

from quickening.lens import analyze, runner  # noqa: E402

CACHE = os.path.join(HERE, ".cache")
WHEEL_NAME = "pyperformance-1.14.0-py3-none-any.whl"

# name -> (module expression to run after loading the benchmark as `bm`)
PYPERFORMANCE = {
    "richards": "print(bm.Richards().run(12))",
    "nbody": "bm.bench_nbody(1, 'sun', 60000); print(round(bm.report_energy(), 9))",
    "float": "print(bm.benchmark(200000))",
    "fannkuch": "print(bm.fannkuch(9))",
    "deltablue": "bm.delta_blue(20000); print('ok')",
    "nqueens": "print(len(list(bm.n_queens(8))))",
}

STUB_PYPERF = '''"""Stand-in for pyperf: enough for the benchmark modules to import."""
import time
perf_counter = time.perf_counter


class Runner(object):
    def __init__(self, *a, **k):
        raise RuntimeError("pyperf stand-in: no Runner")
'''

DRIVER = '''import importlib.util, sys
sys.path.insert(0, {stub!r})
spec = importlib.util.spec_from_file_location("bm_{name}", {path!r})
bm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bm)
{call}
'''


# Runs the workload given as its first argument as __main__ of this process,
# after writing the JIT state seen from inside the program to the file named
# by the environment (asked here, not in site, where the JIT is not on yet).
START_SCRIPT = '''import os, sys
_report = os.environ.pop("QUICKENING_BENCH_JIT_REPORT", None)
_jit = getattr(sys, "_jit", None)
if _report:
    with open(_report, "w") as _f:
        _f.write("absent" if _jit is None else ("on" if _jit.is_enabled() else "off"))
del sys.argv[0]
__file__ = sys.argv[0]
sys.path[0] = os.path.dirname(os.path.abspath(__file__))
with open(__file__, "rb") as _f:
    _code = compile(_f.read(), __file__, "exec")
del os, sys, _report, _jit, _f
exec(_code)
'''


def start_script():
    os.makedirs(CACHE, exist_ok=True)
    path = os.path.join(CACHE, "start_checking_jit.py")
    with open(path, "w") as f:
        f.write(START_SCRIPT)
    return path


def child_base_env(jit):
    """The environment both sides start from: PYTHON_JIT=1 with --jit,
    without PYTHON_JIT otherwise (the builds' default, off)."""
    env = dict(os.environ)
    env.pop("PYTHON_JIT", None)
    if jit:
        env["PYTHON_JIT"] = "1"
    return env


class JitStateWrong(Exception):
    pass


def _checked_jit_state(report, expected):
    """The JIT state the run wrote; raises JitStateWrong if it is not
    ``expected`` ("on", or "off"/"absent" for a run without --jit)."""
    try:
        with open(report) as f:
            state = f.read().strip()
    except OSError:
        state = "unreported"
    finally:
        try:
            os.unlink(report)
        except OSError:
            pass
    ok = state == "on" if expected == "on" else state in ("off", "absent")
    if not ok:
        raise JitStateWrong("JIT state inside the run is %r, expected %r" % (state, expected))
    return state


def _jit_report_path():
    import tempfile
    fd, path = tempfile.mkstemp(suffix=".jit")
    os.close(fd)
    os.unlink(path)
    return path


def ensure_pyperformance(names):
    os.makedirs(CACHE, exist_ok=True)
    wheel = os.path.join(CACHE, WHEEL_NAME)
    if not os.path.exists(wheel):
        r = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps",
                            "pyperformance==1.14.0", "-d", CACHE],
                           capture_output=True, text=True)
        if r.returncode != 0 or not os.path.exists(wheel):
            print("note: could not fetch pyperformance (%s); skipping it"
                  % (r.stderr.strip().splitlines() or ["?"])[-1], file=sys.stderr)
            return {}
    stub = os.path.join(CACHE, "stub")
    os.makedirs(stub, exist_ok=True)
    with open(os.path.join(stub, "pyperf.py"), "w") as f:
        f.write(STUB_PYPERF)
    out = {}
    z = zipfile.ZipFile(wheel)
    for name in names:
        member = "pyperformance/data-files/benchmarks/bm_%s/run_benchmark.py" % name
        try:
            src = z.read(member)
        except KeyError:
            continue
        d = os.path.join(CACHE, "bm_%s" % name)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "run_benchmark.py")
        with open(path, "wb") as f:
            f.write(src)
        drv = os.path.join(CACHE, "drive_%s.py" % name)
        with open(drv, "w") as f:
            f.write(DRIVER.format(stub=stub, name=name, path=path,
                                  call=PYPERFORMANCE[name]))
        out["pyperf:" + name] = drv
    return out


def _child_cpu():
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def plain_run(cmd, base_env, expected_jit):
    report = _jit_report_path()
    env = dict(base_env, QUICKENING_BENCH_JIT_REPORT=report)
    c0 = _child_cpu()
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, env=env)
    wall = time.perf_counter() - t0
    r.cpu = _child_cpu() - c0
    r.jit = _checked_jit_state(report, expected_jit) if r.returncode == 0 else None
    return wall, r


def watched_run(cmd, interval, base_env, expected_jit):
    import tempfile
    fd, path = tempfile.mkstemp(suffix=".lens")
    os.close(fd)
    out_path = path + ".out"
    report = _jit_report_path()
    env = dict(base_env, QUICKENING_BENCH_JIT_REPORT=report)
    addrs = runner.addresses_file()
    e = runner.child_env(path, interval, "user", env, runner.agent_files(cmd[0]), addrs)
    c0 = _child_cpu()
    t0 = time.perf_counter()
    # as `quickening watch` runs it: the parent reads the code streams from
    # outside while it waits (its own CPU is not the child's: shown apart)
    p0 = time.process_time()
    with open(out_path, "wb") as out, open(os.devnull, "wb") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=e)
        rc = runner.wait_reading(proc, addrs, path)
    wall = time.perf_counter() - t0
    r = subprocess.CompletedProcess(cmd, rc)
    r.cpu = _child_cpu() - c0
    r.jit = _checked_jit_state(report, expected_jit) if rc == 0 else None
    r.parent_cpu = time.process_time() - p0
    with open(out_path, "rb") as f:
        stdout = f.read()
    os.unlink(out_path)
    t1 = time.perf_counter()
    run = analyze.RunData.load(path)
    rep = analyze.analyze(run)
    t_an = time.perf_counter() - t1
    os.unlink(path)
    r.stdout = stdout
    return wall, r, t_an, rep


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--jit", action="store_true",
                    help="run both sides with PYTHON_JIT=1 (checked from inside each run)")
    ap.add_argument("--target", type=float, default=1.05,
                    help="the ratio a workload should stay within (default 1.05)")
    ap.add_argument("--pairs", type=int, default=7)
    ap.add_argument("--interval", type=float, default=runner.DEFAULT_INTERVAL_MS)
    ap.add_argument("--no-pyperformance", action="store_true")
    ap.add_argument("--only", action="append", default=[])
    a = ap.parse_args()

    work = {}
    wdir = os.path.join(HERE, "lens_workloads")
    for fn in sorted(os.listdir(wdir)):
        if fn.endswith(".py"):
            work[fn[:-3]] = os.path.join(wdir, fn)
    if not a.no_pyperformance:
        work.update(ensure_pyperformance(list(PYPERFORMANCE)))
    if a.only:
        work = {k: v for k, v in work.items() if any(o in k for o in a.only)}

    base_env = child_base_env(a.jit)
    expected_jit = "on" if a.jit else "off"
    start = start_script()
    version = subprocess.run([a.python, "-c", "import sys; print(sys.version.split()[0])"],
                             capture_output=True, text=True).stdout.strip()
    print("lens overhead: CPython %s (%s), %s, interval %g ms, %d interleaved pairs, "
          "median of per-pair ratios" % (version, a.python,
                                         "PYTHON_JIT=1" if a.jit else "PYTHON_JIT unset",
                                         a.interval, a.pairs))
    # the state a program of these runs sees (each timed run checks its own)
    empty = os.path.join(CACHE, "empty_workload.py")
    with open(empty, "w") as f:
        f.write("pass\n")
    _, probe = plain_run([a.python, start, empty], base_env, expected_jit)
    print("JIT inside the runs: %s" % probe.jit)
    print("%-20s %9s %9s %7s %15s %9s %8s %9s %6s %11s" % (
        "workload", "plain s", "watched s", "ratio", "pair range", "cpu ratio",
        "samples", "analyze s", "sites", "parent cpu"))
    ratios_all = []
    cpu_all = []
    for name, path in work.items():
        cmd = [a.python, start, path]
        # one untimed run of each (page cache, pyc files)
        _, p0 = plain_run(cmd, base_env, expected_jit)
        if p0.returncode != 0:
            print("%-20s failed natively: %s" % (name, p0.stderr.decode()[-200:]))
            continue
        watched_run(cmd, a.interval, base_env, expected_jit)
        plain, watched, ratios, analyses, samples, nsites = [], [], [], [], [], []
        parent = []
        cpu_ratios = []
        for i in range(a.pairs):
            order = (0, 1) if i % 2 == 0 else (1, 0)
            res = {}
            for which in order:
                if which == 0:
                    res[0] = plain_run(cmd, base_env, expected_jit)
                else:
                    res[1] = watched_run(cmd, a.interval, base_env, expected_jit)
            tp, rp = res[0]
            tw, rw, t_an, rep = res[1]
            if rp.stdout != rw.stdout or rp.returncode != rw.returncode:
                print("%-20s OUTPUT DIFFERS under watch: %r vs %r" % (
                    name, rp.stdout[-100:], rw.stdout[-100:]))
                break
            plain.append(tp)
            watched.append(tw)
            ratios.append(tw / tp)
            cpu_ratios.append(rw.cpu / rp.cpu if rp.cpu > 0 else 1.0)
            analyses.append(t_an)
            parent.append(rw.parent_cpu)
            samples.append(rep.info["samples"])
            nsites.append(len(rep.sites))
        else:
            r = statistics.median(ratios)
            ratios_all.append(r)
            cpu_all.append(statistics.median(cpu_ratios))
            print("%-20s %9.3f %9.3f %6.3fx %7.3f-%6.3f %8.3fx %8d %9.3f %6d %9.1fms%s" % (
                name, statistics.median(plain), statistics.median(watched), r,
                min(ratios), max(ratios), cpu_all[-1], int(statistics.median(samples)),
                statistics.median(analyses), max(nsites), 1000 * statistics.median(parent),
                "  ABOVE TARGET" if r > a.target else ""))
    if ratios_all:
        g = math.exp(sum(math.log(x) for x in ratios_all) / len(ratios_all))
        gc = math.exp(sum(math.log(x) for x in cpu_all) / len(cpu_all))
        print("wall: geometric mean of medians %.3fx, worst %.3fx (target <= %.2fx); "
              "cpu: geometric mean %.3fx" % (g, max(ratios_all), a.target, gc))


if __name__ == "__main__":
    try:
        main()
    except JitStateWrong as e:
        sys.exit("lens_overhead: %s" % e)
