"""`quickening dis`: the interpreter's live quickened stream, in dis's format.

    quickening dis [--function QUALNAME]... [-o FILE] script.py args...
    quickening dis [...] -m module args... | -c code args...

Runs the program in the interpreter (its own output as usual), then lists
every code object of the program's files -- or only the functions named
with --function -- as `dis(adaptive=True)` would show CPython's, with each
site's inline caches decoded underneath: the counter (value and backoff) and
the cache fields (cached classes by name).  Unlike `dis` on CPython 3.13.0,
the cache fields are read from their own cells.
"""

import dis
import io
import os
import sys

from quickening.pyargs import UsageError, note_late_options, parse_python_like


def listing(info, out):
    from quickening.interp import sitestate
    code = info.code
    versions = sitestate.types_by_version()
    sites = {s.offset: s for s in sitestate._decode.decode(sitestate.tables(), code.co_code,
                                                            info.quickened.tobytes())}
    out.write(f"Disassembly of {code.co_qualname} ({code.co_filename}:{code.co_firstlineno}):\n")
    for instr in dis.get_instructions(sitestate.LiveCode(info), adaptive=True):
        text = instr._disassemble(lineno_width=4, mark_as_current=False, offset_width=4) \
            if hasattr(instr, "_disassemble") else repr(instr)
        out.write(f"  {instr.offset:>4} {_line(instr)}{instr.opname:<32} {instr.arg if instr.arg is not None else '':<4} "
                  f"{('(' + instr.argrepr + ')') if instr.argrepr else ''}\n")
        site = sites.get(instr.offset)
        if site is not None and site.family != "RESUME":
            out.write(f"       {'':5}{'':32} counter {site.counter_raw:#06x} "
                      f"(value {site.counter_value}, backoff {site.backoff})")
            fields = {k: v for k, v in site.fields.items() if v}
            if site.state == "specialized" and fields:
                out.write("  " + ", ".join(f"{k}={v}" for k, v in fields.items()))
            if site.type_version:
                cls = versions.get(site.type_version)
                out.write(f"  class={cls.__qualname__ if cls else '?'}")
            out.write("\n")
        del text
    out.write("\n")


def _line(instr):
    line = instr.positions.lineno if instr.positions else None
    return f"{line if instr.starts_line and line else '':>5} "


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    try:
        parsed = parse_python_like(argv, flags=("--no-specialize",), valued=("-o",),
                                   repeatable=("--function",), prog="quickening dis")
    except UsageError as exc:
        print(exc, file=sys.stderr)
        return 2
    note_late_options(parsed)
    if sys.version_info[:2] != (3, 13):
        print("quickening dis: the interpreter runs on CPython 3.13", file=sys.stderr)
        return 2
    from quickening.commands import run
    options = dict(parsed.options)
    status = run.execute(parsed.target, options)
    wanted = set(options.get("--function", []))
    program_dir = (os.path.dirname(os.path.realpath(parsed.target.value))
                   if parsed.target.kind == "path" else os.getcwd())
    from quickening.interp.codeinfo import _INFOS
    out = io.StringIO()
    for info in sorted(list(_INFOS.values()), key=lambda i: (i.code.co_filename, i.code.co_firstlineno)):
        code = info.code
        if wanted:
            if code.co_qualname not in wanted and code.co_name not in wanted:
                continue
        elif not (code.co_filename.startswith(program_dir) or code.co_filename == "<string>"):
            continue
        listing(info, out)
    if options.get("-o"):
        with open(options["-o"], "w") as fh:
            fh.write(out.getvalue())
    else:
        sys.stdout.write(out.getvalue())
    return status
