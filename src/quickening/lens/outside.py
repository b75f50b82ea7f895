"""Reading the watched program's code streams from outside the process.

The agent's sampler is a thread of the program: while the program computes
it gets the GIL about once per switch interval (5 ms), and a polymorphic
site can re-target many times a millisecond, so which classes it showed
changed from run to run.  The parent, waiting for the child anyway, copies
the streams of the code objects found straight from ``/proc/PID/mem``
about every millisecond while one of them keeps changing (every 5 ms when
none does): no GIL, nothing asked of the program, the same
bytes ``code._co_code_adaptive`` returns.  The agent says where they are
(see ``_Addresses`` in agent.py) and, at exit, names every class and
function version it can, as it cannot know which ones these reads saw.

Where /proc is missing or the child's memory cannot be read (another user,
a ptrace policy), nothing is read from outside: the report then rests on
the agent's own samples, as before.

A copy is kept only when two reads in a row agree (CPython writes a cache
entry in several stores; a read in between would mix two states), and not
when only cells that move all the time did (a loop's back-edge counter,
which the JIT counts down, and conditional jumps' branch history; the agent
names those cells once the code object ran).
"""

import os
import time

from quickening.lens.decode import spans_between

ROUND_S = 0.001        # between rounds of reads while some stream keeps changing
IDLE_ROUND_S = 0.005   # between rounds while none does (the parent's CPU is shared)
HOT_S = 0.2            # a stream that changed this recently is read every round
COLD_PER_ROUND = 8     # others, in turn, this many per round
MAX_KEPT_BYTES = 32 << 20   # a long run of a site that never settles stops here
_HEADER = "quickening-lens-addrs"


class OutsideReader(object):
    def __init__(self, addrs_path):
        self.addrs_path = addrs_path
        self._addrs_fd = None
        self._partial = b""
        self.pid = None
        self.t0 = None
        self.fd = None
        self.dead = False
        self.codes = []          # [cid, address, nbytes, last bytes, last change,
                                 #  spans compared (None: all)]
        self.by_cid = {}
        self.hot = []            # those that changed in the last HOT_S
        self._cold = 0
        self.reads = 0           # rounds that read something
        self.records = []        # (t, cid, bytes)
        self.kept_bytes = 0
        self.error = None
        self.stopped = None      # why reading stopped early, if it did

    def _take_lines(self):
        if not self.addrs_path:
            self.dead = True
            return
        try:
            if self._addrs_fd is None:
                self._addrs_fd = os.open(self.addrs_path, os.O_RDONLY)
            data = os.read(self._addrs_fd, 1 << 16)
        except OSError:
            return
        if not data:
            return
        data = self._partial + data
        lines = data.split(b"\n")
        self._partial = lines.pop()
        for line in lines:
            parts = line.split()
            if not parts:
                continue
            if parts[0].decode("ascii", "replace") == _HEADER:
                if self.pid is None and len(parts) == 4 and parts[1] == b"1":
                    self.pid, self.t0 = int(parts[2]), float(parts[3])
                    try:
                        self.fd = os.open("/proc/%d/mem" % self.pid, os.O_RDONLY)
                    except OSError as exc:
                        self.error = "cannot read the program's memory: %s" % exc.strerror
                        self.dead = True
                continue
            try:
                cid, addr, n = int(parts[0]), int(parts[1]), int(parts[2])
                cells = [int(x) for x in parts[3].split(b",")] if len(parts) > 3 else None
            except (ValueError, IndexError):
                continue
            if cells is not None:
                # counter cells of a stream given before: compare the rest
                for e in self.by_cid.get(cid, ()):
                    if e[1] == addr and e[2] == n:
                        e[5] = spans_between(cells, n)
                continue
            e = [cid, addr, n, None, 0.0, None]
            self.codes.append(e)
            self.by_cid.setdefault(cid, []).append(e)

    def _read(self, entry):
        try:
            return os.pread(self.fd, entry[2], entry[1])
        except OSError as exc:
            # the program has exited (its memory is gone) or forbids reading
            if self.reads == 0 and self.error is None:
                self.error = "cannot read the program's memory: %s" % exc.strerror
            self.dead = True
            return None

    def round(self):
        """One round: new addresses, then the hot streams and a few others."""
        if self.dead:
            return
        self._take_lines()
        if self.fd is None or not self.codes:
            return
        now = time.perf_counter()
        codes = self.codes
        hot = self.hot = [e for e in self.hot if now - e[4] < HOT_S]
        todo = list(hot)
        n = len(codes)
        for _ in range(min(COLD_PER_ROUND, n)):
            e = codes[self._cold % n]
            self._cold += 1
            if now - e[4] >= HOT_S:
                todo.append(e)
        for e in todo:
            b = self._read(e)
            if b is None:
                return
            if b == e[3] or len(b) != e[2]:
                continue
            if e[5] is not None and e[3] is not None and all(
                    b[x:y] == e[3][x:y] for x, y in e[5]):
                continue      # only a back-edge counter or branch history moved
            again = self._read(e)
            if again != b:
                continue      # caught in the middle of a write: next round
            t = time.perf_counter()
            if now - e[4] >= HOT_S:
                hot.append(e)
            e[3], e[4] = b, t
            self.records.append((t - self.t0, e[0], b))
            self.kept_bytes += len(b)
            if self.kept_bytes > MAX_KEPT_BYTES:
                self.stopped = ("stopped after %d changed streams (%d MB), at %.1f s"
                                % (len(self.records), self.kept_bytes >> 20, t - self.t0))
                self.dead = True
                return
        self.reads += 1
        if self.reads == 1:
            self._say_reading()

    def _say_reading(self):
        """Tell the agent the streams are read from here (a file beside the
        addresses): it then leaves the copying to us and wakes less often."""
        try:
            os.close(os.open(self.addrs_path + ".reading", os.O_WRONLY | os.O_CREAT, 0o600))
        except OSError:
            pass

    def finish(self):
        """After the program exited: say so if the agent never gave addresses."""
        if self.pid is None and self.addrs_path and not self.dead:
            self._take_lines()
            if self.pid is None and self.error is None:
                self.error = ("the agent gave no addresses (the program's own "
                              "/proc/self/mem could not be read)")
        self.close()

    def pause(self):
        """How long to wait before the next round."""
        return ROUND_S if self.hot else IDLE_ROUND_S

    def close(self):
        if self.addrs_path:
            try:
                os.unlink(self.addrs_path + ".reading")
            except OSError:
                pass
        if self._addrs_fd is not None:
            os.close(self._addrs_fd)
            self._addrs_fd = None
        if self.fd is not None:
            try:
                os.close(self.fd)
            except OSError:
                pass
            self.fd = None
        self.dead = True
