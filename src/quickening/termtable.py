"""Tables for a terminal that keep every character of their cells.

Cells are plain strings, printed as they are (no markup: `values[i]` stays
`values[i]`).  The width is $COLUMNS when set, else the terminal's; output that
is not a terminal gets no width limit unless $COLUMNS is set, so piped output is
never cut.  A table wider than that first drops columns in the order its caller
states (and says which it dropped), then wraps the widest cells onto more lines,
breaking at a space where it can; the text of a wrapped cell is its lines joined.
Bold headers on a terminal unless $NO_COLOR is set (https://no-color.org).
"""

import os
import shutil

GAP = "  "
MIN_CELL = 6        # a column narrower than this is dropped rather than wrapped


def width_for(stream):
    """The width to fit, or None for no limit."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if _is_terminal(stream):
        return shutil.get_terminal_size((80, 24)).columns
    return None


def _is_terminal(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def colour_for(stream):
    return _is_terminal(stream) and not os.environ.get("NO_COLOR") and \
        os.environ.get("TERM") != "dumb"


def render(headers, rows, *, width=None, drop_order=(), right=(), floors=None, indent="",
           bold=False):
    """Lines of the table.  headers: column names; rows: lists of str; drop_order:
    the names of the columns to give up first when the table is too wide; right:
    the names of right-aligned columns; floors: {name: the narrowest a column may
    wrap to and stay readable} (None: never wrapped)."""
    floors = floors or {}
    rows = [[str(c) for c in row] for row in rows]
    keep = list(range(len(headers)))
    dropped = []
    natural = [max([len(headers[i])] + [len(r[i]) for r in rows]) for i in range(len(headers))]

    def floor(i):
        wanted = floors.get(headers[i], MIN_CELL)
        wanted = natural[i] if wanted is None else max(wanted, len(headers[i]))
        return min(natural[i], wanted)

    def least(cols):        # each column at its narrowest
        return len(indent) + sum(floor(i) for i in cols) + len(GAP) * (len(cols) - 1)

    if width is not None:
        for name in drop_order:
            if least(keep) <= width:
                break
            i = headers.index(name)
            if i in keep and len(keep) > 1:
                keep.remove(i)
                dropped.append(name)
    widths = {i: natural[i] for i in keep}
    if width is not None:
        # narrow the widest column, one character at a time, down to its floor
        def total():
            return len(indent) + sum(widths.values()) + len(GAP) * (len(keep) - 1)
        while total() > width:
            i = max(keep, key=lambda k: widths[k] - floor(k))
            if widths[i] <= floor(i):
                break
            widths[i] -= 1
    lines = [_line([headers[i] for i in keep], keep, widths, right, headers, indent, bold)]
    lines.append(indent + GAP.join("-" * widths[i] for i in keep))
    for row in rows:
        pieces = {i: _wrap(row[i], widths[i]) for i in keep}
        for n in range(max(len(p) for p in pieces.values())):
            cells = [pieces[i][n] if n < len(pieces[i]) else "" for i in keep]
            lines.append(_line(cells, keep, widths, right, headers, indent, False))
    if dropped:
        lines.append(f"{indent}(left out at {width} columns: {', '.join(dropped)})")
    return lines


def _line(cells, keep, widths, right, headers, indent, bold):
    out = []
    for cell, i in zip(cells, keep):
        text = cell.rjust(widths[i]) if headers[i] in right else cell.ljust(widths[i])
        if bold:
            text = f"\x1b[1m{text}\x1b[0m"
        out.append(text)
    return (indent + GAP.join(out)).rstrip()


def _wrap(text, width):
    """text in pieces of at most width characters; joined they are text again."""
    pieces = []
    while len(text) > width:
        cut = text.rfind(" ", 1, width)
        cut = cut + 1 if cut > 0 else width
        pieces.append(text[:cut])
        text = text[cut:]
    pieces.append(text)
    return pieces
