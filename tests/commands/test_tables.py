"""Every command that prints a table, as a person reads it (issue 21.4): the text
of each cell exactly (no markup eaten: `values[i]` stays), within $COLUMNS by
leaving out columns in the stated order and wrapping cells, bold and colour only
on a terminal and never under NO_COLOR, and plain text (no box drawing, no
escape codes, lines as long as they are) when the output is not a terminal.
The terminal case runs the command on a real pty.  (`run --stats` has its own
file, test_stats_table.py; `dis` and `fidelity` print no table: their lines are
checked for plain text here.)"""

import os
import pty
import re
import select
import subprocess
import sys

import pytest

from quickening.lens import report as lens_report

PYTHON = sys.executable
ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
BOX = set("┃│━─┏┓┗┛┡┩╇┳┻╋┼┬┴")

POLY = """\
import time
class A:
    def __init__(self, v):
        self.v = v
class B(A):
    pass
class C:
    __slots__ = ("v",)
    def __init__(self, v):
        self.v = v
def score(values, weights, key, items):
    t = 0
    for i in range(len(values)):
        t = t + values[i] * weights[key]
    for it in items:
        t += it.v
    return t
objs = [A(1), B(2), C(3.0), A(4)]
for n in range(3000):
    score([1, 2.0, 3], {"k": 2, 0: 1.5}, "k", objs)
    objs.reverse()
    objs[0] = (A, B, C)[n % 3](1)
    if n % 500 == 0:
        time.sleep(0.01)
print("ok")
"""

WARMED = "def total(xs):\n    t = 0\n    for x in xs:\n        t = t + x * xs[0]\n    return t\n"

# the workload's file name is markup to rich: it must come out as it is
WORKLOAD_NAME = "w[bold]1[i].py"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("tables")
    (d / "poly.py").write_text(POLY)
    (d / "warmed.py").write_text(WARMED)
    (d / "calls.py").write_text(WARMED + "for i in range(100):\n    total([1, 2, 3])\n")
    (d / WORKLOAD_NAME).write_text("s = 0\nfor i in range(2000):\n    s += i\nprint(s)\n")
    return d


COMMANDS = {
    # name: (arguments, the stream the table is on, what must appear exactly)
    "watch": (["watch", "--interval", "1", "poly.py"], "stderr",
              ["score: t + values[i] * weights[key]", "score: values[i] * weights[key]"]),
    "warmup": (["warmup", "-n", "12", "--repeat", "2", "--steady", "5", "--counters",
                "warmed.py::total", "[1, 2, 3]"], "stdout", ["MULTIPLY_INT", "total:4"]),
    "compare": (["compare", "-N", "1", "-M", "1", "--no-record", "--no-chart", "-q",
                 WORKLOAD_NAME], "stdout", [WORKLOAD_NAME]),
    "experiment": (["experiment", "specialize", "--no-record", "--no-chart", "-q"], "stdout",
                   ["s[i]", "[x for x in xs]", "g(*args)"]),
    "cpython-tests": (["cpython-tests", "-q", "test_bool"], "stdout", ["test_bool"]),
}


def _env(extra):
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR", "TERM")}
    env.update(extra)
    return env


def _piped(args, cwd, extra):
    out = subprocess.run([PYTHON, "-m", "quickening", *args], capture_output=True, text=True,
                         cwd=cwd, env=_env(extra), timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    return out


def _on_a_terminal(args, cwd, extra, status=0):
    """stdout and stderr on one pty (as in a terminal window); the text it showed."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([PYTHON, "-m", "quickening", *args], stdin=subprocess.DEVNULL,
                            stdout=follower, stderr=follower, cwd=cwd,
                            env=_env({"TERM": "xterm", **extra}))
    os.close(follower)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 300)
        if not ready:
            proc.kill()
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:         # the follower side closed: the command ended
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert proc.wait(timeout=60) == status, b"".join(chunks).decode(errors="replace")
    return b"".join(chunks).decode().replace("\r\n", "\n")


def _table_lines(text):
    """The lines of the text's tables: each table's header (one or more lines), its
    rule and rows: the lines around a rule of dashes whose text lies within the
    rule's columns."""
    lines = text.splitlines()
    out = []
    for i, line in enumerate(lines):
        if not re.fullmatch(r" *-+( +-+)+", line):
            continue
        spans = [m.span() for m in re.finditer(r"-+", line)]

        def in_columns(candidate):
            if not candidate.strip():
                return False
            for m in re.finditer(r"\S+( \S+)*", candidate):
                if not any(a <= m.start() and m.end() <= b for a, b in spans):
                    return False
            return True
        start = i
        while start > 0 and in_columns(lines[start - 1]):
            start -= 1
        end = i + 1
        while end < len(lines) and in_columns(lines[end]):
            end += 1
        out += lines[start:end]
    return out


def _cells(text):
    """Each table's rows as {header: the cell's lines joined}: a row's further
    lines have nothing in the first column."""
    lines = text.splitlines()
    rows = []
    for i, line in enumerate(lines):
        if not re.fullmatch(r" *-+( +-+)+", line):
            continue
        spans = [m.span() for m in re.finditer(r"-+", line)]
        table = _table_lines("\n".join(lines[:i + 1] + [""]))
        heads = table[:-1]
        names = [" ".join(h[a:b].strip() for h in heads if h[a:b].strip()) for a, b in spans]
        body = _table_lines("\n".join([line] + lines[i + 1:]))[1:]
        for row in body:
            pieces = [row[a:b].strip() for a, b in spans]
            if pieces[0] or not rows:
                rows.append(dict(zip(names, pieces)))
            else:
                for name, piece in zip(names, pieces):
                    rows[-1][name] += piece
    return rows


@pytest.mark.parametrize("command", list(COMMANDS))
def test_not_a_terminal_is_plain_text_at_full_width(command, files):
    args, stream, exact = COMMANDS[command]
    out = _piped(args, files, {})
    text = getattr(out, stream)
    assert not ESCAPE.search(out.stdout + out.stderr)
    assert not BOX & set(text), text
    assert "left out" not in text          # no width limit: nothing given up
    rows = _table_lines(text)
    assert rows, text
    for cell in exact:
        assert any(cell in row for row in rows), (cell, text)
    if command == "watch":
        assert rows[0].split("  ")[0] == "where"
        assert [h.strip() for h in rows[0].split("  ") if h.strip()] == \
            list(lens_report.SITE_COLUMNS)


@pytest.mark.parametrize("no_color", [False, True], ids=["colour", "NO_COLOR"])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_on_a_terminal_within_columns(command, no_color, files):
    args, _, exact = COMMANDS[command]
    extra = {"COLUMNS": "80"}
    if no_color:
        extra["NO_COLOR"] = "1"
    shown = _on_a_terminal(args, files, extra)
    codes = set(ESCAPE.findall(shown))
    if no_color:
        assert not codes, shown
    else:
        assert codes, shown
    plain = ESCAPE.sub("", shown)
    assert not BOX & set(plain), plain
    rows = _table_lines(plain)
    assert rows, plain
    assert max(len(row) for row in rows) <= 80, "\n".join(r for r in rows if len(r) > 80)
    # a wrapped cell, read down its column, is the text again (the spaces it was
    # broken at are at the ends of its lines, where they are not seen)
    cells = [cell.replace(" ", "") for row in _cells(plain) for cell in row.values()]
    for cell in exact:
        assert any(cell.replace(" ", "") in c for c in cells), (cell, plain)
    if command == "watch":
        # the columns given up at 80 are the first of the stated order, and it says so
        said = re.search(r"\(left out at 80 columns: ([^)]*)\)", plain)
        dropped = said.group(1).split(", ") if said else []
        assert dropped == list(lens_report.SITE_DROP_ORDER[:len(dropped)])
        header = rows[0]
        for name in lens_report.SITE_COLUMNS:
            assert (name in header) is (name not in dropped), (name, header)


def test_dis_and_fidelity_print_plain_lines(files):
    """No table of theirs is laid out for a terminal: dis prints CPython's dis
    format (tests/commands/test_dis_matches_cpython.py), fidelity one line per
    disagreement; on a terminal neither adds an escape code, and the forms'
    [Class] brackets stay."""
    shown = _on_a_terminal(["dis", "--function", "score", "poly.py"], files, {"COLUMNS": "80"})
    assert not ESCAPE.search(shown)
    assert "Disassembly of score" in shown
    fidelity = _on_a_terminal(["fidelity", "calls.py"], files, {"COLUMNS": "80"})
    assert not ESCAPE.search(fidelity)
    assert re.fullmatch(r"fidelity: (\d+)/\1 executed sites agree \(100.0%\)\n", fidelity)
