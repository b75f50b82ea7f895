"""`quickening dis`: the interpreter's live quickened stream, in dis's format.

    quickening dis [--function QUALNAME]... [-o FILE] script.py args...
    quickening dis [...] -m module args... | -c code args... | - args...
    quickening dis --generated NAME... [...] script.py args...

Runs the program in the interpreter (its own output as usual), then lists
every code object of the program's files -- or only the functions named
with --function -- exactly as CPython's `dis.disassemble(code, adaptive=True,
show_caches=True)` prints it (labels, CACHE lines, exception table), with a
`#` line after each site's CACHE lines decoding them: the counter (value and
backoff) and the cache fields (cached classes by name).  Unlike `dis` on
CPython 3.13.0, whose CACHE lines repeat the first cell, the `#` line reads
each field from its own cell.  --function naming nothing that ran is an error.

--generated NAME (a function's qualified name or name; repeatable) prints,
instead of the listing (unless --function asks for it too), the Python source
the interpreter generated for that function: each entry point's fused run
(fusion.py), with its offset and line, the constants it names (p0, p1 ...)
and its file name as tracebacks and pdb show it -- or why it got none.
"""

import dis
import io
import os
import sys
from types import FunctionType

from quickening.pyargs import UsageError, note_late_options, parse_python_like


def listing(info, out):
    """CPython's own `dis.disassemble(code, adaptive=True, show_caches=True)` of the
    interpreter's live stream (labels, CACHE lines, exception table as dis prints
    them), with a `#` line after each site's caches: its counter decoded and its
    cache fields, each read from its own cell."""
    from quickening.interp import sitestate
    code = info.code
    versions = sitestate.types_by_version()
    sites = {s.offset: s for s in sitestate._decode.decode(sitestate.tables(), code.co_code,
                                                            info.quickened.tobytes())}
    out.write(f"Disassembly of {code.co_qualname} ({code.co_filename}:{code.co_firstlineno}):\n")

    class Decoding(dis.Formatter):
        def print_instruction(self, instr, mark_as_current=False):
            super().print_instruction(instr, mark_as_current)
            site = sites.get(instr.offset)
            if site is not None and site.family != "RESUME":
                print(" " * (self.lineno_width + self.label_width + 4) + "# " +
                      _decoded(site, versions), file=self.file)

    # dis.disassemble builds its Formatter by name: ours adds the decoded line.  It
    # asks for the executor of every code unit whose byte is ENTER_EXECUTOR, cache
    # cells included; the interpreter has none, and says so as CPython would
    saved = dis.Formatter, dis.get_executor
    dis.Formatter, dis.get_executor = Decoding, _no_executor
    try:
        dis.disassemble(_StreamCode(info), file=out, adaptive=True, show_caches=True)
    finally:
        dis.Formatter, dis.get_executor = saved
    out.write("\n")


class _StreamCode:
    """The code object with the interpreter's quickened stream (forms and cache
    cells in CPython's layout) as its `_co_code_adaptive`."""

    def __init__(self, info):
        self._code = info.code
        self._co_code_adaptive = info.quickened.tobytes()

    def __getattr__(self, name):
        return getattr(self._code, name)


def _no_executor(code, offset):
    raise ValueError("no executor at this offset")


def _decoded(site, versions):
    text = (f"counter {site.counter_raw:#06x} (value {site.counter_value}, "
            f"backoff {site.backoff})")
    fields = {k: v for k, v in site.fields.items() if v}
    if site.state == "specialized" and fields:
        text += "  " + ", ".join(f"{k}={v}" for k, v in fields.items())
    if site.type_version:
        cls = versions.get(site.type_version)
        text += f"  class={cls.__qualname__ if cls else '?'}"
    return text


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    try:
        parsed = parse_python_like(argv, flags=("--no-specialize",), valued=("-o",),
                                   repeatable=("--function", "--generated"), prog="quickening dis")
    except UsageError as exc:
        print(exc, file=sys.stderr)
        return 2
    note_late_options(parsed)
    if sys.version_info[:2] != (3, 13):
        print("quickening dis: the interpreter runs on CPython 3.13", file=sys.stderr)
        return 2
    from quickening import program
    try:
        target = program.check(parsed.target)
    except program.ProgramError as exc:
        print(f"quickening dis: {exc}", file=sys.stderr)
        return exc.status
    from quickening.commands import run
    options = dict(parsed.options)
    status = run.execute(target, options, "dis")
    wanted = set(options.get("--function", []))
    generated_for = options.get("--generated", [])
    program_dir = (os.path.dirname(os.path.realpath(target.value))
                   if target.kind == "path" and not program.is_stdin(target) else os.getcwd())
    from quickening.interp.codeinfo import _INFOS
    out = io.StringIO()
    found = set()
    infos = sorted(list(_INFOS.values()), key=lambda i: (i.code.co_filename, i.code.co_firstlineno))
    for info in infos if wanted or not generated_for else ():
        code = info.code
        if wanted:
            if code.co_qualname not in wanted and code.co_name not in wanted:
                continue
            found.update({code.co_qualname, code.co_name} & wanted)
        elif not (code.co_filename.startswith(program_dir)
                  or code.co_filename in ("<string>", "<stdin>")):
            continue
        listing(info, out)
    missing = sorted(wanted - found)
    if missing:
        # (only code that ran has a quickened stream to show)
        print(f"quickening dis: --function {', '.join(missing)}: no function of that name ran "
              f"in the program", file=sys.stderr)
        status = status or 1
    undefined = []
    for name in generated_for:
        codes = _codes_named(name, infos)
        if not codes:
            undefined.append(name)
        for code in codes:
            generated_source(code, _INFOS.get(id(code)), out)
    if undefined:
        print(f"quickening dis: --generated {', '.join(undefined)}: no function of that name "
              f"was defined by the interpreted code", file=sys.stderr)
        status = status or 1
    if options.get("-o"):
        with open(options["-o"], "w") as fh:
            fh.write(out.getvalue())
    else:
        sys.stdout.write(out.getvalue())
    return status


def _codes_named(name, infos):
    """The code objects called `name` (qualified name or name) that the interpreter
    ran, or that code it ran defines (a function never called has no CodeInfo)."""
    found, seen = [], set()
    todo = [info.code for info in infos]
    while todo:
        code = todo.pop()
        if id(code) in seen:
            continue
        seen.add(id(code))
        if name in (code.co_qualname, code.co_name):
            found.append(code)
        todo.extend(c for c in code.co_consts if type(c) is type(code))
    return sorted(found, key=lambda c: (c.co_filename, c.co_firstlineno))


def generated_source(code, info, out):
    """The fused runs of one code object, or why it has none."""
    from quickening.interp import fusion, generated, quicken
    out.write(f"Generated code of {code.co_qualname} ({code.co_filename}:{code.co_firstlineno}):\n")
    if info is None:
        out.write("  none: it never ran in the interpreter\n\n")
        return
    if not quicken.Config.fuse:
        out.write("  none: fusion is off (QUICKENING_NO_FUSION)\n\n")
        return
    if info.heat == 0:
        out.write("  none: it never ran in the interpreter\n\n")
        return
    if info.heat < fusion.HOT:
        out.write(f"  none: a code object is fused once it has been entered or has jumped "
                  f"back {fusion.HOT} times; this one, {info.heat}\n\n")
        return
    made, not_made = [], []
    for pc in sorted(info.entry_points):
        handler = info.instrs[pc][0]
        (made if type(handler) is FunctionType and fusion.is_fused(handler.__code__)
         else not_made).append(pc)
    out.write(f"  {len(made)} fused run(s) at its {len(info.entry_points)} entry points\n")
    if info.inlined_into:
        callers = sorted(f"{c.code.co_qualname} at offset {2 * e}" for c, e in info.inlined_into)
        out.write(f"  written into the run of {', '.join(callers)} (inlining.py)\n")
    inside = info.fuse_inside[0] if info.fuse_inside is not None else ()
    for pc in not_made:
        where = f"  offset {2 * pc} (line {info.line_at(pc)}): no run, "
        if info.instrs[pc][0] is not fusion._lazy:
            out.write(where + "a run from here would hold fewer than two instructions "
                      "or start with one that goes through the table\n")
            continue
        needed = fusion.INSIDE_WARMUP if pc in inside else fusion.ENTRY_WARMUP
        reached = (info.fuse_waits or {}).get(pc, 0)
        out.write(where + f"reached {reached} time{'' if reached == 1 else 's'} since the code "
                  f"got hot, made at {needed}"
                  + (" (another run goes through it)" if pc in inside else "") + "\n")
    for pc in made:
        fn = info.instrs[pc][0]
        out.write(f"\n-- run at offset {2 * pc} (line {info.line_at(pc)}), "
                  f"file {fn.__code__.co_filename}\n")
        params = fn.__globals__
        for k in range(len(params)):
            if f"p{k}" not in params:
                break
            value = repr(params[f"p{k}"])
            out.write(f"#   p{k} = {value if len(value) <= 72 else value[:69] + '...'}\n")
        out.write(generated.source_of(fn.__code__.co_filename) or "")
    out.write("\n")
