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
import sys

# (imported with this module, before the program runs: a program's own module of
# the same name must not stand in for it afterwards)
from quickening import termtable

# The sites table at a width too small for all of it gives up these first, in
# this order (where, source, form and misses stay: they say which site and why)
SITE_COLUMNS = ("where", "source", "form", "exec", "hits", "misses", "failures", "types")
SITE_DROP_ORDER = ("types", "failures", "hits", "exec")
SITE_FLOORS = {"where": 14, "source": 24, "form": None, "failures": 18, "types": 18}


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
    out = sys.stderr
    width = termtable.width_for(out)
    colour = termtable.colour_for(out)
    sites = data["sites"]
    specialized = sum(1 for s in sites if s["form"] != s["family"] and s["family"] != "RESUME")
    executed = [s for s in sites if s["executions"] or s["attempts"] or s["form"] != s["family"]]
    lines = [f"quickening: {len(executed)} executed sites, {specialized} specialized now; "
             f"specialization {'on' if data['specialize'] else 'off (--no-specialize)'}"]
    top = _interesting(sites)[:15]
    if top:
        rows = []
        for s in top:
            # the source line exactly as written (only its indentation left out)
            src = linecache.getline(s["file"], s["line"] or 0).strip()
            failures = ", ".join(f"{k}×{v}" for k, v in sorted(s["failures"].items(), key=lambda kv: -kv[1]))
            seen = s["types"] or []
            types = "; ".join(f"{k}×{v}" for k, v in seen[:3])
            if len(seen) > 3:       # (the cell says what it leaves out; the JSON has them all)
                types += f"; {len(seen) - 3} more"
            where = f"{s['file'].rsplit('/', 1)[-1]}:{s['line']} {s['qualname']}"
            rows.append([where, src, s["form"], str(s["executions"]), str(s["hits"]),
                         str(s["misses"]), failures, types])
        lines.append("")
        lines.append("sites to look at (most misses, failures, polymorphic):")
        lines += termtable.render(list(SITE_COLUMNS), rows, width=width, drop_order=SITE_DROP_ORDER,
                                  floors=SITE_FLOORS,
                                  right=("exec", "hits", "misses"), indent="  ", colour=colour)
    esc = data["escapes"]
    lines.append(f"escapes (interpreted code that ran natively): {esc['total']}")
    if esc["functions"]:
        rows = [[row["qualname"], f"{row['file']}:{row['firstlineno']}", str(row["count"])]
                for row in esc["functions"]]
        lines += termtable.render(["function", "file:line", "count"], rows, width=width,
                                  right=("count",), indent="  ", colour=colour)
    out.write("\n".join(lines) + "\n")
    out.flush()
