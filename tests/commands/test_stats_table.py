"""The `run --stats` table as a person reads it: the source text exactly as
written (no markup eaten), within $COLUMNS by dropping columns in the stated
order and wrapping cells, plain text when stderr is not a terminal, and no
colour on a terminal when $NO_COLOR is set."""

import os
import pty
import subprocess
import sys

import pytest

from quickening import stats_report

PYTHON = sys.executable

PROGRAM = """\
class A:
    def __init__(self, v):
        self.v = v
class B(A):
    pass
def score(values, weights, key, items):
    t = 0
    for i in range(len(values)):
        t = t + values[i] * weights[key]
    for it in items:
        t += it.v  # [bold]not markup[/bold] [i]
    return t
class C(A):
    pass
class D(A):
    pass
class E(A):
    pass
class K:
    kind = "k"
class L:
    kind = "l"
def kind_of(o):
    return o.kind
objs = [A(1), B(2), A(3.0), B(4), C(5), D(6), E(7)]
for n in range(50):
    score([1, 2.0, 3], {"k": 2, 0: 1.5}, "k" if n % 2 else 0, objs)
    kind_of(K()); kind_of(L())
print("ok")
"""

# the longest form this program makes: 35 characters, which no terminal of 80
# columns fits beside the other columns unless it breaks between its parts
LONG_FORM = "LOAD_ATTR_NONDESCRIPTOR_WITH_VALUES"

SOURCE_LINES = ["t = t + values[i] * weights[key]",
                "t += it.v  # [bold]not markup[/bold] [i]"]


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    path = tmp_path_factory.mktemp("table") / "prog.py"
    path.write_text(PROGRAM)
    return path


def _stats(program, env_extra, stderr=subprocess.PIPE):
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR")}
    env.update(env_extra)
    return subprocess.run([PYTHON, "-m", "quickening", "run", "--stats", str(program)],
                          stdout=subprocess.PIPE, stderr=stderr, text=True, env=env,
                          cwd=program.parent, timeout=120)


def _table_rows(text):
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("sites to look at"))
    end = next(i for i, line in enumerate(lines) if line.startswith("escapes"))
    return lines[start + 1:end]


def test_not_a_terminal_plain_text_with_the_source_exactly(program):
    out = _stats(program, {})
    assert out.returncode == 0 and out.stdout == "ok\n"
    assert "\x1b[" not in out.stderr
    rows = _table_rows(out.stderr)
    for source in SOURCE_LINES:
        assert any(source in row for row in rows), out.stderr
    # no width limit: one line per site, every column there
    assert rows[0].split() == list(stats_report.SITE_COLUMNS)
    assert "left out" not in out.stderr
    assert any(LONG_FORM in row for row in rows), out.stderr
    # five classes pass through it.v: the cell names three and counts the others
    it_v = next(row for row in rows if "t += it.v" in row)
    assert it_v.endswith("; 2 more"), it_v


@pytest.mark.parametrize("columns", [60, 80, 100])
def test_columns_is_honoured_by_dropping_then_wrapping(program, columns):
    out = _stats(program, {"COLUMNS": str(columns)})
    assert out.returncode == 0
    rows = _table_rows(out.stderr)
    # (the table; a sentence above it is left to the terminal to wrap)
    assert max(len(line) for line in rows) <= columns, out.stderr
    header = rows[0].split()
    dropped = [c for c in stats_report.SITE_DROP_ORDER if c not in header]
    # the columns given up are the first ones of the stated order, and the table says so
    assert dropped == list(stats_report.SITE_DROP_ORDER[:len(dropped)])
    assert set(header) == set(stats_report.SITE_COLUMNS) - set(dropped)
    if columns == 80:
        assert dropped      # (this table does not fit 80 columns whole)
    if dropped:
        assert f"(left out at {columns} columns: {', '.join(dropped)})" in out.stderr
    # a wrapped source cell, read down its column, is the source text again
    starts = {name: rows[0].index(name) for name in ("source", "form")}
    after_form = header[header.index("form") + 1]
    starts["after form"] = rows[0].index(after_form, starts["form"])

    def cells(start, end, sep):
        found, current = [], ""
        for row in rows[2:]:
            if row.startswith("  (left out"):
                break
            piece = row[start:end].rstrip()
            if row.lstrip().startswith("prog.py:"):        # a new site starts
                if current:
                    found.append(current)
                current = piece.lstrip()
            else:
                current += sep + piece.strip() if not current.endswith(" ") else piece.strip()
        found.append(current)
        return found
    for source in SOURCE_LINES:
        sources = cells(starts["source"], starts["form"], " ")
        assert source in sources, sources
    # a form broken between its parts, read down its column, is the form again
    forms = cells(starts["form"], starts["after form"], "")
    assert LONG_FORM in forms, forms


@pytest.mark.parametrize("no_color", [False, True])
def test_on_a_terminal_colour_unless_no_color(program, no_color):
    leader, follower = pty.openpty()
    try:
        env = {"COLUMNS": "80", "TERM": "xterm"}
        if no_color:
            env["NO_COLOR"] = "1"
        out = _stats(program, env, stderr=follower)
        os.close(follower)
        follower = None
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        if follower is not None:
            os.close(follower)
        os.close(leader)
    text = b"".join(chunks).decode()
    assert out.returncode == 0
    assert "sites to look at" in text
    assert ("\x1b[" in text) is (not no_color)
    plain = text.replace("\x1b[1m", "").replace("\x1b[0m", "").replace("\r", "")
    assert max(len(line) for line in plain.splitlines()) <= 80
