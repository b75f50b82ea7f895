"""One run of one Lib/test module, natively or interpreted, in this process.

    python -m quickening.cpython_tests.worker (native|interpreted) NAME OUT.json
        [--interpret-support] [--interpret PATTERN]...

Loads `test.NAME` the way regrtest does (unittest's loader, honouring
`load_tests`, so doctest-based modules add their DocTestSuite), runs the
suite with a result object that records every test id's outcome, and writes
the record to OUT.json.

Interpreted, an import hook runs the code of `test.NAME` and of the other
`test.*` helper modules it imports (not test.support or test.libregrtest,
unless --interpret-support), and of any module imported later whose name
matches an --interpret PATTERN (fnmatch, or a package prefix, as `quickening
run --interpret`: e.g. the pure-Python copy of the module under test that
`import_fresh_module(..., blocked=['_c_accelerator'])` imports), in the
interpreter; modules already imported at start-up stay native.  unittest itself runs
natively and calls test methods, which are functions the interpreter made,
so their bodies run in the interpreter.  doctest executes each example with
`exec(compile(src, name, "single"), globs)`: the doctest module's `exec` is
replaced by one that runs the code object in the interpreter.  Escapes
(interpreted code that CPython ran itself) are counted with sys.monitoring.
"""

import builtins
import importlib
import json
import os
import sys
import time
import traceback
import types
import unittest

# outcome names, in order of severity (the worst one wins for a test id)
OUTCOMES = ("pass", "skip", "xfail", "uxpass", "fail", "error")
_SEVERITY = {name: i for i, name in enumerate(OUTCOMES)}


def _tail(text, lines=6):
    parts = text.rstrip().splitlines()
    return "\n".join(parts[-lines:])


class RecordingResult(unittest.TestResult):
    """A TestResult that also keeps one outcome (and a short reason) per test id."""

    def __init__(self, clean=None):
        super().__init__()
        self.outcomes = {}
        self.details = {}
        self._clean = clean

    def _record(self, test, outcome, detail=None):
        tid = test.id()
        previous = self.outcomes.get(tid)
        if previous is None or _SEVERITY[outcome] > _SEVERITY[previous]:
            self.outcomes[tid] = outcome
            if detail:
                self.details[tid] = detail

    def _cleaned(self, err):
        """err without the interpreter's own traceback entries."""
        if self._clean is not None and err[1] is not None:
            try:
                strip, clean = self._clean
                clean(err[1])
                err = (err[0], err[1], strip(err[2]))
            except Exception:
                pass
        return err

    def _err_text(self, err, test):
        try:
            return _tail(self._exc_info_to_string(err, test))
        except Exception as exc:  # formatting must not lose the outcome
            return f"<unformattable {type(err[1]).__name__}: {exc!r}>"

    def addSuccess(self, test):
        super().addSuccess(test)
        self._record(test, "pass")

    def addFailure(self, test, err):
        err = self._cleaned(err)
        detail = self._err_text(err, test)
        super().addFailure(test, err)
        self._record(test, "fail", detail)

    def addError(self, test, err):
        err = self._cleaned(err)
        detail = self._err_text(err, test)
        super().addError(test, err)
        self._record(test, "error", detail)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._record(test, "skip", str(reason))

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._record(test, "xfail")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._record(test, "uxpass")

    def addSubTest(self, test, subtest, err):
        if err is not None:
            err = self._cleaned(err)
            detail = f"{subtest.id()}\n" + self._err_text(err, subtest)
            outcome = "fail" if issubclass(err[0], test.failureException) else "error"
            super().addSubTest(test, subtest, err)
            self._record(test, outcome, detail)
        else:
            super().addSubTest(test, subtest, err)

    def counts(self):
        return {"run": self.testsRun, "failures": len(self.failures),
                "errors": len(self.errors), "skipped": len(self.skipped)}


PATTERN_MODULES = []   # modules interpreted because an --interpret pattern matched


def _install_interpreter(name, interpret_support, patterns=()):
    """Interpret test.NAME, its test.* helpers and modules matching patterns; route doctest's exec."""
    from quickening import api
    from quickening.interp import escapes, hostframes, importer, tracebacks

    escapes.enable()
    hostframes.install()

    class TestModuleFinder(importer.InterpretingFinder):
        def wants(self, fullname, origin):
            if fullname != "test" and not fullname.startswith("test."):
                wanted = super().wants(fullname, origin)   # the --interpret patterns
                if wanted:
                    PATTERN_MODULES.append(fullname)
                return wanted
            for native in ("test.libregrtest",) + (() if interpret_support else ("test.support",)):
                if fullname == native or fullname.startswith(native + "."):
                    return False
            return True

    sys.meta_path.insert(0, TestModuleFinder(patterns=patterns))

    import doctest

    def interpreted_exec(source, globals_=None, locals_=None, /, **kwargs):
        if isinstance(source, types.CodeType) and type(globals_) is dict and not kwargs:
            if "__builtins__" not in globals_:
                globals_["__builtins__"] = builtins
            api.run_code(source, globals_, locals_)
            return None
        return builtins.exec(source, globals_, locals_, **kwargs)

    # the interpreter's side of doctest's exec(): not a frame the example's code sees
    tracebacks.INTERNAL_CODES.add(interpreted_exec.__code__)
    doctest.exec = interpreted_exec
    from quickening.interp import hardening
    hardening.harden()
    return escapes, (tracebacks.strip_internal, tracebacks.clean)


def run(mode, name, interpret_support=False, interpret=()):
    """Run test.NAME; return the JSON-able record."""
    escapes = clean = None
    if mode == "interpreted":
        escapes, clean = _install_interpreter(name, interpret_support, interpret)
    elif mode == "native":
        # start from the same already-imported modules as an interpreted run
        import doctest  # noqa: F401
        import quickening.api  # noqa: F401
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    result = RecordingResult(clean)
    modname = "test." + name
    start = time.perf_counter()
    load_error = None
    try:
        module = importlib.import_module(modname)
        suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    except unittest.SkipTest as exc:
        result.outcomes[modname] = "skip"
        result.details[modname] = str(exc)
        suite = None
    except BaseException as exc:  # noqa: BLE001 - a module that cannot load is an outcome
        if clean is not None:
            clean[1](exc)
        load_error = "".join(traceback.format_exception(exc))
        result.outcomes[modname] = "error"
        result.details[modname] = _tail(load_error, 12)
        suite = None
    if suite is not None:
        if mode == "interpreted":
            from quickening.interp import hardening
            hardening.harden()  # quickening modules imported while loading, too
        suite.run(result)
    elapsed = time.perf_counter() - start
    record = {
        "module": name, "mode": mode, "seconds": elapsed, "counts": result.counts(),
        "outcomes": result.outcomes, "details": result.details, "load_error": load_error,
        "pattern_modules": sorted(set(PATTERN_MODULES)),
    }
    if escapes is not None:
        top = escapes.COUNTS.most_common(20)
        record["escapes"] = escapes.total()
        record["escape_sites"] = [[f"{q} ({os.path.basename(fn)}:{line})", n]
                                  for (fn, q, line), n in top]
    return record


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    interpret_support = "--interpret-support" in argv
    argv = [a for a in argv if a != "--interpret-support"]
    patterns = []
    while "--interpret" in argv:
        i = argv.index("--interpret")
        if i + 1 >= len(argv):
            argv = []
            break
        patterns.append(argv[i + 1])
        del argv[i:i + 2]
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    mode, name, out = argv
    record = run(mode, name, interpret_support, patterns)
    sys.stdout.flush()
    sys.stderr.flush()
    with open(out, "w") as fh:
        json.dump(record, fh)
    return 0


if __name__ == "__main__":
    # leave without running interpreter-state teardown of test leftovers noisily
    status = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
