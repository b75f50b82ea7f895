"""Generated code is debuggable: its source is found under a name of its own.

A fused run (fusion.py) and an unpacking helper (ops/containers.py) are source
compiled at run time; a frame of one, as a traceback, pdb or a profiler finds
it on the host stack, must show its generated line -- after the program cleared
linecache too (the source is not put there: linecache finds it through the
generated code's globals when asked, as for a module's) -- while the program's
tracebacks still drop it.
"""

import json
import os
import subprocess
import textwrap

from tests.interp.differential import PYTHON

CHILD = textwrap.dedent(r'''
    import bdb, json, linecache, sys, textwrap, traceback
    from quickening import api
    from quickening.interp import fusion, tracebacks
    seen, frames = [], []
    def probe():
        # a native callee: the interpreter's host frames (a fused run among them) are below
        frame = sys._getframe(1)
        while frame is not None:
            code = frame.f_code
            if fusion.is_fused(code):
                source = [s for s, c in fusion._TEMPLATES.items() if c is code]
                seen.append({"file": code.co_filename, "line": frame.f_lineno,
                             "compiled": source[0].splitlines()[frame.f_lineno - 1],
                             "stack": traceback.format_stack(frame, 1)[0],
                             "pdb": bdb.Bdb().format_stack_entry((frame, frame.f_lineno)),
                             "internal": tracebacks.is_internal(code)})
                frames.append(frame)
            frame = frame.f_back
        return 1
    program = textwrap.dedent("""
    def hot(n):
        t = 0
        for i in range(n):
            t = t + probe() * i
        return t
    print(hot(3))
    """)
    api.run_code(compile(program, "<prog>", "exec"),
                 {"probe": probe, "__name__": "__main__"})
    linecache.clearcache()     # (what a program may do: the lines are still found)
    for s in seen:
        frame = [f for f in frames if f.f_code.co_filename == s["file"]][0]
        s["getline"] = linecache.getline(s["file"], s["line"], frame.f_globals).rstrip("\n")
    print(json.dumps(seen))
''')


def test_a_fused_frame_shows_its_generated_line():
    out = subprocess.run([PYTHON, "-c", CHILD], capture_output=True, text=True,
                         env={**os.environ, "QUICKENING_FUSE_AFTER": "1"}, timeout=120)
    assert out.returncode == 0, out.stderr
    printed, report = out.stdout.splitlines()
    assert printed == "3"
    seen = json.loads(report)
    assert seen, "no fused run was on the host stack under the call"
    names = {s["file"] for s in seen}
    assert any("hot at offset" in name for name in names), names
    for s in seen:
        assert s["getline"] == s["compiled"] and s["getline"].strip()
        assert s["getline"].strip() in s["stack"] and s["file"] in s["stack"]
        assert s["pdb"].endswith(s["getline"].strip()) and s["file"] in s["pdb"]
        # inside the package: the program's own tracebacks still leave it out
        assert s["internal"] is True


def test_distinct_sources_get_distinct_names_and_one_source_one_name():
    from quickening.interp import generated
    a = generated.filename("fused run", "def fused():\n    return 1\n")
    b = generated.filename("fused run", "def fused():\n    return 2\n")
    assert a != b
    assert a == generated.filename("fused run", "def fused():\n    return 1\n")


def test_an_unpacking_helper_shows_its_generated_line():
    import linecache
    import traceback

    from quickening import api  # noqa: F401  (the interpreter's modules, in their order)
    from quickening.interp import tracebacks
    from quickening.interp.ops.containers import _unpacker
    for unpack in (_unpacker(3), _unpacker(1, 2)):
        code = unpack.__code__
        linecache.clearcache()
        # found as pdb and tracebacks look: with the frame's globals
        lines = linecache.getlines(code.co_filename, unpack.__globals__)
        assert lines and lines[0].startswith("def unpack(value):")
        # the line its unpacking statement raises from (code line 2), in a traceback
        linecache.clearcache()
        try:
            unpack([])
        except ValueError as exc:
            shown = "".join(traceback.format_exception(exc))
        assert code.co_filename in shown and "= value" in shown.split(code.co_filename)[1]
        assert tracebacks.is_internal(code)


def test_generating_code_writes_nothing_into_linecache():
    import linecache

    from quickening import api  # noqa: F401
    from quickening.interp import generated
    from quickening.interp.ops.containers import _unpacker
    before = dict(linecache.cache)
    unpack = _unpacker(7)
    assert linecache.cache == before
    assert generated.source_of(unpack.__code__.co_filename).startswith("def unpack(value):")
