"""What `quickening run --stats` prints and `--stats-json` writes."""

import json
import sys


def collect():
    from quickening.interp import escapes
    return {
        "schema": "quickening-stats/1",
        "escapes": {
            "total": escapes.total(),
            "functions": [
                {"file": f, "qualname": q, "firstlineno": line, "count": n}
                for (f, q, line), n in escapes.COUNTS.most_common()
            ],
        },
    }


def report(options):
    data = collect()
    path = options.get("--stats-json")
    if path:
        with open(path, "w") as fh:
            json.dump(data, fh, indent=2)
    if options.get("--stats"):
        from rich.console import Console
        from rich.table import Table
        console = Console(stderr=True)
        esc = data["escapes"]
        console.print(f"[bold]escapes[/bold] (interpreted code that ran natively): {esc['total']}")
        if esc["functions"]:
            table = Table("function", "file:line", "count")
            for row in esc["functions"]:
                table.add_row(row["qualname"], f"{row['file']}:{row['firstlineno']}", str(row["count"]))
            console.print(table)
