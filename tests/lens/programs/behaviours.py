"""Sites with known behaviour, run under `quickening watch` by the tests.

At the end the program prints, as JSON on stdout, what CPython itself says
about every instruction of the functions below
(``dis.get_instructions(fn, adaptive=True)``), plus the call at which the
late site first showed a specialized form.  The tests compare the lens's
report with that, so no expected form is written by hand here.
"""
import dis
import json
import sys
import time

PAUSE = float(sys.argv[1]) if len(sys.argv) > 1 else 0.03
PHASES = []


def settle(pause):
    """Let the lens's sampler see the current state: when watched, wait for
    two more samples (one full tick after now); otherwise just sleep."""
    agent = getattr(sys.modules.get("_quickening_lens_agent"), "AGENT", None)
    if agent is None:
        time.sleep(pause)
        return
    start = agent.nsamples
    deadline = time.time() + 5
    while agent.nsamples < start + 2 and time.time() < deadline:
        time.sleep(0.001)


def phase(*fns):
    """Record the live forms of fns (as CPython reports them), then pause
    so the lens's sampler thread sees this state too."""
    PHASES.append({fn.__qualname__: {
        str(ins.offset): ins.opname
        for ins in dis.get_instructions(fn, adaptive=True)} for fn in fns})
    settle(PAUSE)


class Mono:
    def __init__(self):
        self.x = 1


def mono(o):
    return o.x


class P1:
    def __init__(self):
        self.x = 1


class P2:
    def __init__(self):
        self.x = 2


class P3:
    def __init__(self):
        self.x = 3


class P4:
    def __init__(self):
        self.x = 4


class P5:
    def __init__(self):
        self.x = 5


def poly(o):
    return o.x


def add(a, b):
    return a + b


def div(a, b):
    return a / b


class Slotted:
    __slots__ = ("x",)

    def __init__(self):
        self.x = 7


def slot(o):
    return o.x


def late(a, b):
    return a - b


def missing(o):
    return o.x


def counters(fn):
    """{offset: raw counter word} as dis shows it (3.11/3.12: CACHE entries;
    3.13: cache_info, whose counter field is right)."""
    out = {}
    last = None
    for ins in dis.get_instructions(fn, adaptive=True, show_caches=True):
        if ins.opname == "CACHE":
            if last is not None and ins.argrepr.startswith("counter: "):
                out[str(last)] = int(ins.argrepr.split(": ")[1])
            continue
        last = ins.offset
        for name, size, data in (getattr(ins, "cache_info", None) or ()):
            if name == "counter":
                out[str(ins.offset)] = int.from_bytes(data, "little")
    return out


def live_form(fn, offset):
    for ins in dis.get_instructions(fn, adaptive=True):
        if ins.offset == offset:
            return ins.opname


def main():
    m = Mono()
    for _ in range(2000):
        mono(m)
    objs = [P1(), P2(), P3(), P4(), P5()]
    for i in range(20000):
        poly(objs[i % 5])
    for i in range(200):
        add(i, 1)
    phase(add)
    for i in range(200):
        add(i + 0.5, 1.5)
    phase(add)
    for i in range(3000):
        div(i, 3)
    s = Slotted()
    for _ in range(2000):
        slot(s)
    # `late`: int - float fails to specialize for a while, then int - int
    sub = [ins.offset for ins in dis.get_instructions(late)
           if ins.opname == "BINARY_OP"][0]
    for i in range(40):
        late(i, 0.5)
    phase(late)
    late_at = None
    for i in range(400):
        late(i, 1)
        if late_at is None and live_form(late, sub) != "BINARY_OP" \
                and not live_form(late, sub).endswith("_ADAPTIVE"):
            late_at = 40 + i + 1
    for _ in range(200):
        missing(m)
    for _ in range(20):
        missing(s)          # a few misses after it specialized for Mono
    forms = {}
    for fn in (mono, poly, add, div, slot, late, missing):
        forms[fn.__qualname__] = {
            str(ins.offset): ins.opname
            for ins in dis.get_instructions(fn, adaptive=True)}
    json.dump({"forms": forms, "late_at": late_at, "phases": PHASES,
               "counters": {fn.__qualname__: counters(fn)
                            for fn in (mono, poly, add, div, slot, late, missing)},
               "version": list(sys.version_info[:3])}, sys.stdout)
    sys.stdout.write("\n")


main()
