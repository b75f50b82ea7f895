"""Run a case natively and in the interpreter (fresh processes) and compare its sites.

A case is Python source that defines the functions to watch and
`drive(record)`, which calls them and calls `record()` whenever the state of
every function listed in WATCH should be captured.  Each capture lists, per
watched function, every site's (offset, form, counter, cached class, decoded
cache cells resolved to what they stand for: sitestate.Resolver).  The
interpreted run also fails when interpreted code ran natively (escapes).
"""

import json
import os
import subprocess
import sys
import textwrap

CHILD = r"""
import json, sys
mode, path = sys.argv[1], sys.argv[2]
source = open(path).read()
namespace = {"__name__": "__case__"}
code = compile(source, path, "exec")
from quickening.interp import sitestate
if mode == "native":
    exec(code, namespace)
    snapshot = lambda fn, v: sitestate.native_sites(fn.__code__, v, cells=True)
else:
    from quickening import api
    from quickening.interp import escapes
    from quickening.interp.families import _datastack
    # the native run's frames sit on the frame of this -c code
    _datastack.BASE = _datastack.state_of_frames([compile(sys.orig_argv[2], "<string>", "exec")])
    escapes.enable()
    api.run_code(code, namespace)
    def snapshot(fn, v):
        info = sitestate.info_of(fn)
        assert info is not None, f"{fn.__qualname__} was not run by the interpreter"
        return sitestate.interpreted_sites(info, v, cells=True)
trace = []
def record():
    resolver = sitestate.resolver(namespace)
    trace.append({name: snapshot(namespace[name], resolver) for name in namespace["WATCH"]})
namespace["drive"](record)
if mode != "native":
    assert escapes.total() == 0, f"interpreted code ran natively: {dict(escapes.COUNTS)}"
print(json.dumps(trace))
"""


# Every interpreted run is made twice: as programs run (fused once warm), and
# with each code object fused at its first execution (fusion.py), where sites
# run in place and their runs are made again as they change form.  The two
# must give the same trace (and the callers compare it with the native one).
FUSED_AT_ONCE = {"QUICKENING_FUSE_AFTER": "1"}


def trace(source, mode, child=CHILD):
    result = _run(source, mode, child)
    if mode == "interpreted":
        fused = _run(source, mode, child, FUSED_AT_ONCE)
        assert fused == result, f"fused at once:\n{fused}\nas programs run:\n{result}"
    return result


def _run(source, mode, child, env=None):
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"),
                        f"qk_case_{os.getpid()}_{abs(hash(source))}.py")
    with open(path, "w") as fh:
        fh.write(textwrap.dedent(source))
    try:
        out = subprocess.run([sys.executable, "-c", child, mode, path], capture_output=True,
                             text=True, timeout=300, env={**os.environ, **(env or {})})
    finally:
        os.unlink(path)
    if out.returncode != 0:
        raise AssertionError(f"{mode} run failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def assert_same_sites(source):
    """Native and interpreted traces are identical; returns the native trace."""
    native = trace(source, "native")
    interpreted = trace(source, "interpreted")
    for step, (n, i) in enumerate(zip(native, interpreted)):
        assert i == n, f"capture {step} differs:\nnative      {n}\ninterpreted {i}"
    assert len(native) == len(interpreted)
    return native
