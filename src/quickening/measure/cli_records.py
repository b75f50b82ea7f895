"""`quickening records`: list, show, re-render and compare measurement records."""

import math

from quickening.measure import cliutil, compare, records, text
from quickening.measure.runner import MeasureError

PROG = "quickening records"

USAGE = f"""\
usage: {PROG} [list] [--name NAME]          list records, oldest first
       {PROG} show REF                     print a record's summary and what it ran on
       {PROG} render REF [--chart STEM]    print the summary again and redraw its chart
       {PROG} compare REF1 REF2            compare two records of the same experiment
       {PROG} path REF                     print the record's file path

REF is a record id, a unique prefix of one, a .json path, `latest` or
`latest-NAME` (e.g. latest-polymorphism). Records are read from --records DIR,
else $QUICKENING_RECORDS, else ./quickening-records."""


def module_for(record):
    if record.get("kind") == "compare":
        return compare
    from quickening.measure.experiments import EXPERIMENTS
    mod = EXPERIMENTS.get(record.get("name"))
    if mod is None:
        raise MeasureError(f"record {record.get('id')} is of unknown kind {record.get('name')!r}")
    return mod


def interpreters_of(record) -> list:
    """[(label, description dict)] for every interpreter a record mentions."""
    interps = record.get("interpreters")
    out = []
    if isinstance(interps, dict):
        for label, info in interps.items():
            out.append((label, info or {}))
    elif isinstance(interps, list):
        for item in interps:
            out.append((item.get("python", "?"), item.get("interpreter") or {}))
    return out


def one_line(record) -> tuple:
    versions = sorted({(i.get("version") or "?") for _, i in interpreters_of(record)})
    head = ""
    if record.get("kind") == "compare" or record.get("name") == "jit":
        head = "; ".join(f"{w['workload']}: {w['verdict']}"
                         for w in record["summary"].get("workloads", []))
    elif record.get("name") == "polymorphism":
        bits = []
        for g in record["summary"].get("groups", []):
            last = g["rows"][-1] if g["rows"] else None
            if last and last.get("ratio"):
                bits.append(f"{g['variant']} {last['config']} {last['ratio']:.2f}×")
        head = ", ".join(bits)
    elif record.get("name") == "specialize":
        bits = []
        for i in record.get("interpreters", []):
            focus = [s["sites"][0] for s in i["summary"] if s["sites"]]
            done = sum(1 for f in focus if f["after"] != f["base"]
                       and not f["after"].endswith("_ADAPTIVE"))
            bits.append(f"{i['interpreter']['version']} {done}/{len(focus)}")
        head = ", ".join(bits) + " specialized"
    elif record.get("name") == "warmup":
        bits = []
        for i in record.get("interpreters", []):
            firsts = sorted({s["changes"][0][0] for s in i["sites"] if s["changes"]})
            bits.append(f"{i['interpreter']['version']} " + "/".join(map(str, firsts)))
        head = "first change after execution: " + ", ".join(bits)
    return (record.get("id", "?"), record.get("name", "?"), record.get("created") or "",
            " ".join(versions), head if len(head) <= 90 else head[:89] + "…")


def cmd_list(args, directory) -> int:
    name = None
    if args[:1] == ["--name"] and len(args) > 1:
        name = args[1]
    elif args:
        raise cliutil.UsageError(f"unexpected argument {args[0]!r}")
    rows = [("id", "experiment", "date", "interpreters", "headline")]
    for _, rec in records.list_records(directory):
        if name and rec.get("name") != name:
            continue
        rows.append(one_line(rec))
    if len(rows) == 1:
        print(f"no records in {directory}" + (f" named {name}" if name else ""))
        return 0
    print("\n".join(text.table(rows, indent="")))
    return 0


def describe(record) -> str:
    m = record.get("machine", {})
    lines = [f"record {record['id']} ({record['kind']} {record['name']})",
             f"  command: {' '.join(record.get('command', []))}",
             f"  machine: {m.get('cpu_model')}, {m.get('cores')} cores, load "
             f"{m.get('load_average')} at start, "
             f"{(record.get('machine_end') or {}).get('load_average')} at end; {m.get('platform')}; "
             f"{m.get('date')}"]
    for label, info in interpreters_of(record):
        build = info.get("build") or {}
        flags = " ".join(build.get("configure_flags") or []) or "-"
        jit = compare.jit_text(info.get("jit")) if isinstance(info.get("jit"), dict) else \
            f"sys._jit present: {info.get('jit')}"
        lines.append(f"  {label}: {info.get('executable')} {info.get('version')}; "
                     f"configure {flags}; {jit}")
    lines.append(f"  runs recorded: {len(record.get('runs') or [])}")
    return "\n".join(lines)


def cmd_show(args, directory) -> int:
    if len(args) != 1:
        raise cliutil.UsageError("show needs one record (id, prefix, path or latest)")
    path, record = records.find(args[0], directory)
    print(describe(record))
    print()
    print(module_for(record).render_text(record))
    for c in record.get("charts") or []:
        print(f"chart: {c}")
    print(f"file: {path}")
    return 0


def cmd_render(args, directory) -> int:
    stem = None
    if "--chart" in args:
        i = args.index("--chart")
        if i + 1 >= len(args):
            raise cliutil.UsageError("--chart needs a file stem")
        stem = args[i + 1]
        args = args[:i] + args[i + 2:]
    if len(args) != 1:
        raise cliutil.UsageError("render needs one record (id, prefix, path or latest)")
    path, record = records.find(args[0], directory)
    print(module_for(record).render_text(record))
    stem = stem or str(path.with_suffix(""))
    for c in cliutil.chart_files(record, stem):
        print(f"chart: {c}")
    return 0


def _fmt(v):
    if isinstance(v, float):
        return f"{v:.3f}"
    return "-" if v is None else str(v)


def _change(a, b):
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and a and \
            math.isfinite(a) and math.isfinite(b):
        return f"{(b / a - 1) * 100:+.1f}%"
    if a == b:
        return "same"
    return "differs"


def cmd_compare(args, directory) -> int:
    if len(args) != 2:
        raise cliutil.UsageError("compare needs two records")
    (_, r1), (_, r2) = records.find(args[0], directory), records.find(args[1], directory)
    if (r1.get("kind"), r1.get("name")) != (r2.get("kind"), r2.get("name")):
        raise MeasureError(f"{r1['id']} is {r1.get('name')} but {r2['id']} is {r2.get('name')}: "
                           "only records of the same experiment can be compared")
    mod = module_for(r1)
    h1, h2 = mod.headlines(r1), mod.headlines(r2)
    keys = list(h1) + [k for k in h2 if k not in h1]
    print(f"{r1['name']}: {r1['id']} ({r1.get('created')})  against  {r2['id']} "
          f"({r2.get('created')})")
    for label, rec in (("1", r1), ("2", r2)):
        m = rec.get("machine", {})
        versions = ", ".join(sorted({i.get("version") or "?" for _, i in interpreters_of(rec)}))
        print(f"  {label}: {m.get('cpu_model')}, {m.get('cores')} cores, load "
              f"{m.get('load_average')}; interpreters {versions}; params "
              + ", ".join(f"{k}={v}" for k, v in rec.get("params", {}).items()
                          if isinstance(v, (int, float, str)) and k != "timeout"))
    rows = [("figure", "record 1", "record 2", "change")]
    for k in keys:
        a, b = h1.get(k), h2.get(k)
        rows.append((k, _fmt(a), _fmt(b), _change(a, b)))
    print()
    print("\n".join(text.table(rows)))
    return 0


def cmd_path(args, directory) -> int:
    if len(args) != 1:
        raise cliutil.UsageError("path needs one record")
    path, _ = records.find(args[0], directory)
    print(path)
    return 0


COMMANDS = {"list": cmd_list, "show": cmd_show, "render": cmd_render, "compare": cmd_compare,
            "path": cmd_path}


def _main(argv) -> int:
    argv = list(argv)
    if argv[:1] in (["-h"], ["--help"], ["help"]):
        print(USAGE)
        return 0
    directory_opt = None
    if "--records" in argv:
        i = argv.index("--records")
        if i + 1 >= len(argv):
            raise cliutil.UsageError("--records needs a folder")
        directory_opt = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    else:
        for i, a in enumerate(argv):
            if a.startswith("--records="):
                directory_opt = a.split("=", 1)[1]
                argv = argv[:i] + argv[i + 1:]
                break
    directory = records.records_dir(directory_opt)
    if not argv or argv[0].startswith("--name"):
        return cmd_list(argv, directory)
    cmd = COMMANDS.get(argv[0])
    if cmd is None:
        raise cliutil.UsageError(f"unknown subcommand {argv[0]!r} "
                                 "(list, show, render, compare, path)")
    return cmd(argv[1:], directory)


def main(argv) -> int:
    return cliutil.guarded(PROG, _main, argv)
