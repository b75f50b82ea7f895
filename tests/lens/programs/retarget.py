"""Five classes round-robin through one site; after every call the program
reads the site's live state directly (opname from dis, cache cells from
``_co_code_adaptive``) and counts re-targetings and fall-backs itself.  After
each change it sleeps so the lens's sampler (a thread) sees every state.
Prints the direct counts as JSON."""
import dis
import json
import opcode
import sys
import time


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


class A:
    def __init__(self):
        self.x = 1


class B:
    def __init__(self):
        self.x = 2


class C:
    def __init__(self):
        self.x = 3


class D:
    def __init__(self):
        self.x = 4


class E:
    def __init__(self):
        self.x = 5


def get(o):
    return o.x


def site():
    for ins in dis.get_instructions(get):
        if ins.opname == "LOAD_ATTR":
            return ins.offset


def cache_cells(off):
    ice = opcode._inline_cache_entries
    n = ice["LOAD_ATTR"] if hasattr(ice, "items") else ice[opcode.opmap["LOAD_ATTR"]]
    b = get.__code__._co_code_adaptive
    return b[off + 4: off + 2 + 2 * n]   # every cache cell but the counter


def state(off):
    name = [i.opname for i in dis.get_instructions(get, adaptive=True)
            if i.offset == off][0]
    specialized = name != "LOAD_ATTR" and not name.endswith("_ADAPTIVE")
    return specialized, name, cache_cells(off)


def main():
    pause = float(sys.argv[1]) if len(sys.argv) > 1 else 0.02
    off = site()
    objs = [A(), B(), C(), D(), E()]
    prev = state(off)
    last_spec = None
    first = True
    retargets = fallbacks = 0
    i = 0
    while retargets < 12 and i < 200000:
        get(objs[i % 5])
        i += 1
        now = state(off)
        if now == prev:
            continue
        if now[0]:
            key = now[1:]
            if first:
                first = False
            elif not prev[0] or key != last_spec:
                retargets += 1
            last_spec = key
        elif prev[0]:
            fallbacks += 1
        prev = now
        settle(pause)
    json.dump({"retargets": retargets, "fallbacks": fallbacks, "calls": i,
               "offset": off}, sys.stdout)
    sys.stdout.write("\n")


main()
