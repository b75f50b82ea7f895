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
objs = [A(1), B(2), A(3.0), B(4)]
for n in range(50):
    score([1, 2.0, 3], {"k": 2, 0: 1.5}, "k" if n % 2 else 0, objs)
print("ok")
"""

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


@pytest.mark.parametrize("columns", [80, 100])
def test_columns_is_honoured_by_dropping_then_wrapping(program, columns):
    out = _stats(program, {"COLUMNS": str(columns)})
    assert out.returncode == 0
    lines = out.stderr.splitlines()
    assert max(len(line) for line in lines) <= columns, out.stderr
    rows = _table_rows(out.stderr)
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
    src_col = rows[0].index("source")
    form_col = rows[0].index("form")
    cells, current = [], ""
    for row in rows[2:]:
        if row.startswith("  (left out"):
            break
        piece = row[src_col:form_col].rstrip()
        if row[:src_col].strip():        # a new site starts
            if current:
                cells.append(current)
            current = piece
        else:
            current += " " + piece if not current.endswith(" ") else piece
    cells.append(current)
    for source in SOURCE_LINES:
        assert source in cells, cells


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
