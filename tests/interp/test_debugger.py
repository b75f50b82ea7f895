"""pdb under `quickening run` stops where it stops under `python`: breakpoint()
and pdb.set_trace() stop at the program's line (not in an instruction's handler),
and stepping (n, s, r, c, breakpoints, up/down, where) goes through the program's
lines and frames.  Differential: the same program driven by the same scripted
commands on stdin prints the same session under both.  (No normalisation: both
runs show the same paths, the program's.)  The native run is not watched with
sys.monitoring (differential.as_programs: that changes where CPython's pdb stops)."""

import textwrap

from tests.interp.differential import as_programs

PROGRAM = """
import pdb

def helper(a):
    b = a * 3
    return b

def work(n):
    total = 0
    for i in range(n):
        total += helper(i)
    return total

def main():
    x = 10
    breakpoint()
    y = work(3)
    z = x + y
    try:
        {}["k"]
    except KeyError:
        z += 1
    return z

def again():
    for k in range(2):
        w = k * 2
        pdb.set_trace()
        w += 1
    return w

for _ in range(200):        # (warm: the program's functions specialized, fused)
    work(3)
print(main())
print(again())
print("done")
"""

SESSIONS = {
    "print, next, step, return, breakpoint, continue": """
        p x
        n
        s
        n
        p total
        r
        n
        n
        b 22
        c
        p z
        n
        p z
        c
        p k, w
        n
        p w
        c
        p k
        u
        p k
        d
        c
        """,
    "where, step into a callee, longlist": """
        w
        s
        s
        w
        s
        s
        s
        p a
        ll
        c
        c
        c
        """,
}


def test_breakpoint_and_set_trace_stop_at_the_programs_line(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    for commands in SESSIONS.values():
        nat, interp = as_programs(str(script), stdin=textwrap.dedent(commands).lstrip(),
                                  native_starts=False)
        assert interp.stdout == nat.stdout
        assert interp.stderr == nat.stderr
        assert interp.returncode == nat.returncode == 0
        assert interp.escapes == 0, f"interpreted code ran natively: {interp.escapes} starts"
        assert {s[1] for s in interp.starts} >= {"main", "work", "helper", "again"}


def test_opcode_events_of_a_trace_function(tmp_path):
    """f_trace_opcodes set by a trace function: an 'opcode' event before each
    instruction (after the line's 'line' event), with the frame's line and lasti;
    one per instruction executed where a cold site specializes meanwhile."""
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent("""
        import sys
        events = []
        def tracer(frame, event, arg):
            frame.f_trace_opcodes = True
            events.append((event, frame.f_code.co_name, frame.f_lineno, frame.f_lasti))
            return tracer

        def f(n):
            t = 0
            for i in range(n):
                t += i * 2 if i % 2 else i
            return t

        def cold(n):
            t = 0
            for i in range(n):
                t += len([i, i])
            return t

        def g():
            return f(5) + cold(4)

        for _ in range(100):
            f(20)
        sys.settrace(tracer)
        g()
        sys.settrace(None)
        for e in events:
            print(*e)
        """))
    nat, interp = as_programs(str(script), native_starts=False)
    assert interp.stdout == nat.stdout
    assert interp.stderr == nat.stderr
    assert interp.returncode == nat.returncode == 0
    assert interp.escapes == 0, f"interpreted code ran natively: {interp.escapes} starts"
    assert "opcode" in nat.stdout


def test_threading_settrace_traces_the_threads_interpreted_frames(tmp_path):
    """threading.settrace: the new thread's bootstrap (native) calls sys.settrace,
    which traces the thread's interpreted frames, as natively."""
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent("""
        import sys, threading
        events = []
        def tracer(frame, event, arg):
            if frame.f_code.co_filename == __file__:
                events.append((event, frame.f_code.co_name, frame.f_lineno))
            return tracer
        def work(n):
            t = 0
            for i in range(n):
                t += i
            return t
        threading.settrace(tracer)
        th = threading.Thread(target=work, args=(3,))
        th.start()
        th.join()
        threading.settrace(None)
        print(sys.gettrace())
        for e in events:
            print(*e)
        """))
    nat, interp = as_programs(str(script), native_starts=False)
    assert interp.stdout == nat.stdout
    assert interp.stderr == nat.stderr
    assert interp.returncode == nat.returncode == 0
    assert interp.escapes == 0, f"interpreted code ran natively: {interp.escapes} starts"
    assert "line work" in nat.stdout
