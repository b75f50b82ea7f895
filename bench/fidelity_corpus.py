"""Fidelity over the bench corpus: `quickening fidelity` on every benchmark.

    python bench/fidelity_corpus.py [--only NAME]... [--json FILE]

Each benchmark of bench/interp_speed.py's corpus, and each of EXTRA below,
becomes a small program (the benchmark module next to a main script that runs
its workload once), and
`quickening fidelity` compares, site by site, the forms, counters and decoded
cache cells CPython and the interpreter leave.  Prints one line per benchmark and the total share
of agreeing executed sites, with every disagreement.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import interp_speed as speed  # noqa: E402

MAIN = '''
import os, sys, tempfile
import bench_module as m
exec({driver!r}, m.__dict__)
tmp = os.path.join(tempfile.mkdtemp(), "out")
args = m.__bench_setup__(tmp) if "__bench_setup__" in m.__dict__ else ()
m.__bench_run__(*args)
'''


# More programs for fidelity only (not timed by interp_speed.py): other
# pyperformance benchmarks, and programs of our own given as source text
# (kind "source": the module is the text itself, run by importing it).
EXTRA = {
    "go": ("pyperformance", "go", """
def __bench_run__():
    import random
    random.seed(1)
    versus_cpu()
"""),
    "hexiom": ("pyperformance", "hexiom", """
def __bench_run__():
    return main(1, 10)
"""),
    "richards_super": ("pyperformance", "richards_super", """
def __bench_run__():
    return Richards().run(1)
"""),
    "unpack_sequence": ("pyperformance", "unpack_sequence", """
def __bench_run__():
    return bench_all(20)
"""),
    "deepcopy": ("pyperformance", "deepcopy", """
def __bench_run__():
    benchmark(2)
    benchmark_reduce(2)
    benchmark_memo(2)
"""),
    "typing_protocols": ("pyperformance", "typing_runtime_protocols", """
def __bench_run__():
    return bench_protocols(3)
"""),
    # deep and oscillating recursion through every member that pushes a frame:
    # the data stack's chunk boundaries decide which calls miss
    "recursion": ("source", """
import sys
sys.setrecursionlimit(4000)
def deep(n):
    if n == 0:
        return 0
    return deep(n - 1) + 1
class K:
    def walk(self, n):
        return 0 if n == 0 else self.walk(n - 1) + 1
    @property
    def p(self):
        return self
    def down(self, n):
        return 0 if n == 0 else self.p.down(n - 1) + 1
    def __getitem__(self, n):
        return 0 if n == 0 else self[n - 1] + 1
class Node:
    def __init__(self, n):
        self.child = Node(n - 1) if n else None
def gen(n):
    yield deep(n)
for d in range(100, 300):
    deep(d)
for d in range(60, 300, 2):
    K().walk(d)
    K()[d]
for d in range(60, 300, 3):
    K().down(d)
    Node(d)
    sum(gen(d))
deep(3000)
""", """
def __bench_run__():
    pass
"""),
}
BENCHMARKS = {**speed.BENCHMARKS, **EXTRA}


def run_one(name, python):
    kind, module, driver = BENCHMARKS[name]
    with tempfile.TemporaryDirectory() as work:
        if kind == "source":
            with open(os.path.join(work, "bench_module.py"), "w") as fh:
                fh.write(module)
        else:
            shutil.copy(speed.module_path(kind, module), os.path.join(work, "bench_module.py"))
        shutil.copy(os.path.join(speed.STUB_DIR, "pyperf.py"), os.path.join(work, "pyperf.py"))
        with open(os.path.join(work, "main.py"), "w") as fh:
            fh.write(MAIN.format(driver=driver))
        report = os.path.join(work, "fidelity.json")
        proc = subprocess.run([python, "-m", "quickening", "fidelity", "--json", report, "main.py"],
                              cwd=work, capture_output=True, text=True)
        if not os.path.exists(report):
            raise RuntimeError(f"{name}: fidelity failed\n{proc.stderr[-2000:]}")
        with open(report) as fh:
            data = json.load(fh)
        for d in data["disagreements"]:
            d["site"] = d["site"].replace(work + os.sep, "")
        return data


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append")
    parser.add_argument("--json")
    opts = parser.parse_args(argv)
    speed.ensure_corpus(sys.executable)
    names = opts.only or list(BENCHMARKS)
    total_sites = total_agree = 0
    results = {}
    for name in names:
        data = run_one(name, sys.executable)
        results[name] = data
        total_sites += data["sites"]
        total_agree += data["agreeing"]
        share = 100.0 * data["agreeing"] / data["sites"] if data["sites"] else 100.0
        print(f"{name:<14} {data['agreeing']:>5}/{data['sites']:<5} {share:6.2f}%", flush=True)
        for d in data["disagreements"]:
            print(f"    {d['site']}: cpython {d['cpython']} interpreter {d['interpreter']}")
    share = 100.0 * total_agree / total_sites if total_sites else 100.0
    print(f"{'all':<14} {total_agree:>5}/{total_sites:<5} {share:6.2f}%")
    if opts.json:
        with open(opts.json, "w") as fh:
            json.dump({"benchmarks": results, "sites": total_sites, "agreeing": total_agree}, fh,
                      indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
