"""Hot loops for the tier-2 view (run with PYTHON_JIT=1 on 3.14+).

`hot` gets an executor; the program reads it natively (its micro-op names
and validity) and prints that as JSON on stdout for the test to compare
with the lens.  Then a class change invalidates the executor; `cold` runs
too few iterations to get one."""
import json
import sys
import time

try:
    import _opcode
except ImportError:
    _opcode = None


class P:
    def __init__(self):
        self.x = 1


def hot(o, n):
    s = 0
    for i in range(n):
        s += o.x
    return s


def cold(n):
    t = 0
    for i in range(n):
        t += i
    return t


def back_edges(code):
    import dis
    return [i.offset for i in dis.get_instructions(code) if i.opname == "JUMP_BACKWARD"]


def let_the_lens_sample():
    """Under `quickening watch`, wait until its agent has taken two more
    samples (a fixed sleep is not enough on a loaded machine); natively, a
    short sleep."""
    agent = getattr(sys.modules.get("_quickening_lens_agent"), "AGENT", None)
    if agent is None:
        time.sleep(0.01)
        return
    start, deadline = agent.nsamples, time.monotonic() + 20
    while agent.nsamples < start + 2 and time.monotonic() < deadline:
        time.sleep(0.002)


def executor(code, offset):
    try:
        return _opcode.get_executor(code, offset)
    except Exception:
        return None


o = P()
print(hot(o, 20000), file=sys.stderr)
(off,) = back_edges(hot.__code__)
ex = executor(hot.__code__, off)
truth = {"offset": off, "made": ex is not None,
         "uops": [u[0] for u in ex] if ex is not None else None,
         "valid_before": ex.is_valid() if ex is not None else None}
let_the_lens_sample()     # the lens sees the executor
P.y = 2              # a class change after the loop warmed
truth["valid_after"] = ex.is_valid() if ex is not None else None
print(hot(o, 10), file=sys.stderr)
let_the_lens_sample()
print(cold(100), file=sys.stderr)
print(json.dumps(truth))
sys.exit(3)          # the watched program's own exit status is kept
