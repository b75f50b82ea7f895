"""Reference for the warm-up test: run a fresh statement one execution at a
time and ask dis (adaptive=True) for each site's live name after each one.
argv: setup, stmt, executions.  Prints JSON: per execution {"qualname:offset": opname}."""
import dis
import json
import sys

setup, stmt, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
ns = {}
setup_code = compile(setup, "<setup>", "exec")
exec(setup_code, ns)
code = compile(stmt, "<stmt>", "exec")
CodeType = type(code)


def walk(c):
    yield c
    for k in c.co_consts:
        if isinstance(k, CodeType):
            yield from walk(k)


codes = list(walk(code)) + list(walk(setup_code))[1:]
out = []
for _ in range(n):
    exec(code, ns)
    snap = {}
    for c in codes:
        for i in dis.get_instructions(c, adaptive=True):
            snap["%s:%d" % (c.co_qualname, i.offset)] = i.opname
    out.append(snap)
json.dump(out, sys.stdout)
