"""Generated code is debuggable: its source is in linecache under a name of its own.

A fused run (fusion.py) and an unpacking helper (ops/containers.py) are source
compiled at run time; a frame of one, as a traceback, pdb or a profiler finds
it on the host stack, must show its generated line -- after
linecache.checkcache() too -- while the program's tracebacks still drop it.
"""

import json
import os
import subprocess
import textwrap

from tests.interp.differential import PYTHON

CHILD = textwrap.dedent(r'''
    import json, linecache, sys, textwrap, traceback
    from quickening import api
    from quickening.interp import fusion, tracebacks
    seen = []
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
                             "internal": tracebacks.is_internal(code)})
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
    linecache.checkcache()     # (drops entries of files it cannot stat, not ours)
    for s in seen:
        s["getline"] = linecache.getline(s["file"], s["line"]).rstrip("\n")
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

    from quickening import api  # noqa: F401  (the interpreter's modules, in their order)
    from quickening.interp import tracebacks
    from quickening.interp.ops.containers import _unpacker
    for unpack in (_unpacker(3), _unpacker(1, 2)):
        code = unpack.__code__
        linecache.checkcache()
        lines = linecache.getlines(code.co_filename)
        assert lines and lines[0].startswith("def unpack(value):")
        # the line its unpacking statement raises from (code line 2)
        assert "= value" in linecache.getline(code.co_filename, code.co_firstlineno + 1)
        assert tracebacks.is_internal(code)
