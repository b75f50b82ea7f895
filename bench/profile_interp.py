"""cProfile the interpreted run of one benchmark of bench/interp_speed.py.

    .venv/bin/python bench/profile_interp.py richards [--top 15] [--sort tottime]
"""

import argparse
import cProfile
import os
import pstats
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import interp_speed  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bench")
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--sort", default="tottime")
    ap.add_argument("--no-specialize", action="store_true")
    opts = ap.parse_args()
    interp_speed.ensure_corpus(sys.executable)
    kind, modname, driver = interp_speed.BENCHMARKS[opts.bench]
    path = interp_speed.module_path(kind, modname)
    sys.path.insert(0, interp_speed.STUB_DIR)
    from quickening import api
    execute, invoke, how = interp_speed._interpreter_entry(
        api, "nospec" if opts.no_specialize else "interp")
    module = types.ModuleType(f"bm_{opts.bench}")
    module.__file__ = path
    sys.modules[module.__name__] = module
    with open(path, "rb") as fh:
        execute(compile(fh.read(), path, "exec"), module.__dict__)
    execute(compile(driver, f"<driver {opts.bench}>", "exec"), module.__dict__)
    ns = module.__dict__
    tmp = os.path.join(interp_speed.CACHE, "tmp", f"profile-{os.getpid()}.out")
    os.makedirs(os.path.dirname(tmp), exist_ok=True)
    args = invoke(ns["__bench_setup__"], tmp) if "__bench_setup__" in ns else ()
    prof = cProfile.Profile()
    prof.enable()
    result = invoke(ns["__bench_run__"], *args)
    prof.disable()
    if os.path.exists(tmp):
        os.unlink(tmp)
    print(f"result: {result!r:.100}", file=sys.stderr)
    stats = pstats.Stats(prof)
    stats.sort_stats(opts.sort).print_stats(opts.top)


if __name__ == "__main__":
    main()
