"""Real libraries' own test suites, natively and with the library interpreted.

    python bench/real_suites.py [--only NAME]... [--max-tests N | --all-tests]
                                [-k EXPR] [--json FILE] [--timeout S] [--cache DIR]
                                [--host-python PATH] [--list]

For each library of LIBRARIES (pure-Python, pinned versions):

  1. a venv of its own under the cache dir (~/.cache/quickening/real-suites by
     default), made with the host CPython 3.13, gets pytest, the libraries and
     their test dependencies, all pinned (REQUIREMENTS);
  2. the library's source distribution (`pip download --no-binary :all:
     --no-deps NAME==VER`) is unpacked into the cache: it carries the test suite;
  3. the suite is collected natively and the tests to run are chosen: minus
     the deselections of LIBRARIES (each with its reason), then at most
     --max-tests of them (each library's default in LIBRARIES, spread evenly
     over the suite), written to a pytest args file so both runs get the same;
  4. pytest runs them natively, then as `python -m quickening run --interpret
     PKG ... --stats-json FILE -m pytest ...` (only the library's own modules
     are interpreted: pytest and the test files run natively and call into
     them), each run writing a JUnit XML report;
  5. the per-test outcomes (passed, failed, error, skipped, xfailed) are
     compared, and the wall times and the interpreter's escapes (interpreted
     code that ran natively anyway, from --stats-json) are reported.

Prints a plain-text table and every differing test (with the interpreted
run's message), and writes the whole result as JSON (--json, default
real-suites.json in the current directory).  Exit 0 when every test's
outcome is the same in both runs, 1 otherwise, 2 on bad input.

The quickening that runs is this checkout's (its src/ put on PYTHONPATH of
the interpreted run only); the library venv never has quickening installed.
"""

import argparse
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import xml.etree.ElementTree as ET
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
QUICKENING_SRC = os.path.join(REPO, "src")
DEFAULT_CACHE = os.path.join(os.path.expanduser("~"), ".cache", "quickening", "real-suites")

# What the suites venv holds, pinned: pytest, the libraries, their test needs.
REQUIREMENTS = [
    "pytest==9.2.0",
    "more-itertools==11.2.1",
    "pyparsing==3.3.3",
    "jinja2==3.1.6",
    "markupsafe==3.0.4",
    "attrs==26.1.0",
    "six==1.17.0",
    "tomlkit==0.15.2",
    "wcwidth==0.9.4",
    "toolz==1.2.0",
    "boltons==26.2.0",
    "python-dateutil==4.0.0",
    # test dependencies of the suites above
    "hypothesis==6.170.17",
    "sortedcontainers==2.4.0",
    "freezegun==1.5.5",
    "trio==0.35.0",
    "cloudpickle==3.1.3",
    "pympler==1.1",
]


@dataclasses.dataclass
class Library:
    """One library: where its suite comes from and how it is run."""
    dist: str                    # the PyPI name
    version: str
    interpret: list              # module patterns given to --interpret
    exercises: str               # what it exercises, for the reader
    tests: list                  # test paths, relative to the unpacked sdist
    pytest_args: list = dataclasses.field(default_factory=list)
    # node id, or a prefix of node ids (a file, a class), -> why it is not run
    deselect: dict = dataclasses.field(default_factory=dict)
    max_tests: int = 200         # the default sample size (None: all)
    env: dict = dataclasses.field(default_factory=dict)  # for both runs
    source_dir: str = None       # a local directory instead of the sdist (tests)


# Common arguments: no cache dir written into the sdist, no plugin autoload
# surprises from the venv, warnings as the suite's own config says.
COMMON_PYTEST_ARGS = ["-p", "no:cacheprovider", "-q", "-rN", "--color=no"]

LIBRARIES = {
    "more-itertools": Library(
        "more-itertools", "11.2.1", ["more_itertools"],
        "iterator toolkit: generators, itertools, closures, unittest subTest",
        ["tests"], max_tests=120),
    "pyparsing": Library(
        "pyparsing", "3.3.3", ["pyparsing"],
        "parser combinators: deep recursion, packrat caching, exceptions carrying locations",
        ["tests"], max_tests=80,
        deselect={
            "tests/test_diagram.py": "needs railroad-diagrams (optional extra), not installed",
            "tests/test_matplotlib_cases.py": "needs matplotlib, not installed in the suites venv",
            "tests/test_examples.py": "runs the examples/ scripts: minutes natively",
            # random stress tests: each 10-70 s natively on this machine, hours interpreted
            "::testNestedExpressionRandom": "random stress test, 10-70 s natively",
            "tests/test_util.py::test_make_compressed_re_random": "random stress test, 70 s natively",
            "::testNumericExpressions": "8-12 s natively per packrat variant",
            "::testUpcaseDowncaseUnicode": "8-11 s natively per packrat variant",
            "::testParseJSONData": "up to 12 s natively per packrat variant",
        }),
    "jinja2": Library(
        "jinja2", "3.1.6", ["jinja2", "markupsafe"],
        "template engine: compiles templates to Python code, rewrites tracebacks, async",
        ["tests"], max_tests=200),
    "markupsafe": Library(
        "markupsafe", "3.0.4", ["markupsafe"],
        "str subclass with escaping (its C speedups stay native; the pure fallback is interpreted)",
        ["tests"], max_tests=None),
    "attrs": Library(
        "attrs", "26.1.0", ["attr", "attrs"],
        "class generation: exec'd generated methods, descriptors, __slots__, hypothesis",
        ["tests"], max_tests=60),
    "six": Library(
        "six", "1.17.0", ["six"],
        "compatibility shims: meta-path importer, metaclasses, reraise with tracebacks",
        ["test_six.py"], max_tests=None),
    "tomlkit": Library(
        "tomlkit", "0.15.2", ["tomlkit"],
        "TOML parser and writer: string scanning, dict/list subclasses",
        ["tests"], max_tests=250),
    "wcwidth": Library(
        "wcwidth", "0.9.4", ["wcwidth"],
        "text processing: unicode tables, bisection, lru_cache",
        ["tests"], max_tests=250,
        # tox.ini's addopts asks for pytest-cov and doctest-modules over the package
        pytest_args=["-o", "addopts="],
        # the pure-Python implementation (its conftest checks the C one is loaded otherwise)
        env={"WCWIDTH_PYTHON": "1"},
        deselect={
            "tests/test_benchmarks.py": "needs pytest-benchmark; timing, not outcomes",
            "tests/test_check_release.py": "checks the release's files against the network/git tree",
        }),
    "toolz": Library(
        "toolz", "1.2.0", ["toolz", "tlz"],
        "functional toolkit: currying, introspection of signatures, dict utilities",
        ["toolz/tests"], max_tests=None),
    "boltons": Library(
        "boltons", "26.2.0", ["boltons"],
        "grab bag: caches, data structures, traceback and function-signature utilities",
        ["tests"], max_tests=150),
    "python-dateutil": Library(
        "python-dateutil", "4.0.0", ["dateutil"],
        "dates: parser state machines, tzinfo subclasses, rrule generators",
        ["tests"], max_tests=150,
        # pytest-cov's no_cover marker is unknown here and the suite makes warnings errors
        pytest_args=["-W", "ignore::pytest.PytestUnknownMarkWarning"]),
}


# ---------------------------------------------------------------------------
# environment


class Failure(Exception):
    """A step that cannot go on; its message is the one line printed."""


def _log(message):
    print(message, file=sys.stderr, flush=True)


def find_host_python(given):
    if given:
        return given
    if sys.version_info[:2] == (3, 13):
        return sys.executable
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    versions = os.path.join(root, "versions")
    for name in sorted(os.listdir(versions)) if os.path.isdir(versions) else ():
        candidate = os.path.join(versions, name, "bin", "python3.13")
        if name.startswith("3.13") and os.path.exists(candidate):
            return candidate
    found = shutil.which("python3.13")
    if not found:
        raise Failure("CPython 3.13 not found (give --host-python)")
    return found


def ensure_venv(cache, host_python):
    """The suites venv, made once and re-synced when REQUIREMENTS change."""
    venv = os.path.join(cache, "venv")
    python = os.path.join(venv, "bin", "python")
    stamp = os.path.join(venv, ".requirements")
    wanted = "\n".join(REQUIREMENTS) + "\n"
    if os.path.exists(stamp) and open(stamp).read() == wanted:
        return python
    if not os.path.exists(python):
        _log(f"real-suites: making the suites venv {venv} with {host_python}")
        _checked([host_python, "-m", "venv", venv], "making the venv")
    _log("real-suites: installing the pinned libraries and test dependencies")
    _checked([python, "-m", "pip", "install", "--quiet", *REQUIREMENTS], "pip install")
    with open(stamp, "w") as fh:
        fh.write(wanted)
    return python


def _checked(argv, what, **kwargs):
    out = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    if out.returncode != 0:
        tail = (out.stderr or out.stdout).strip().splitlines()[-1:] or ["(no output)"]
        raise Failure(f"{what} failed (exit {out.returncode}): {tail[0]}")
    return out


def ensure_source(cache, python, lib):
    """The unpacked source distribution of `lib` (its test suite's home)."""
    if lib.source_dir:
        return lib.source_dir
    sdists = os.path.join(cache, "sdists")
    unpacked_root = os.path.join(cache, "src")
    stem = f"{lib.dist}-{lib.version}"
    target = os.path.join(unpacked_root, stem)
    if os.path.isdir(target):
        return target
    os.makedirs(sdists, exist_ok=True)
    archive = _find_archive(sdists, lib)
    if archive is None:
        _log(f"real-suites: downloading the source distribution of {lib.dist}=={lib.version}")
        _checked([python, "-m", "pip", "download", "--quiet", "--no-binary", ":all:",
                  "--no-deps", f"{lib.dist}=={lib.version}", "-d", sdists], "pip download")
        archive = _find_archive(sdists, lib)
        if archive is None:
            raise Failure(f"pip download gave no source archive for {lib.dist}=={lib.version}")
    scratch = target + ".partial"
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    if archive.endswith(".zip"):
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(scratch)
    else:
        with tarfile.open(archive) as tf:
            tf.extractall(scratch, filter="data")
    (top,) = os.listdir(scratch)
    os.rename(os.path.join(scratch, top), target)
    os.rmdir(scratch)
    return target


def _find_archive(directory, lib):
    # sdist names normalise the project name (PEP 625): jinja2, more_itertools
    wanted = {lib.dist.lower().replace("-", "_"), lib.dist.lower()}
    for name in sorted(os.listdir(directory)):
        base = name.lower()
        for suffix in (".tar.gz", ".zip"):
            if base.endswith(suffix) and base[: -len(suffix)] in {f"{w}-{lib.version}" for w in wanted}:
                return os.path.join(directory, name)
    return None


# ---------------------------------------------------------------------------
# choosing the tests


def collect(python, source, lib, keyword, timeout):
    # a deselected whole file is not even collected: it may not import here
    ignored = [f"--ignore={key}" for key in lib.deselect if key.endswith(".py")]
    argv = [python, "-m", "pytest", *COMMON_PYTEST_ARGS, *lib.pytest_args,
            "--collect-only", *ignored, *lib.tests]
    if keyword:
        argv += ["-k", keyword]
    out = subprocess.run(argv, cwd=source, capture_output=True, text=True, timeout=timeout,
                         env=_env(False, lib))
    if out.returncode not in (0, 5):
        tail = (out.stdout + out.stderr).strip().splitlines()[-3:]
        raise Failure(f"{lib.dist}: collection failed (exit {out.returncode}): {' | '.join(tail)}")
    ids = []
    for line in out.stdout.splitlines():
        if not line.strip():
            break  # the summary follows a blank line
        ids.append(line.strip())
    return ids


def deselected(node_id, deselect):
    """The reason `node_id` is deselected, or None.  A key is a node id, a prefix of
    node ids (a file, a class), or "::name": that test name in every file and class."""
    for key, reason in deselect.items():
        if key.startswith("::") and (node_id.endswith(key) or key + "[" in node_id):
            return reason
        if node_id == key or node_id.startswith(key + "::") or node_id.startswith(key + "["):
            return reason
        if key.endswith((".py", "/", ".yml")) and node_id.startswith(key):
            return reason
    return None


def choose(ids, limit):
    """At most `limit` ids, spread evenly over the suite (every file gets a share)."""
    if limit is None or len(ids) <= limit:
        return list(ids)
    step = len(ids) / limit
    return [ids[int(i * step)] for i in range(limit)]


# ---------------------------------------------------------------------------
# running and comparing


def _env(interpreted, lib=None):
    env = dict(os.environ)
    env.update(lib.env if lib else {})
    env.pop("PYTHONPATH", None)
    env["PYTHONHASHSEED"] = "0"       # same set/dict orders in both runs
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("PYTEST_ADDOPTS", None)
    env["COLUMNS"] = "200"
    if interpreted:
        env["PYTHONPATH"] = QUICKENING_SRC
    return env


def run_suite(python, source, lib, args_file, report_dir, interpreted, timeout):
    """One pytest run over the chosen tests; returns its record (outcomes, seconds ...)."""
    mode = "interpreted" if interpreted else "native"
    junit = os.path.join(report_dir, f"{mode}.xml")
    stats = os.path.join(report_dir, "stats.json")
    for stale in (junit, stats):
        if os.path.exists(stale):
            os.remove(stale)
    pytest = ["-m", "pytest", *COMMON_PYTEST_ARGS, *lib.pytest_args,
              f"--junitxml={junit}", "-o", "junit_logging=no", f"@{args_file}"]
    if interpreted:
        argv = [python, "-m", "quickening", "run"]
        for pattern in lib.interpret:
            argv += ["--interpret", pattern]
        argv += ["--stats-json", stats, *pytest]
    else:
        argv = [python, *pytest]
    started = time.perf_counter()
    try:
        out = subprocess.run(argv, cwd=source, capture_output=True, text=True, timeout=timeout,
                             env=_env(interpreted, lib), stdin=subprocess.DEVNULL)
        exit_status, output = out.returncode, out.stdout + out.stderr
    except subprocess.TimeoutExpired as exc:
        exit_status = "timeout"
        output = (exc.stdout or b"").decode(errors="replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
    seconds = time.perf_counter() - started
    with open(os.path.join(report_dir, f"{mode}.log"), "w") as fh:
        fh.write(output)
    record = {"exit": exit_status, "wall_seconds": round(seconds, 2), "seconds": None,
              "outcomes": {}, "messages": {}}
    if os.path.exists(junit):
        record["outcomes"], record["messages"], record["seconds"] = read_junit(junit)
    else:
        tail = output.strip().splitlines()[-5:]
        record["error"] = " | ".join(tail) if tail else "no output"
    if interpreted:
        record["stats"] = read_stats(stats)
    return record


def read_junit(path):
    """{test id: outcome}, {test id: first line of its failure/error/skip message},
    and pytest's session time (collection and tests, without interpreter start-up)."""
    outcomes, messages = {}, {}
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    session = round(sum(float(s.get("time", 0)) for s in suites), 2)
    rank = {"passed": 0, "skipped": 1, "xfailed": 1, "failed": 2, "error": 3}
    for case in root.iter("testcase"):
        test_id = f"{case.get('classname', '')}::{case.get('name', '')}"
        outcome, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed" if child.tag == "failure" else "error"
                message = child.get("message") or (child.text or "")
            elif child.tag == "skipped":
                outcome = "xfailed" if child.get("type") == "pytest.xfail" else "skipped"
                message = child.get("message") or ""
        # a test reported twice (an error in teardown after a pass) keeps the worse outcome
        if test_id not in outcomes or rank[outcome] > rank[outcomes[test_id]]:
            outcomes[test_id] = outcome
            first = message.strip().splitlines()[:1]
            messages[test_id] = first[0][:300] if first else ""
    return outcomes, messages, session


def read_stats(path):
    """The interpreted run's escapes, and how much of the library ran in the interpreter
    (instructions executed, files with an executed site), from its --stats-json."""
    try:
        with open(path) as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None  # the run wrote no statistics
    escapes = data.get("escapes", {})
    executed = [site for site in data.get("sites", []) if site.get("executions")]
    return {"escapes": escapes.get("total"),
            "escaping_functions": escapes.get("functions", [])[:10],
            "instructions": sum(site["executions"] for site in executed),
            "files": sorted({site["file"] for site in executed})}


def compare(native, interpreted):
    """The per-test comparison of two runs' outcomes."""
    ids = sorted(set(native) | set(interpreted))
    same = [t for t in ids if native.get(t) == interpreted.get(t)]
    differing = [{"test": t, "native": native.get(t, "not run"),
                  "interpreted": interpreted.get(t, "not run")}
                 for t in ids if native.get(t) != interpreted.get(t)]
    return {"tests": len(ids), "same": len(same), "differing": differing}


def run_library(name, lib, python, cache, args):
    source = ensure_source(cache, python, lib)
    report_dir = os.path.join(cache, "runs", name)
    os.makedirs(report_dir, exist_ok=True)
    collected = collect(python, source, lib, args.k, args.timeout)
    chosen = []
    # whole files are left out at collection (their tests are not counted)
    reasons = {reason: "file" for key, reason in lib.deselect.items() if key.endswith(".py")}
    for node_id in collected:
        reason = deselected(node_id, lib.deselect)
        if reason:
            reasons.setdefault(reason, 0)
            reasons[reason] += 1
        else:
            chosen.append(node_id)
    limit = None if args.all_tests else (args.max_tests if args.max_tests is not None else lib.max_tests)
    chosen = choose(chosen, limit)
    if not chosen:
        raise Failure(f"{name}: no test left to run (collected {len(collected)})")
    args_file = os.path.join(report_dir, "tests.txt")
    with open(args_file, "w") as fh:
        fh.write("\n".join(chosen) + "\n")
    _log(f"real-suites: {name}: {len(chosen)} of {len(collected)} collected tests, native run")
    native = run_suite(python, source, lib, args_file, report_dir, False, args.timeout)
    _log(f"real-suites: {name}: native {native['wall_seconds']} s; interpreted run")
    interp = run_suite(python, source, lib, args_file, report_dir, True, args.timeout)
    _log(f"real-suites: {name}: interpreted {interp['wall_seconds']} s")
    result = compare(native["outcomes"], interp["outcomes"])
    for entry in result["differing"]:
        entry["message"] = interp["messages"].get(entry["test"]) or native["messages"].get(entry["test"], "")
    native_failing = sorted(t for t, o in native["outcomes"].items() if o in ("failed", "error"))
    return {
        "library": name, "dist": lib.dist, "version": lib.version, "interpret": lib.interpret,
        "exercises": lib.exercises, "collected": len(collected), "chosen": len(chosen),
        "deselected": reasons, **result,
        "native_failing": native_failing,
        "native": {k: native[k] for k in ("exit", "seconds", "wall_seconds", "error") if k in native},
        "interpreted": {k: interp[k] for k in ("exit", "seconds", "wall_seconds", "stats", "error")
                        if k in interp},
        "ratio": (round(interp["seconds"] / native["seconds"], 1)
                  if native["seconds"] and interp["seconds"] is not None else None),
        "reports": report_dir,
    }


# ---------------------------------------------------------------------------
# output


def _seconds(value):
    return "-" if value is None else f"{value:.1f}"


def table(results):
    """The results as plain text; times are pytest's session times (collection and tests)."""
    head = ["library", "version", "tests", "same", "differ", "native fail", "native s", "interp s",
            "ratio", "escapes"]
    rows = []
    for r in results:
        if "failure" in r:
            rows.append([r["library"], r.get("version", ""), "-", "-", "-", "-", "-", "-", "-", "not run"])
            continue
        esc = (r["interpreted"].get("stats") or {}).get("escapes")
        rows.append([r["library"], r["version"], str(r["tests"]), str(r["same"]),
                     str(len(r["differing"])), str(len(r["native_failing"])),
                     _seconds(r["native"]["seconds"]),
                     _seconds(r["interpreted"]["seconds"]),
                     f"{r['ratio']}x" if r["ratio"] is not None else "-",
                     "?" if esc is None else str(esc)])
    done = [r for r in results if "failure" not in r]
    if len(done) > 1:
        rows.append(["all", "", str(sum(r["tests"] for r in done)), str(sum(r["same"] for r in done)),
                     str(sum(len(r["differing"]) for r in done)),
                     str(sum(len(r["native_failing"]) for r in done)),
                     _seconds(sum(r["native"]["seconds"] or 0 for r in done)),
                     _seconds(sum(r["interpreted"]["seconds"] or 0 for r in done)), "", ""])
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
             for row in [head, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    for r in results:
        if "failure" in r:
            lines.append(f"  {r['library']}: not run: {r['failure'][:300]}")
    for r in done:
        for d in r["differing"]:
            lines.append(f"  {r['library']}: {d['test']}: native {d['native']}, "
                         f"interpreted {d['interpreted']}: {d.get('message', '')}")
        for key in ("native", "interpreted"):
            if "error" in r[key]:
                lines.append(f"  {r['library']}: the {key} run wrote no report (exit {r[key]['exit']}): "
                             f"{r[key]['error']}")
    return "\n".join(lines)


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="real_suites.py",
        description="Run real libraries' test suites natively and with the library interpreted.")
    parser.add_argument("--only", action="append", metavar="NAME",
                        help=f"run only this library (repeatable; one of {', '.join(LIBRARIES)})")
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--max-tests", type=int, metavar="N",
                      help="run at most N tests of each suite (default: each library's own)")
    size.add_argument("--all-tests", action="store_true", help="run every collected test")
    parser.add_argument("-k", metavar="EXPR", help="pytest -k expression applied when collecting")
    parser.add_argument("--json", default="real-suites.json", metavar="FILE",
                        help="where to write the results (default: %(default)s)")
    parser.add_argument("--timeout", type=float, default=1200, metavar="S",
                        help="seconds allowed for one pytest run (default: %(default)s)")
    parser.add_argument("--cache", default=DEFAULT_CACHE, metavar="DIR",
                        help="venv, source distributions and reports (default: %(default)s)")
    parser.add_argument("--host-python", metavar="PATH",
                        help="the CPython 3.13 the venv is made with (default: this one, else pyenv's)")
    parser.add_argument("--list", action="store_true", help="list the libraries and exit")
    args = parser.parse_args(argv)
    if args.max_tests is not None and args.max_tests < 1:
        parser.error("--max-tests must be at least 1")
    for name in args.only or ():
        if name not in LIBRARIES:
            parser.error(f"unknown library {name!r} (known: {', '.join(LIBRARIES)})")
    return args


def main(argv=None, libraries=None, python=None):
    """Run the libraries; `libraries` and `python` replace LIBRARIES and the venv (tests)."""
    args = parse_args(argv)
    libraries = libraries if libraries is not None else LIBRARIES
    if args.list:
        for name, lib in libraries.items():
            print(f"{name:16} {lib.version:10} {lib.exercises}")
        return 0
    names = args.only or list(libraries)
    try:
        if python is None:
            python = ensure_venv(args.cache, find_host_python(args.host_python))
    except Failure as exc:
        print(f"real_suites.py: {exc}", file=sys.stderr)
        return 2
    results = []
    for name in names:
        lib = libraries[name]
        try:
            results.append(run_library(name, lib, python, args.cache, args))
        except (Failure, subprocess.TimeoutExpired) as exc:
            _log(f"real-suites: {name}: {exc}")
            results.append({"library": name, "version": lib.version, "failure": str(exc).splitlines()[0]})
    text = table(results)
    print(text, flush=True)
    record = {"schema": "quickening-real-suites/1", "python": python,
              "command": " ".join(["bench/real_suites.py", *(argv if argv is not None else sys.argv[1:])]),
              "libraries": results}
    with open(args.json, "w") as fh:
        json.dump(record, fh, indent=1)
    _log(f"real-suites: results written to {args.json}")
    clean = all("failure" not in r and not r["differing"] for r in results)
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
