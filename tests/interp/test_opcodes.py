"""Every opcode the 3.13 compiler can emit has a handler, and the corpus executes each one."""

import glob
import os
import runpy
import subprocess
import sys

from quickening.interp import host
from quickening.interp.ops import registry

HERE = os.path.dirname(os.path.abspath(__file__))


def test_every_emittable_opcode_has_a_handler():
    import quickening.api  # noqa: F401  (registers the handlers)
    missing = [host.OPNAME[op] for op in host.EMITTABLE if registry.HANDLERS[op] is None]
    assert missing == []


COVERAGE_SCRIPT = r"""
import glob, io, os, sys, contextlib, json
from quickening.interp import host
from quickening.interp.ops import registry
from quickening.interp import quicken
quicken.Config.specialize = False   # the generic tier: every instruction through its handler
quicken.Config.fuse = False         # ... one by one, not as fused runs
import quickening.api as api
seen = set()
def counting(op, handler):
    def wrapped(f, stack, arg, nxt):
        seen.add(op)
        return handler(f, stack, arg, nxt)
    return wrapped
for op in host.EMITTABLE:
    registry.HANDLERS[op] = counting(op, registry.HANDLERS[op])
programs = sorted(glob.glob(os.path.join(sys.argv[1], "programs", "p*.py")))
extra = os.path.join(sys.argv[1], "programs", "coverage_extra.py")
# the opcodes to see (the test's list): once all are seen, the programs left to run
# cannot change what the test finds
wanted = {op for op in host.EMITTABLE if host.OPNAME[op] not in json.loads(sys.argv[2])}
for path in programs:
    if wanted <= seen:
        break
    print("RUN", os.path.basename(path), flush=True)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            api.run_path(path, run_name="__cov__", set_sys_path=False)
        except BaseException:
            pass
# (marked: a program's generators finalized at exit may print after it)
print("SEEN", json.dumps(sorted(host.OPNAME[op] for op in seen)), flush=True)
"""


# INTERPRETER_EXIT and EXIT_INIT_CHECK appear only in CPython's own internal
# code objects.  END_FOR is emitted after every for loop but never executed
# in 3.13: an exhausted FOR_ITER jumps past it (only the instrumented form
# lands on it); its handler is still checked by the first test.
INTERNAL_ONLY = ("INTERPRETER_EXIT", "EXIT_INIT_CHECK", "END_FOR")


def test_corpus_executes_every_opcode():
    import json
    out = subprocess.run([sys.executable, "-c", COVERAGE_SCRIPT, HERE, json.dumps(INTERNAL_ONLY)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    seen = set(json.loads(next(line[5:] for line in out.stdout.splitlines()
                               if line.startswith("SEEN "))))
    internal_only = set(INTERNAL_ONLY)
    emittable = {host.OPNAME[op] for op in host.EMITTABLE} - internal_only
    covered = seen & emittable
    print(f"\nopcode coverage: {len(covered)}/{len(emittable)}")
    missing = sorted(emittable - seen)
    print("not executed:", missing)
    assert missing == []
