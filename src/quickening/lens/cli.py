"""`quickening watch`: run a program natively and report what CPython's
specializer did to it, per site, over time."""

import os
import sys

from quickening.pyargs import UsageError, parse_python_like

USAGE = """\
usage: quickening watch [options] (script.py | directory | -m module | -c code | -) [args...]

Runs the program natively (its stdin, stdout and exit status untouched),
samples the live quickened bytecode of its code objects from a background
thread and once at exit, and reports per specialization site what CPython
did: the form at exit, each specialization, re-targeting and fall-back, the
classes that passed, and a ranked list of what to look at.

options:
  --python PATH     interpreter to watch (CPython 3.11 to 3.15, any build;
                    default: the one running quickening)
  --interval MS     sampling interval in milliseconds (default 10)
  --json FILE       write the report as JSON (schema: quickening.lens/2)
  --html DIR        write a self-contained HTML report to DIR/index.html
  --report FILE     write the terminal report to FILE instead of stderr
  --all-sites       list every executed site, not only the notable ones
  --all-code        also watch the standard library and site-packages
  --quiet           no terminal report (use with --json / --html)
  --keep-samples F  keep the agent's raw sample stream in file F

The sites table fits $COLUMNS (else the terminal) by leaving out the columns
counter, falls, classes, misses≥ in that order, then wrapping cells; when
stderr is not a terminal it is plain text at full width; NO_COLOR honoured.
"""

FLAGS = ("--all-sites", "--all-code", "--quiet", "-h", "--help")
VALUED = ("--python", "--interval", "--json", "--html", "--report",
          "--keep-samples")


def _err(msg):
    sys.stderr.write(msg.rstrip() + "\n")


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0 if argv else 2
    try:
        parsed = parse_python_like(argv, flags=FLAGS, valued=VALUED,
                                   prog="quickening watch")
    except UsageError as exc:
        _err("%s (see `quickening watch --help`)" % exc)
        return 2
    opts = parsed.options
    if opts.get("-h") or opts.get("--help"):
        sys.stdout.write(USAGE)
        return 0
    try:
        return _watch(parsed.target, opts)
    except UsageError as exc:
        _err(str(exc))
        return 2


def _watch(target, opts):
    from quickening.lens import runner

    python = opts.get("--python") or runner.default_python()
    if os.sep in python or python.startswith("."):
        if not (os.path.isfile(python) and os.access(python, os.X_OK)):
            raise UsageError("quickening watch: --python %s: no such executable" % python)
    else:
        import shutil
        found = shutil.which(python)
        if not found:
            raise UsageError("quickening watch: --python %s: not found on PATH" % python)
        python = found
    try:
        interval = float(opts.get("--interval", runner.DEFAULT_INTERVAL_MS))
    except ValueError:
        raise UsageError("quickening watch: --interval takes milliseconds, got %r"
                         % opts["--interval"])
    if not (0.1 <= interval <= 60000):
        raise UsageError("quickening watch: --interval must be between 0.1 and 60000 ms")
    from quickening import program
    try:
        # (python itself runs the directory's __main__.py and reads `-` from stdin)
        program.resolve(target)
    except program.ProgramError as exc:
        _err("quickening watch: %s" % exc)
        return exc.status
    for key in ("--json", "--report", "--keep-samples"):
        path = opts.get(key)
        if path:
            d = os.path.dirname(os.path.abspath(path))
            if not os.path.isdir(d):
                raise UsageError("quickening watch: %s %s: directory %s does not exist"
                                 % (key, path, d))
    html = opts.get("--html")
    if html and os.path.exists(html) and not os.path.isdir(html):
        raise UsageError("quickening watch: --html %s: not a directory" % html)
    from quickening.lens.target import refusal
    refused = refusal(python, "quickening watch")
    if refused:     # before the program runs: it would run for nothing
        raise UsageError(refused)
    cmd = runner.child_command(python, target)
    keep = opts.get("--keep-samples")
    program_text, stdin = _program_on_stdin(target)
    try:
        result = runner.run_watched(cmd, interval, "all" if opts.get("--all-code") else "user",
                                    samples_path=os.path.abspath(keep) if keep else None,
                                    stdin=stdin)
    finally:
        if stdin is not None:
            stdin.close()
    status = runner.exit_status(result.returncode)
    try:
        return _report(result, target, opts, python, status, program_text)
    except OSError as exc:
        _err("quickening watch: cannot write the report: %s" % exc)
        return status or 1
    finally:
        if not keep:
            try:
                os.unlink(result.samples_path)
            except OSError:
                pass


def _program_on_stdin(target):
    """(the program's text, a file holding it for the child's stdin) for `watch -`
    with the program piped in, so that the report can quote its lines; (None,
    None) otherwise.  (A terminal is left to the child: `python -` then reads
    statement by statement.)  The child reads the same bytes and then meets
    the end of its input, as it would."""
    from quickening import program
    if not program.is_stdin(target) or sys.stdin is None or sys.stdin.isatty():
        return None, None
    import importlib.util
    import tempfile
    data = sys.stdin.buffer.read()
    held = tempfile.TemporaryFile()
    held.write(data)
    held.seek(0)
    try:        # (its coding declaration, as python reads it)
        text = importlib.util.decode_source(data)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        text = data.decode("utf-8", errors="replace")
    return text, held


def _report(result, target, opts, python, status, program_text=None):
    from quickening.lens import analyze as A
    from quickening.lens import runner

    try:
        run = A.RunData.load(result.samples_path)
    except OSError:
        run = None
    if run is None or run.hello is None:
        v = runner.probe_version(python)
        if v is None:
            _err("quickening watch: %s did not start" % python)
        else:
            _err("quickening watch: the lens agent did not report (the program "
                 "may have exited before Python finished starting)")
        return status
    code_text = target.value if target.kind == "code" else program_text
    report = A.analyze(run, code_text=code_text)
    if not report.info["codes"] and status != 0:
        # python said why (a SyntaxError, no such module...): an empty report
        # after it would only look like a verdict
        _err("quickening watch: no report: the program stopped before any of its code "
             "ran (exit status %d)" % status)
        return status
    argv_shown = [os.path.basename(python)] + runner.child_command(python, target)[1:]
    if opts.get("--json"):
        from quickening.lens.report import write_json
        write_json(report, opts["--json"], argv=argv_shown, exit_status=status,
                   wall=result.wall)
    if opts.get("--html"):
        from quickening.lens.html import write_html
        write_html(report, opts["--html"], argv=argv_shown, exit_status=status,
                   wall=result.wall, code_text=code_text)
    if not opts.get("--quiet"):
        from rich.console import Console
        from quickening.lens.report import render_terminal
        # text as it is (markup=False: `values[i]` is not a style), no highlighting
        # guesses; not on a terminal, lines as long as they are (soft_wrap)
        plain = dict(markup=False, highlight=False, emoji=False)
        if os.environ.get("NO_COLOR"):
            plain["color_system"] = None     # no bold or dim either, as in the tables
        if opts.get("--report"):
            with open(opts["--report"], "w", encoding="utf-8") as fh:
                console = Console(file=fh, no_color=True, soft_wrap=True, **plain)
                render_terminal(report, console, all_sites=bool(opts.get("--all-sites")),
                                argv=argv_shown, exit_status=status)
        else:
            console = Console(stderr=True, **plain)
            if not console.is_terminal:
                console = Console(stderr=True, soft_wrap=True, **plain)
            render_terminal(report, console, all_sites=bool(opts.get("--all-sites")),
                            argv=argv_shown, exit_status=status)
    if opts.get("--html") and not opts.get("--quiet"):
        sys.stderr.write("HTML report: %s\n" % os.path.join(os.path.abspath(opts["--html"]), "index.html"))
    return status
