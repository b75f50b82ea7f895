"""Check the parent's rebuilding of a code record (quickening.lens.decode's
positions_of, site_meta and loop_meta, from co_linetable and co_names)
against what the interpreter running this file says: co_positions() and
dis's names and jump targets.  Prints JSON: the mismatches and counts."""
import dis
import glob
import importlib.util
import json
import os
import sys

spec = importlib.util.spec_from_file_location("lens_decode", sys.argv[1])
D = importlib.util.module_from_spec(spec)
spec.loader.exec_module(D)
tables = D.Tables.current()

# Forms a line table has: long lines (columns past 127 need the long form),
# wide expressions (end column > start + 15), multi-line ones, line jumps
# backwards (a loop's condition), lines far apart (big deltas), and code
# with no location (the implicit return of a class body, a generator's
# start-up).
WIDE = "x" * 200
SOURCE = f"""
import os
class C:
    def m(self, a):
        {WIDE} = a
        return self.attr + {WIDE} + a.very_long_attribute_name_here.other
    def g(self):
        yield self
        yield from range(3)
def f(n):
    t = 0
    while (n >
           0):
        n -= 1
        t += (n
              * 2
              + os.sep.count("a"))
    for i in range(n):
        try:
            t += i
        except Exception:
            pass
    return t
{chr(10) * 3000}
def far():
    return super
async def co():
    async for x in f:
        await x
class D(C):
    def m(self, a):
        return super().m(a) + super().attr
"""


def codes(code):
    yield code
    for k in code.co_consts:
        if hasattr(k, "co_code"):
            yield from codes(k)


mismatch = []
checked = {"codes": 0, "units": 0, "names": 0, "loops": 0}
sources = [("<crafted>", SOURCE)]
stdlib = os.path.dirname(os.__file__)
for path in sorted(glob.glob(os.path.join(stdlib, "*.py")))[:120]:
    if not os.path.isfile(path):     # Debian's build links to files it lacks
        continue
    with open(path, encoding="utf-8") as fh:
        sources.append((path, fh.read()))

NAMED = ("LOAD_GLOBAL", "LOAD_ATTR", "STORE_ATTR", "LOAD_METHOD", "LOAD_SUPER_ATTR")
for path, text in sources:
    try:
        top = compile(text, path, "exec", dont_inherit=True)
    except SyntaxError:
        continue
    for code in codes(top):
        checked["codes"] += 1
        co_code = code.co_code
        want = list(code.co_positions())
        got = D.positions_of(code.co_linetable, code.co_firstlineno, len(co_code) // 2)
        checked["units"] += len(want)
        if got != want:
            first = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), None)
            mismatch.append(["positions", path, code.co_qualname, len(got), len(want),
                             first, str(got[first] if first is not None else None),
                             str(want[first] if first is not None else None)])
            continue
        ins = dict((i.offset, i) for i in dis.get_instructions(code))
        for off, line, eline, col, ecol, name in D.site_meta(
                tables, co_code, code.co_names, got, sys.version_info):
            i = ins.get(off)
            if i is None:
                mismatch.append(["site at no instruction", path, code.co_qualname, off])
                continue
            if tuple(i.positions) != (line, eline, col, ecol):
                mismatch.append(["site position", path, code.co_qualname, off])
            if i.opname in NAMED:
                checked["names"] += 1
                if name != i.argval:
                    mismatch.append(["site name", path, code.co_qualname, off,
                                     i.opname, name, str(i.argval)])
            elif name != "":
                mismatch.append(["a name at an unnamed site", path, off, i.opname, name])
        backs = [i for i in ins.values() if i.opname == "JUMP_BACKWARD"]
        loops = D.loop_meta(tables, co_code, got)
        if sorted(l[0] for l in loops) != sorted(i.offset for i in backs):
            mismatch.append(["loop offsets", path, code.co_qualname])
            continue
        for off, line, hline in loops:
            checked["loops"] += 1
            i = ins[off]
            if line != i.positions.lineno or hline != ins[i.argval].positions.lineno:
                mismatch.append(["loop lines", path, code.co_qualname, off, line, hline,
                                 i.positions.lineno, ins[i.argval].positions.lineno])

json.dump({"mismatch": mismatch[:50], "checked": checked,
           "version": list(sys.version_info[:3])}, sys.stdout)
