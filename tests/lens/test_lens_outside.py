"""The parent's reads of the watched program's code streams from outside the
process (quickening/lens/outside.py): what it copies is the memory at the
addresses the agent gave, a change is kept once, and memory it may not read
is said, not fatal."""

import ctypes
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # noqa: E402
from lens_helpers import run_watch

from quickening.lens.outside import OutsideReader

TOUR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                    "examples", "lens_tour.py")


def _addrs(tmp_path, pid, lines):
    path = tmp_path / "addrs"
    path.write_text("quickening-lens-addrs 1 %d %r\n" % (pid, time.perf_counter())
                    + "".join("%d %d %d\n" % l for l in lines))
    return str(path)


def _readable_child_memory():
    """Can this process read a child's /proc/PID/mem (the kernel's ptrace
    policy decides)?"""
    p = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                         stdin=subprocess.PIPE)
    try:
        with open("/proc/%d/maps" % p.pid) as f:
            start = int(f.readline().split("-")[0], 16)
        fd = os.open("/proc/%d/mem" % p.pid, os.O_RDONLY)
        try:
            return len(os.pread(fd, 8, start)) == 8
        finally:
            os.close(fd)
    except OSError:
        return False
    finally:
        p.communicate(b"")


def test_reader_copies_what_is_at_the_address_once_per_change(tmp_path):
    buf = ctypes.create_string_buffer(b"first-state!", 12)
    reader = OutsideReader(_addrs(tmp_path, os.getpid(), [(7, ctypes.addressof(buf), 12)]))
    try:
        reader.round()
        reader.round()                # unchanged: nothing new
        ctypes.memmove(buf, b"second-state", 12)
        reader.round()
        reader.round()
    finally:
        reader.close()
    assert reader.error is None
    assert [(cid, b) for _, cid, b in reader.records] == [
        (7, b"first-state!"), (7, b"second-state")]
    assert reader.reads == 4


def test_unreadable_memory_is_said_and_reads_nothing(tmp_path):
    p = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                       capture_output=True, text=True)
    gone = int(p.stdout)              # a process that has exited
    reader = OutsideReader(_addrs(tmp_path, gone, [(0, 4096, 8)]))
    reader.round()
    reader.round()
    reader.close()
    assert reader.records == [] and reader.reads == 0
    assert reader.error and reader.error.startswith("cannot read the program's memory")


def test_watch_reads_the_tour_from_outside_where_the_kernel_allows_it(tmp_path):
    out = tmp_path / "r.json"
    r = run_watch(["--quiet", "--json", str(out), TOUR])
    assert r.returncode == 0, r.stderr
    run = json.loads(out.read_text())["run"]
    if sys.platform.startswith("linux") and _readable_child_memory():
        assert run["outside_error"] is None, run
        assert run["outside_reads"] > 0 and run["outside_copies"] > 0, run
    else:
        assert run["outside_reads"] == 0 and run["outside_error"], run


def test_reader_stops_past_its_memory_bound_and_says_when(tmp_path, monkeypatch):
    from quickening.lens import outside
    monkeypatch.setattr(outside, "MAX_KEPT_BYTES", 30)
    buf = ctypes.create_string_buffer(b"state-00", 8)
    reader = OutsideReader(_addrs(tmp_path, os.getpid(), [(1, ctypes.addressof(buf), 8)]))
    for i in range(10):
        ctypes.memmove(buf, b"state-%02d" % i, 8)
        reader.round()
    reader.close()
    # 8 bytes a copy: the fourth goes past 30 bytes, and nothing is read after it
    assert [b for _, _, b in reader.records] == [b"state-%02d" % i for i in range(4)]
    assert reader.stopped and reader.stopped.startswith("stopped after 4 changed streams")


def test_a_stream_is_read_at_the_fast_pace_while_it_shows_shapes_new_to_it(tmp_path, monkeypatch):
    """A site cycling through classes it has already shown, or whose counter
    alone moves, no longer keeps the reader at its fast pace; a shape new
    to the stream brings it back.  (Cells 0-1: a counter, as the agent says;
    the other six bytes: the shape.)"""
    from quickening.lens import outside
    monkeypatch.setattr(outside, "PARENT_SHARE", 1.0)   # (the CPU budget is not looked at here)
    buf = ctypes.create_string_buffer(b"\x00\x00AAAAAA", 8)
    addr = ctypes.addressof(buf)
    path = _addrs(tmp_path, os.getpid(), [(3, addr, 8)])
    with open(path, "a") as f:
        f.write("3 %d 8 - 0\n" % addr)
    reader = OutsideReader(path)

    def show(data):
        ctypes.memmove(buf, data, 8)
        reader.round()
        return reader.pause()
    try:
        assert show(b"\x00\x00AAAAAA") == outside.IDLE_ROUND_S    # first copy
        assert show(b"\x00\x00BBBBBB") == outside.ROUND_S         # a new shape
        paces = [show(b"\x00\x00" + (b"AAAAAA" if i % 2 else b"BBBBBB"))
                 for i in range(outside.CYCLING_AFTER + 2)]
        assert paces[0] == outside.ROUND_S and paces[-1] == outside.IDLE_ROUND_S, paces
        kept = len(reader.records)
        assert show(b"\x05\x00AAAAAA") == outside.IDLE_ROUND_S    # the counter alone
        assert len(reader.records) == kept + 1                    # (still kept)
        assert show(b"\x05\x00CCCCCC") == outside.ROUND_S         # new again
    finally:
        reader.close()
    shapes = [b[2:] for _, _, b in reader.records]
    assert shapes[:3] == [b"AAAAAA", b"BBBBBB", b"AAAAAA"] and shapes[-1] == b"CCCCCC"
    assert reader.torn == 0
