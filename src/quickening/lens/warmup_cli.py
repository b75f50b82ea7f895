"""`quickening warmup`: each site's form, execution by execution, on a fresh
code object in the real CPython (3.11 to 3.15)."""

import argparse
import os
import sys

from quickening import termtable
from quickening.lens.warmup import (WarmupError, trace_function_warmup,
                                    trace_warmup)

DESCRIPTION = """\
Run a fresh code object one execution at a time and show, per execution, the
live form of each specialization site (read from _co_code_adaptive; nothing
is traced), then the time of each early execution against the warmed steady
state, each measured on a fresh code object.

  quickening warmup -c 'f(3)' --setup 'def f(n): return n + 1'
  quickening warmup -n 12 examples/shapes.py::total '[1, 2, 3]'

Options go before the target, like `python`; what follows FILE::function
is its arguments (Python literals, or plain strings).

The tables fit $COLUMNS (else the terminal): the family column goes first,
then the executions go on in further blocks; when stdout is not a terminal
they are plain text at full width; NO_COLOR honoured.
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise WarmupError("quickening warmup: %s (see `quickening warmup --help`)" % message)


def _parser():
    p = _Parser(prog="quickening warmup", description=DESCRIPTION,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("target", nargs="?", help="FILE::function (then its arguments)")
    p.add_argument("args", nargs=argparse.REMAINDER,
                   help="arguments (Python literals) for FILE::function")
    p.add_argument("-c", dest="stmt", help="statement to execute")
    p.add_argument("--setup", default="", help="run once before the statement (fresh each time)")
    p.add_argument("-n", "--executions", type=int, default=10,
                   help="executions to trace (default 10)")
    p.add_argument("--python", default=sys.executable,
                   help="interpreter (CPython 3.11 to 3.15; default: this one)")
    p.add_argument("--repeat", type=int, default=25,
                   help="timings per execution, best kept (default 25; 0: no timing)")
    p.add_argument("--steady", type=int, default=1000,
                   help="executions before timing the steady state (default 1000)")
    p.add_argument("--all-sites", action="store_true",
                   help="also list sites that never changed form")
    p.add_argument("--counters", action="store_true",
                   help="show each site's counter (value/backoff) per execution")
    p.add_argument("--json", help="write the trace as JSON to this file")
    return p


def main(argv):
    try:
        return _main(argv)
    except WarmupError as exc:
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else "failed"
        if not message.startswith("quickening warmup:"):
            message = "quickening warmup: " + message
        sys.stderr.write(message + "\n")
        return 2


def _main(argv):
    if argv and argv[0] in ("-h", "--help"):
        _parser().print_help()
        return 0
    a = _parser().parse_args(argv)
    if (a.stmt is None) == (a.target is None):
        raise WarmupError("quickening warmup: give either -c STATEMENT or FILE::function "
                          "(see `quickening warmup --help`)")
    if a.executions < 1 or a.executions > 10000:
        raise WarmupError("quickening warmup: -n must be between 1 and 10000")
    if a.repeat < 0:
        raise WarmupError("quickening warmup: --repeat must be >= 0")
    if not (os.path.isfile(a.python) and os.access(a.python, os.X_OK)):
        import shutil
        found = shutil.which(a.python)
        if not found:
            raise WarmupError("quickening warmup: --python %s: no such executable" % a.python)
        a.python = found
    from quickening.lens.target import refusal
    refused = refusal(a.python, "quickening warmup")
    if refused:
        raise WarmupError(refused)
    if a.stmt is not None:
        if a.args:
            raise WarmupError("quickening warmup: unexpected arguments after -c: %s"
                              % " ".join(a.args))
        res = trace_warmup(a.python, a.stmt, a.setup, a.executions,
                           repeat=a.repeat, steady=a.steady)
        title = a.stmt
    else:
        known = ("-c", "--setup", "-n", "--executions", "--python", "--repeat",
                 "--steady", "--all-sites", "--counters", "--json")
        misplaced = [x for x in a.args if x.split("=")[0] in known]
        if misplaced:
            raise WarmupError("quickening warmup: options go before FILE::function "
                              "(everything after it is passed to the function): %s"
                              % " ".join(misplaced))
        path, sep, func = a.target.rpartition("::")
        if not sep or not path or not func:
            raise WarmupError("quickening warmup: target must be FILE::function, got %r"
                              % a.target)
        if not os.path.isfile(path):
            what = "is a directory" if os.path.isdir(path) else "[Errno 2] No such file or directory"
            raise WarmupError("quickening warmup: can't open file %r: %s"
                              % (os.path.abspath(path), what))
        res = trace_function_warmup(a.python, path, func, a.args, a.executions,
                                    repeat=a.repeat, steady=a.steady)
        title = "%s(%s)" % (func, ", ".join(a.args))
    if a.json:
        import json
        with open(a.json, "w") as f:
            json.dump({"version": list(res.version), "target": title,
                       "executions": list(res), "time_ns": res.time_ns,
                       "steady_ns": res.steady_ns}, f, indent=1)
    render(res, title, a.all_sites, counters=a.counters)
    return 0


def _short(site):
    name = site["opname"]
    fam = site["family"]
    if name == fam:
        return fam
    if name.startswith(fam + "_"):
        return name[len(fam) + 1:]
    return name


def render(res, title, all_sites=False, out=None, counters=False):
    """The two tables on out (default stdout): plain text, within $COLUMNS (else
    the terminal's width; not a terminal: no limit).  A table too wide for it
    first gives up the family column, then goes on in further blocks of
    executions, each led by the site and its fresh form again."""
    out = sys.stdout if out is None else out
    width = termtable.width_for(out)
    colour = termtable.colour_for(out)
    version = ".".join(map(str, res.version))
    lines = ["quickening warmup — CPython %s — %s" % (version, title)]
    if not res:
        _write(out, lines)
        return
    keys = []
    rows = {}
    states = [res.initial or []] + list(res)
    for i, sites in enumerate(states):
        for s in sites:
            k = (s["code"], s["offset"])
            if k not in rows:
                keys.append(k)
                rows[k] = [None] * len(states)
                rows[k + ("meta",)] = s
            rows[k][i] = s
    n = len(res)
    headers = ["site", "family", "fresh"] + [str(i + 1) for i in range(n)]
    cells, styles = [], []
    for k in keys:
        per = rows[k]
        forms = set((c["opname"], c["counter_raw"]) for c in per if c)
        if not all_sites and len(forms) <= 1:
            continue
        meta = rows[k + ("meta",)]
        row = ["%s:%s" % (meta["code"], meta["line"]), meta["family"]]
        style = {}
        prev = None
        for header, c in zip(headers[2:], per):
            if c is None:
                row.append("")
                continue
            counter = "%d" % c["counter_value"] if c["backoff"] is None else \
                "%d/%d" % (c["counter_value"], c["backoff"])
            unchanged = prev is not None and c["opname"] == prev
            text = "·" if unchanged else _short(c)
            row.append(text + (" " + counter if counters else ""))
            style[header] = "dim" if unchanged else \
                {"specialized": "bold green", "adaptive": "bold yellow",
                 "instrumented": "bold cyan"}.get(c["state"], "bold")
            prev = c["opname"]
        cells.append(row)
        styles.append(style)
    if cells:
        lines += ["", "form of each site on fresh code and after execution N (· = unchanged%s)"
                  % (", counter value/backoff" if counters else "")]
        lines += _blocks(headers, cells, styles, width, colour, fixed=3, drop=("family",))
    else:
        lines.append("no site changed form in %d executions (--all-sites lists them)" % n)
    if res.time_ns:
        headers = [""] + [str(i + 1) for i in range(len(res.time_ns))] + ["steady"]
        cells = [["µs"] + ["%.2f" % (x / 1000.0) for x in res.time_ns] +
                 ["%.2f" % (res.steady_ns / 1000.0)]]
        if res.steady_ns:
            cells.append(["× steady"] + ["%.2f" % (x / res.steady_ns) for x in res.time_ns]
                         + ["1.00"])
        lines += ["", "time of execution N on fresh code (best of repeats) vs warmed steady state"]
        lines += _blocks(headers, cells, [{}] * len(cells), width, colour, fixed=1, drop=(),
                         right=headers[1:])
    _write(out, lines)


def _write(out, lines):
    out.write("\n".join(lines) + "\n")
    out.flush()


def _blocks(headers, cells, styles, width, colour, fixed, drop, right=()):
    """The table's lines; wider than width, it leaves out the columns in drop,
    then splits the columns after the first `fixed` into blocks that fit, each
    repeating those first columns."""
    natural = [max(len(headers[i]), *(len(r[i]) for r in cells)) for i in range(len(headers))]
    lead = [i for i in range(fixed)]
    rest = list(range(fixed, len(headers)))

    def size(cols):
        return sum(natural[i] for i in cols) + len(termtable.GAP) * (len(cols) - 1)

    dropped = []
    if width is not None:
        for name in drop:
            if size(lead + rest) <= width:
                break
            i = headers.index(name)
            lead.remove(i)
            dropped.append(name)
    groups = [rest]
    if width is not None and size(lead + rest) > width:
        groups, current = [], []
        for i in rest:
            if current and size(lead + current + [i]) > width:
                groups.append(current)
                current = []
            current.append(i)
        groups.append(current)
    lines = []
    for n, group in enumerate(groups):
        cols = lead + group
        if n:
            lines.append("")
        lines += termtable.render([headers[i] for i in cols], [[r[i] for i in cols] for r in cells],
                                  width=width, right=right, colour=colour,
                                  styles=[{h: st[h] for h in (headers[i] for i in cols) if h in st}
                                          for st in styles])
    if dropped:
        lines.append("(left out at %d columns: %s)" % (width, ", ".join(dropped)))
    return lines
