"""Workload names the user can give instead of a path.

``pyperformance:NAME`` runs one of pyperformance 1.14.0's pure-Python
benchmark programs without pyperf: the wheel is fetched at run time with
``pip download`` into a cache folder (``$QUICKENING_CACHE``, else
``~/.cache/quickening``), the program is imported with a tiny stand-in
``pyperf`` module and its workload function is called directly, with the
sizes from the project's corpus notes.

``loop:NAME`` names one of the short loops shipped with quickening (the ones
the ``jit`` experiment uses).
"""

import os
from pathlib import Path
import subprocess
import sys
import zipfile

from quickening.measure.runner import MeasureError

PYPERFORMANCE_VERSION = "1.14.0"
LOOPS_DIR = Path(__file__).with_name("workloads")

# name -> (setup statements, call expression, result expression or None)
PYPERFORMANCE = {
    "richards": ("", "Richards().run(3)", None),
    "deltablue": ("", "delta_blue(5000)", None),
    "nbody": ("", "bench_nbody(1, 'sun', 20000)", "round(report_energy(), 9)"),
    # float's benchmark() returns a Point: digest its coordinates, not its repr.
    "float": ("def _qk_point(p):\n    return (round(p.x, 9), round(p.y, 9), round(p.z, 9))\n",
              "_qk_point(benchmark(100000))", None),
    "fannkuch": ("", "fannkuch(8)", None),
    "nqueens": ("", "len(list(n_queens(8)))", None),
    "spectral_norm": ("DEFAULT_N = 100", "bench_spectral_norm(1)", "None"),
    "generators": ("", "bench_generators(1)", "None"),
    "coroutines": ("", "bench_coroutines(1)", "None"),
    "raytrace": ("", "bench_raytrace(1, 50, 50, None)", "None"),
}


def cache_dir() -> Path:
    return Path(os.environ.get("QUICKENING_CACHE") or Path.home() / ".cache" / "quickening")


def pyperformance_root(progress_note=None) -> Path:
    """The extracted benchmarks folder, fetching the wheel once if needed."""
    base = cache_dir() / f"pyperformance-{PYPERFORMANCE_VERSION}"
    bench = base / "pyperformance" / "data-files" / "benchmarks"
    if bench.is_dir():
        return bench
    base.mkdir(parents=True, exist_ok=True)
    wheels = list(base.glob("pyperformance-*.whl"))
    if not wheels:
        if progress_note:
            progress_note(f"fetching pyperformance {PYPERFORMANCE_VERSION} into {base}")
        proc = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                               f"pyperformance=={PYPERFORMANCE_VERSION}", "-d", str(base)],
                              capture_output=True, text=True)
        wheels = list(base.glob("pyperformance-*.whl"))
        if proc.returncode != 0 or not wheels:
            last = (proc.stderr.strip().splitlines() or ["pip failed"])[-1]
            raise MeasureError(f"could not fetch pyperformance {PYPERFORMANCE_VERSION}: {last}")
    with zipfile.ZipFile(wheels[0]) as zf:
        members = [m for m in zf.namelist() if m.startswith("pyperformance/data-files/benchmarks/")]
        zf.extractall(base, members)
    if not bench.is_dir():
        raise MeasureError(f"the pyperformance wheel in {base} has no benchmarks folder")
    return bench


def loop_names() -> list:
    return sorted(p.stem for p in LOOPS_DIR.glob("*.py") if not p.stem.startswith("_"))


def resolve_workload(ref: str, progress_note=None) -> tuple:
    """(display name, child spec) for a workload argument."""
    if ref.startswith("pyperformance:"):
        name = ref.split(":", 1)[1]
        if name not in PYPERFORMANCE:
            raise MeasureError(f"unknown pyperformance workload {name!r}; known: "
                               + ", ".join(sorted(PYPERFORMANCE)))
        bench = pyperformance_root(progress_note)
        path = bench / f"bm_{name}" / "run_benchmark.py"
        if not path.is_file():
            raise MeasureError(f"{path} is missing from the pyperformance wheel")
        setup, call, result = PYPERFORMANCE[name]
        spec = {"path": str(path), "mode": "call", "module_name": f"bm_{name}",
                "stub_pyperf": True, "setup": setup, "call": call, "result": result}
        return f"pyperformance:{name}", spec
    if ref.startswith("loop:"):
        name = ref.split(":", 1)[1]
        path = LOOPS_DIR / f"{name}.py"
        if not path.is_file():
            raise MeasureError(f"unknown loop {name!r}; known: " + ", ".join(loop_names()))
        return f"loop:{name}", {"path": str(path), "mode": "auto"}
    path = Path(os.path.expanduser(ref))
    if path.is_dir():
        # like `python DIR`: the directory's __main__.py is the program
        if not (path / "__main__.py").is_file():
            raise MeasureError(f"workload {ref}: can't find '__main__' module in the directory")
        return str(path), {"path": str((path / "__main__.py").resolve()), "mode": "auto"}
    if not path.is_file():
        raise MeasureError(f"workload not found: {ref} (a .py file, pyperformance:NAME or loop:NAME)")
    return str(path), {"path": str(path.resolve()), "mode": "auto"}
