"""`quickening cpython-tests`: run Lib/test modules natively and interpreted.

    quickening cpython-tests [options] NAME...

Each NAME (e.g. test_grammar, or test.test_grammar) is a module of the host's
installed Lib/test.  It runs once natively and once with its module code,
its test bodies and its doctest examples interpreted, each in a fresh
process; the command prints per module the native and interpreted outcome
(run/failures/errors/skipped), the escape count (interpreted code that ran
natively) and the time ratio, then every test whose outcome differs.
Exit status 0 only when every test's outcome matches the native run.  The
table fits $COLUMNS (else the terminal) by leaving out the columns native s,
interp s, escapes in that order; not a terminal: plain text at full width.

options:
  --json FILE            write the full per-test record as JSON
  --jobs N, -j N         run N worker processes at a time (default: CPU count)
  --timeout SECONDS      per worker process (default 900)
  --interpret-support    also interpret test.support (native by default)
  --interpret PATTERN    also interpret modules imported later whose name matches
                         (fnmatch or package prefix; repeatable), e.g. the pure-Python
                         copy a test imports with import_fresh_module
  -q, --quiet            print only the table
"""

import argparse
import json
import os
import sys


def _parser():
    p = argparse.ArgumentParser(prog="quickening cpython-tests", add_help=False)
    p.add_argument("names", nargs="*")
    p.add_argument("--json", dest="json_path")
    p.add_argument("--jobs", "-j", type=int, default=None)
    p.add_argument("--timeout", type=float, default=900.0)
    p.add_argument("--interpret-support", action="store_true")
    p.add_argument("--interpret", action="append", default=[])
    p.add_argument("--quiet", "-q", action="store_true")
    p.add_argument("--help", "-h", action="store_true")
    return p


class _Error(Exception):
    pass


def _parse(argv):
    p = _parser()
    p.error = lambda message: (_ for _ in ()).throw(_Error(message))
    return p.parse_args(argv)


def _module_names(names):
    import importlib.util
    out = []
    for raw in names:
        name = raw.removeprefix("test.").removesuffix(".py")
        spec = importlib.util.find_spec("test." + name) if name else None
        if spec is None:
            raise _Error(f"no module test.{name} in the installed Lib/test")
        out.append(name)
    return out


def main(argv):
    try:
        args = _parse(argv)
        if args.help:
            print(__doc__.strip())
            return 0
        if not args.names:
            raise _Error("name at least one Lib/test module, e.g. test_grammar")
        if args.jobs is not None and args.jobs < 1:
            raise _Error("--jobs must be at least 1")
        from quickening.interp import host
        host.check_host()
        names = _module_names(args.names)
    except _Error as exc:
        print(f"quickening cpython-tests: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # UnsupportedHost
        print(f"quickening cpython-tests: {exc}", file=sys.stderr)
        return 2

    from quickening.cpython_tests import runner

    jobs = args.jobs or os.cpu_count() or 1

    def progress(res):
        if not args.quiet:
            state = "ok" if res.ok else "MISMATCH"
            print(f"  {res.name}: {state}", file=sys.stderr, flush=True)

    results = runner.run_all(names, jobs=jobs, timeout=args.timeout,
                             interpret_support=args.interpret_support, on_done=progress,
                             interpret=tuple(args.interpret))
    print(runner.format_table(results))
    problems = runner.format_problems(results)
    if problems and not args.quiet:
        print()
        print(problems)
    if args.json_path:
        with open(args.json_path, "w") as fh:
            json.dump({"ok": all(r.ok for r in results),
                       "modules": [r.to_json() for r in results]}, fh, indent=1)
    return 0 if all(r.ok for r in results) else 1
