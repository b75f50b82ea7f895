"""Plain-text tables for terminal output (copyable, no colour codes)."""


def table(rows, indent="  ") -> list:
    """Left-aligned columns; a rule under the first row."""
    rows = [tuple(str(c) for c in r) for r in rows]
    widths = [max(len(r[i]) if i < len(r) else 0 for r in rows) for i in range(len(rows[0]))]
    out = []
    for n, r in enumerate(rows):
        out.append(indent + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        if n == 0:
            out.append(indent + "  ".join("-" * w for w in widths))
    return out


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")
