"""What `quickening run --stats` prints and `--stats-json` writes.

JSON schema `quickening-stats/2`:

    {"schema": "quickening-stats/2",
     "specialize": bool,
     "escapes": {"total": N, "functions": [{"file", "qualname", "firstlineno", "count"}]},
     "sites": [{
        "site": "file:qualname:firstlineno:offset",   # the key the fidelity command joins on
        "file", "qualname", "firstlineno", "offset", "line", "family",
        "form": live opname, "counter": raw counter cell, "value", "backoff",
        "executions": times the instruction ran,
        "specialized_executions": of which at a specialized form,
        "hits": specialized executions whose guards passed,
        "misses": guard failures (each runs the generic path and counts down),
        "deopts": times a specialized site fell back to the base form,
        "attempts", "successes", "failures": {kind: count} (pystats' names),
        "respecializations": successes after the first,
        "types": [[operand types, count], ...] (most common first)}]}

Executions, types and misses are counted only when statistics were requested
before the program ran (fused runs, used otherwise, do not count them); the
other fields always.
"""

import json
import linecache

# (imported with this module, before the program runs: a program's own module of
# the same name, a rich.py next to it, must not stand in for them afterwards)
from rich.console import Console
from rich.table import Table


def _sites():
    from quickening.interp.codeinfo import _INFOS
    for info in list(_INFOS.values()):
        for site in info.sites or ():
            yield info, site


def collect():
    from quickening.interp import escapes, quicken
    sites = []
    for info, site in _sites():
        code = info.code
        offset = site.pc * 2
        raw = site.counter
        sites.append({
            "site": f"{code.co_filename}:{code.co_qualname}:{code.co_firstlineno}:{offset}",
            "file": code.co_filename, "qualname": code.co_qualname,
            "firstlineno": code.co_firstlineno, "offset": offset,
            "line": info.line_at(site.pc), "family": site.family.name, "form": site.form,
            "counter": raw, "value": raw >> 4, "backoff": raw & 15,
            "executions": site.executions,
            "specialized_executions": site.specialized_executions,
            "hits": max(site.specialized_executions - site.misses, 0),
            "misses": site.misses, "deopts": site.deopts, "attempts": site.attempts,
            "successes": site.successes, "failures": dict(site.failures or {}),
            "respecializations": site.respecializations,
            "types": (site.types or {}) and [[k, v] for k, v in site.types.most_common()],
        })
    return {
        "schema": "quickening-stats/2",
        "specialize": quicken.Config.specialize,
        "escapes": {
            "total": escapes.total(),
            "functions": [
                {"file": f, "qualname": q, "firstlineno": line, "count": n}
                for (f, q, line), n in escapes.COUNTS.most_common()
            ],
        },
        "sites": sites,
    }


def _interesting(sites):
    """The sites worth a look: most misses, most failures, polymorphic."""
    def score(s):
        failures = sum(s["failures"].values())
        poly = len(s["types"]) if isinstance(s["types"], list) else 0
        return (s["misses"] + failures * 10 + (poly > 1) * s["executions"], s["executions"])
    ranked = [s for s in sites if s["misses"] or s["failures"] or
              (isinstance(s["types"], list) and len(s["types"]) > 1)]
    ranked.sort(key=score, reverse=True)
    return ranked


def report(options):
    data = collect()
    path = options.get("--stats-json")
    if path:
        with open(path, "w") as fh:
            json.dump(data, fh, indent=2)
    if not options.get("--stats"):
        return
    console = Console(stderr=True)
    if not console.is_terminal:
        console = Console(stderr=True, width=150)
    sites = data["sites"]
    specialized = sum(1 for s in sites if s["form"] != s["family"] and s["family"] != "RESUME")
    executed = [s for s in sites if s["executions"] or s["attempts"] or s["form"] != s["family"]]
    console.print(f"[bold]quickening[/bold]: {len(executed)} executed sites, "
                  f"{specialized} specialized now; specialization "
                  f"{'on' if data['specialize'] else 'off (--no-specialize)'}")
    top = _interesting(sites)[:15]
    if top:
        table = Table(title="sites to look at (most misses, failures, polymorphic)")
        for col in ("where", "source", "form", "exec", "hits", "misses", "failures", "types"):
            table.add_column(col, overflow="fold")
        for s in top:
            src = linecache.getline(s["file"], s["line"] or 0).strip()
            failures = ", ".join(f"{k}×{v}" for k, v in sorted(s["failures"].items(), key=lambda kv: -kv[1]))
            types = "; ".join(f"{k}×{v}" for k, v in (s["types"] or [])[:3])
            where = f"{s['file'].rsplit('/', 1)[-1]}:{s['line']} {s['qualname']}"
            table.add_row(where, src[:40], s["form"], str(s["executions"]), str(s["hits"]),
                          str(s["misses"]), failures, types)
        console.print(table)
    esc = data["escapes"]
    console.print(f"[bold]escapes[/bold] (interpreted code that ran natively): {esc['total']}")
    if esc["functions"]:
        table = Table("function", "file:line", "count")
        for row in esc["functions"]:
            table.add_row(row["qualname"], f"{row['file']}:{row['firstlineno']}", str(row["count"]))
        console.print(table)
