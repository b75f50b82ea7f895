"""Tables for a terminal that keep every character of their cells.

Cells are plain strings, printed as they are (no markup: `values[i]` stays
`values[i]`).  The width is $COLUMNS when set, else the terminal's; output that
is not a terminal gets no width limit unless $COLUMNS is set, so piped output is
never cut.  A table wider than that first drops columns in the order its caller
states (and says which it dropped), then wraps the widest cells onto more lines
(to the narrowest each column may go, then, if the table is still too wide,
narrower: even the cells a caller keeps whole break between their words),
breaking at a space where it can, else after an underscore (headers too, never inside a word); the text of a
wrapped cell is its lines joined.
On a terminal, unless $NO_COLOR is set (https://no-color.org) or TERM is
dumb, headers are bold and cells may carry a colour; colour codes never count
toward a cell's width.
"""

import os

GAP = "  "
MIN_CELL = 6        # a column narrower than this is dropped rather than wrapped


def width_for(stream):
    """The width to fit, or None for no limit."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if _is_terminal(stream):
        try:        # this stream's terminal (shutil's asks stdout's, which may be a file)
            return os.get_terminal_size(stream.fileno()).columns or 80
        except (AttributeError, ValueError, OSError):
            return 80
    return None


def _is_terminal(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def colour_for(stream):
    return _is_terminal(stream) and not os.environ.get("NO_COLOR") and \
        os.environ.get("TERM") != "dumb"


# SGR parameters for the colour names callers use
SGR = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "blue": "34",
       "magenta": "35", "cyan": "36", "orange": "38;5;208"}


def render(headers, rows, *, width=None, drop_order=(), right=(), floors=None, indent="",
           colour=False, styles=None):
    """Lines of the table.  headers: column names; rows: lists of str; drop_order:
    the names of the columns to give up first when the table is too wide; right:
    the names of right-aligned columns; floors: {name: the narrowest a column may
    wrap to and stay readable} (None: its cells never wrapped); colour: bold headers and the
    styles; styles: per row, {column name: names in SGR, e.g. "bold green"}."""
    floors = floors or {}
    styles = styles or [{}] * len(rows)
    rows = [[str(c) for c in row] for row in rows]
    keep = list(range(len(headers)))
    dropped = []
    natural = [max([len(headers[i])] + [len(r[i]) for r in rows]) for i in range(len(headers))]

    def floor(i):
        wanted = floors.get(headers[i], MIN_CELL)
        # a header wraps at its spaces, never inside a word
        longest_word = max(len(w) for w in headers[i].split(" "))
        if wanted is None:      # its cells never wrap (its header still may)
            wanted = max([0] + [len(r[i]) for r in rows])
        return min(natural[i], max(wanted, longest_word))

    def last_resort(i):
        """The narrowest a column may go when the floors still leave the table too
        wide: MIN_CELL, or for a column whose cells never wrap, its longest word
        (words end at spaces and after underscores: a form such as
        LOAD_ATTR_NONDESCRIPTOR_WITH_VALUES breaks between its parts, a number
        never)."""
        longest_word = max(len(w) for w in headers[i].split(" "))
        wanted = MIN_CELL
        if floors.get(headers[i], MIN_CELL) is None:
            wanted = max([0] + [len(word) for r in rows
                                for word in r[i].replace("_", "_ ").split(" ")])
        return min(natural[i], max(wanted, longest_word))

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
        # narrow the widest column still above its floor, one character at a time
        def total():
            return len(indent) + sum(widths.values()) + len(GAP) * (len(keep) - 1)
        # then, if that is not enough, below the floors: a table taller than it
        # would like is still read; one wider than the terminal is garbled
        for narrowest in (floor, last_resort):
            while total() > width:
                above = [k for k in keep if widths[k] > narrowest(k)]
                if not above:
                    break
                widths[max(above, key=lambda k: widths[k])] -= 1
    head_style = {headers[i]: "bold" for i in keep} if colour else {}
    lines = _wrapped_row(headers, keep, widths, right, headers, indent, head_style)
    lines.append(indent + GAP.join("-" * widths[i] for i in keep))
    for row, style in zip(rows, styles):
        lines += _wrapped_row(row, keep, widths, right, headers, indent, style if colour else {})
    if dropped:
        lines.append(f"{indent}(left out at {width} columns: {', '.join(dropped)})")
    return lines


def _wrapped_row(row, keep, widths, right, headers, indent, style):
    pieces = {i: _wrap(row[i], widths[i]) for i in keep}
    return [_line([pieces[i][n] if n < len(pieces[i]) else "" for i in keep], keep, widths,
                  right, headers, indent, style)
            for n in range(max(len(p) for p in pieces.values()))]


def _line(cells, keep, widths, right, headers, indent, style):
    out = []
    for cell, i in zip(cells, keep):
        pad = " " * (widths[i] - len(cell))
        sgr = ";".join(SGR[name] for name in style.get(headers[i], "").split() if name in SGR)
        if sgr and cell:        # (the padding stays outside the colour)
            cell = f"\x1b[{sgr}m{cell}\x1b[0m"
        out.append(pad + cell if headers[i] in right else cell + pad)
    return (indent + GAP.join(out)).rstrip()


def _wrap(text, width):
    """text in pieces of at most width characters; joined they are text again."""
    pieces = []
    while len(text) > width:
        # after a space; else after an underscore (BINARY_OP_ / ADD_INT); else anywhere
        cut = text.rfind(" ", 1, width)
        if cut <= 0:
            cut = text.rfind("_", 1, width)
        cut = cut + 1 if cut > 0 else width
        pieces.append(text[:cut])
        text = text[cut:]
    pieces.append(text)
    return pieces
