"""A hot loop whose attribute site keeps failing its guard (five classes in
turn): with PYTHON_JIT=1 on 3.14+, tier 2 may start a trace at that site, and
its opcode byte becomes ENTER_EXECUTOR.  Prints, as JSON, the offsets of
`total` where the stream holds ENTER_EXECUTOR at the end (the program's own
reading of the raw stream) and which of them are back edges."""
import dis
import json
import sys


class A:
    def f(self):
        return 1


class B:
    def f(self):
        return 2


class C:
    def f(self):
        return 3


class D:
    def f(self):
        return 4


class E:
    def f(self):
        return 5


def total(objs):
    t = 0
    for o in objs:
        t += o.f()
    return t


objs = [k() for k in (A, B, C, D, E)] * 100
s = 0
for _ in range(300):
    s += total(objs)
code = total.__code__
ee = dis.opmap.get("ENTER_EXECUTOR")
raw = code._co_code_adaptive
back = [i.offset for i in dis.get_instructions(code) if i.opname == "JUMP_BACKWARD"]
at = [off for off in range(0, len(raw), 2) if ee is not None and raw[off] == ee]
print(s, file=sys.stderr)
print(json.dumps({"executors": at, "back_edges": back}))
