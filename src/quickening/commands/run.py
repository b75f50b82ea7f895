"""`quickening run`: run a program in the interpreter, used like `python`.

    quickening run [options] script.py args...   (or a directory holding __main__.py)
    quickening run [options] -m package.module args...
    quickening run [options] -c "code" args...
    quickening run [options] - args...          (the program on stdin)

options:
  --interpret PATTERN   also interpret modules whose name matches (repeatable)
  --interpret-all       interpret every Python module imported after start-up
  --no-specialize       leave every site generic
  --stats               print per-function escapes (and per-site statistics) to stderr;
                        the table fits $COLUMNS (else the terminal) by leaving out the
                        columns types, failures, hits, exec in that order, then wrapping
                        cells; not a terminal: plain text at full width; NO_COLOR honoured
  --stats-json FILE     write the statistics as JSON
"""

import contextlib
import os
import signal
import sys

from quickening.pyargs import UsageError, parse_python_like

FLAGS = ("--interpret-all", "--no-specialize", "--stats", "-h", "--help")
VALUED = ("--stats-json",)
REPEATABLE = ("--interpret",)


def _error(message, status=2, command="run"):
    print(f"quickening {command}: {message}", file=sys.stderr)
    return status


def main(argv):
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    try:
        parsed = parse_python_like(argv, FLAGS, VALUED, REPEATABLE, prog="quickening run")
    except UsageError as exc:
        return _error(str(exc).removeprefix("quickening run: "))
    if parsed.options.get("-h") or parsed.options.get("--help"):
        print(__doc__.strip())
        return 0
    if sys.version_info[:2] != (3, 13):
        return _error(f"the interpreter runs on CPython 3.13; this is "
                      f"{sys.implementation.name} {sys.version.split()[0]}")
    return execute(parsed.target, parsed.options)


def execute(target, options, command="run"):
    """Run target as `python` would; command names the quickening command in the
    one-line errors (dis runs the program through here too)."""
    from quickening.interp import quicken
    quicken.Config.specialize = not options.get("--no-specialize")
    quicken.Config.collect_stats = bool(options.get("--stats") or options.get("--stats-json"))
    from quickening import api
    from quickening.interp import (audit, escapes, frameview, hostframes, importer, interrupts,
                                   tracebacks)
    # native library code that looks at its callers sees the interpreted frames
    hostframes.install()
    audit.install()       # the program's audit hooks see the program's events only

    from quickening import program
    try:
        target = program.resolve(target)
    except program.ProgramError as exc:
        return _error(str(exc), exc.status, command)
    if program.is_stdin(target):
        # `python -`: the program is read from stdin, then runs like -c code
        from quickening.pyargs import Target
        target = Target("stdin", sys.stdin.read(), list(target.argv))
    if target.kind == "path":
        program_dir = os.path.dirname(os.path.realpath(target.value))
    else:
        program_dir = os.getcwd()
        sys.path[0:1] = [program_dir if target.kind == "module" else ""]

    if options.get("--stats") or options.get("--stats-json"):
        # the report's modules are imported now: the program may shadow their names
        from quickening import stats_report  # noqa: F401
    _unshadow(program_dir)
    escapes.enable()
    finder = importer.install([program_dir], options.get("--interpret", []),
                              bool(options.get("--interpret-all")))
    status = 0
    # the program's frames start here, as if `python` ran it: frames under this one
    # (the launcher's) do not count towards its recursion depth
    frameview.PROGRAM_BOTTOM = sys._getframe()
    # Ctrl-C is raised in the program's code, never in the interpreter's own work
    interrupts.install()
    try:
        try:
            if target.kind == "path":
                error = program.compile_error(target.value)
                if error is not None:
                    sys.stderr.write(error)
                    return 1
                api.run_path(target.value, argv=target.argv)
                _forget_main_file()
            elif target.kind in ("code", "stdin"):
                filename = "<string>" if target.kind == "code" else "<stdin>"
                try:
                    compile(target.value, filename, "exec", dont_inherit=True)
                except (SyntaxError, ValueError) as exc:
                    _print_syntax_error(exc)
                    return 1
                api.run_source(target.value, filename, argv=target.argv)
            else:
                try:
                    api.run_module(target.value, argv=target.argv)
                except api.ModuleNotFound as exc:
                    return _error(str(exc), 1, command)
        except SystemExit:
            # `sys.exit` is how most command-line programs end (pytest among them):
            # the statistics are reported as for any other end, then Python exits
            _report(options)
            raise
        except KeyboardInterrupt as exc:
            with _sigint_held():
                interrupts.uninstall()
                tracebacks.clean(exc)
                sys.excepthook(type(exc), exc, exc.__traceback__)
                _report(options)
            _die_by_sigint()
        except BaseException as exc:
            with _sigint_held():
                tracebacks.clean(exc)
                sys.excepthook(type(exc), exc, exc.__traceback__)
            if target.kind == "path":
                _forget_main_file()
            status = 1
    finally:
        interrupts.uninstall()
        importer.uninstall(finder)
    _report(options)
    return status


def _forget_main_file():
    """Once a script has run (and its traceback is printed), CPython takes
    __file__ and __cached__ out of __main__ before the atexit handlers run
    (_PyRun_SimpleFileObject); not after SystemExit, which exits at once."""
    names = getattr(sys.modules.get("__main__"), "__dict__", None)
    if isinstance(names, dict):
        names.pop("__file__", None)
        names.pop("__cached__", None)


def _unshadow(program_dir):
    """Forget the modules quickening imported for itself whose names the program's
    own modules take (a token.py, a logging.py next to it): natively, its import
    finds its file; quickening keeps the ones it holds."""
    import quickening
    directory = program_dir or "."
    try:
        entries = set(os.listdir(directory))
    except OSError:
        return
    for name in list(sys.modules):
        if "." in name or name in quickening.STARTUP_MODULES or name.startswith("quickening"):
            continue
        if f"{name}.py" in entries or name in entries and os.path.isfile(
                os.path.join(directory, name, "__init__.py")):
            for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
                _SHADOWED[key] = sys.modules.pop(key)


_SHADOWED = {}   # module name -> quickening's module the program's own shadows


@contextlib.contextmanager
def _our_modules():
    """quickening's modules back in sys.modules meanwhile (for the report, once the
    program ran: they import their own submodules lazily); the program's after."""
    theirs = {name: sys.modules.get(name) for name in _SHADOWED}
    sys.modules.update(_SHADOWED)
    try:
        yield
    finally:
        for name, module in theirs.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def _print_syntax_error(exc):
    import traceback
    sys.stderr.write("".join(traceback.format_exception_only(exc)))


@contextlib.contextmanager
def _sigint_held():
    """Another Ctrl-C while quickening reports the end waits until the report is
    out (natively the program is over by then too)."""
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    except (AttributeError, OSError, ValueError):
        yield
        return
    try:
        yield
    finally:
        try:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        except KeyboardInterrupt:
            pass


def _die_by_sigint():
    sys.stdout.flush()
    sys.stderr.flush()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGINT)


_reported = False


def _report(options):
    global _reported
    if _reported or not (options.get("--stats") or options.get("--stats-json")):
        return
    _reported = True
    from quickening.stats_report import report
    with _our_modules():
        report(options)
