"""Tier-2 executors that do not start at a loop's back edge (run with
PYTHON_JIT=1 on 3.14+): `total`'s attribute site keeps failing its guard
(five classes in turn), so 3.14 starts a trace there; `fib` is hot and
recursive, so 3.15 starts one at its RESUME (and at a side exit inside).

The program reads its own raw streams natively and prints, as JSON, for each
function (`before`: right after the hot part; `at_exit`: in an atexit
handler, which runs before the lens's last read), every offset holding ENTER_EXECUTOR with the tier-1 instruction
the executor hides (``_opcode.get_executor(...).get_opcode()``), its
micro-ops and validity; ``sites``: the offsets of specialization sites
(families of ``opcode._specializations`` whose cache starts with a counter)
other than back edges, ``back_edges``: those of JUMP_BACKWARD.

``--invalidate``: once read, wait for the lens to sample, then change what
the executors depend on (a class of `total`'s, the module's globals) and
read their validity again."""
import atexit
import dis
import json
import opcode
import sys
import time

try:
    import _opcode
except ImportError:
    _opcode = None


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


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


#: each wait for the lens: (samples when it began, samples when it ended,
#: seconds), printed with the JSON (a wait that timed out explains a report
#: that missed the executors)
WAITS = []


def let_the_lens_sample():
    agent = getattr(sys.modules.get("_quickening_lens_agent"), "AGENT", None)
    if agent is None:
        return
    t0 = time.monotonic()
    start, deadline = agent.nsamples, t0 + 20
    while agent.nsamples < start + 2 and time.monotonic() < deadline:
        time.sleep(0.002)
    WAITS.append((start, agent.nsamples, round(time.monotonic() - t0, 3)))


def read(fn, ee, families):
    code = fn.__code__
    raw = code._co_code_adaptive
    out = {"executors": {}, "sites": [], "back_edges": [],
           "lines": sorted(set(ln for _, _, ln in code.co_lines() if ln is not None))}
    for ins in dis.get_instructions(code):
        off = ins.offset
        base = opcode.opname[dis._deoptop(ins.opcode)] if hasattr(dis, "_deoptop") \
            else ins.opname
        if base == "JUMP_BACKWARD":
            out["back_edges"].append(off)
        elif base in families:
            out["sites"].append(off)
        if ee is None or raw[off] != ee:
            continue
        try:
            ex = _opcode.get_executor(code, off)
        except (ValueError, RuntimeError):
            continue
        out["executors"][off] = {
            "index": raw[off + 1], "instruction": ins.opname, "line": ins.positions.lineno,
            "hidden": opcode.opname[ex.get_opcode()], "oparg": ex.get_oparg(),
            "uops": [u[0] for u in ex], "valid": ex.is_valid(), "ex": ex}
    return out


def read_all(ee, families):
    fns = [total, fib] + [k.f for k in (A, B, C, D, E)]
    return {fn.__qualname__: read(fn, ee, families) for fn in fns}


def main(invalidate):
    ee = dis.opmap.get("ENTER_EXECUTOR")
    families = set(f for f in getattr(opcode, "_specializations", {})
                   if "counter" in opcode._cache_format.get(f, {}))
    objs = [k() for k in (A, B, C, D, E)] * 100
    s = 0
    for _ in range(300):
        s += total(objs)
    s += fib(22)
    print(s, file=sys.stderr)
    before = read_all(ee, families)
    if invalidate:
        let_the_lens_sample()      # the lens sees the executors
        # CPython's own call that invalidates every executor (the side
        # exit's trace in `total` depends on no class: a class change would
        # leave it valid)
        sys._clear_internal_caches()
        let_the_lens_sample()

    def at_exit():
        # the state the lens reads last, at exit (the script's end already
        # changed its globals: `fib`'s executors, which guard them, are gone)
        for t in before.values():
            for e in t["executors"].values():
                e["valid_after"] = e.pop("ex").is_valid()
        last = read_all(ee, families)
        for t in last.values():
            for e in t["executors"].values():
                del e["ex"]
        print(json.dumps({"before": before, "at_exit": last, "waits": WAITS}))
    atexit.register(at_exit)      # runs before the lens's own handler


main("--invalidate" in sys.argv)
