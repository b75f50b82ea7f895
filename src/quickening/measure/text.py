"""Plain-text tables for the measurement commands' output (stdout).

They are quickening.termtable's tables: every character of a cell kept, within
$COLUMNS (else the terminal's width; output that is not a terminal has no limit
unless $COLUMNS is set) by leaving out the columns a caller names, in its order,
then wrapping the widest cells; bold headers only on a terminal without NO_COLOR.
"""

import sys

from quickening import termtable


def table(rows, indent="  ", drop_order=(), right=(), floors=None) -> list:
    """Lines of the table whose first row is its headers; its first column (what
    a row is about) is never wrapped unless floors says otherwise."""
    headers = [str(c) for c in rows[0]]
    body = [[str(c) for c in r] + [""] * (len(headers) - len(r)) for r in rows[1:]]
    out = sys.stdout
    floors = {headers[0]: None, **(floors or {})}
    return termtable.render(headers, body, width=termtable.width_for(out), indent=indent,
                            drop_order=drop_order, right=right, floors=floors,
                            colour=termtable.colour_for(out))


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")
