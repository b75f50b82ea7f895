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

Each copy costs the parent ~2 microseconds of kernel time (the pages are
pinned one by one; ``process_vm_readv`` in one call was no cheaper), so
what is read each round is what may show a class or an executor between
two agent samples: a stream whose opcodes or cached versions changed lately
is read every round, until it only comes back to shapes (opcodes and cached
versions) it showed before (a polymorphic site cycling through the classes
it has already shown); that one, and one where only counters moved (a site
that keeps missing counts down at every execution) every WARM_EVERY-th
round; the others, a few in turn.  A shape new to a stream makes it read
every round again.  Rounds are spaced further apart when they cost more
than PARENT_SHARE of a CPU (pyperformance's deltablue: ~30 streams
changing, ~100 microseconds a round), and the reading thread keeps off the
program's CPU (see runner._AwayFromProgram).

Where /proc is missing or the child's memory cannot be read (another user,
a ptrace policy), nothing is read from outside: the report then rests on
the agent's own samples, as before.

A copy with a new shape is kept only when a second read right after it
agrees outside the counters (CPython writes a cache entry in several
stores; a read in between would mix two states; a counter is one store,
and the program keeps running on another CPU while it is read), and no
copy is kept when only cells that move all the time changed (a loop's
back-edge counter, which the JIT counts down, and conditional jumps' branch
history; the agent names those cells, and the counters, once the code
object ran).
"""

import os
import time

from quickening.lens.decode import spans_between

ROUND_S = 0.001        # between rounds of reads while some stream keeps changing
IDLE_ROUND_S = 0.005   # between rounds while none does (the parent's CPU is shared)
HOT_S = 0.2            # a stream whose opcodes or cached versions changed this
                       # recently is read every round (one where only counters
                       # did, every WARM_EVERY-th)
COLD_PER_ROUND = 8     # others, in turn, this many per round
MAX_KEPT_BYTES = 32 << 20   # a long run of a site that never settles stops here
_HEADER = "quickening-lens-addrs"
PARENT_SHARE = 0.05    # rounds are spaced so they take at most this share of a CPU
WARM_EVERY = 5         # rounds between reads of a stream where only counters moved,
                       # or whose shape only comes back to ones seen before:
CYCLING_AFTER = 24     # this many copies in a row with no shape new to it
MAX_SHAPES = 512       # shapes remembered per stream (past it, each counts as new)


def _mask(spans):
    """An int with the bits of ``spans`` set: a stream read as a
    little-endian int and masked with it compares only those bytes."""
    m = 0
    for x, y in spans:
        m |= ((1 << (8 * (y - x))) - 1) << (8 * x)
    return m


def _fast(e, now):
    """Is stream ``e`` read every round: has its shape changed lately to
    one it had not shown?"""
    return now - e[10] < HOT_S and e[12] < CYCLING_AFTER


def _offsets(field):
    """The offsets of a ``O1,O2,..`` field (``-``: none)."""
    return [] if field == b"-" else [int(x) for x in field.split(b",")]


def _compared(b, mask):
    """What of stream ``b`` is compared between reads."""
    if b is None or mask is None:
        return b
    return int.from_bytes(b, "little") & mask


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
                                 #  spans compared (None: all), mask of those
                                 #  spans (an int, or None), last compared value,
                                 #  mask of the cells two copies must agree in,
                                 #  that part of the last copy, last time it changed,
                                 #  shapes seen, copies since a new one]
        self.by_cid = {}
        self.hot = []            # those that changed in the last HOT_S
        self.rounds = 0          # rounds begun
        self.round_cost = 0.0    # CPU time of a round, smoothed
        self._cold = 0
        self.reads = 0           # rounds that read something
        self.records = []        # (t, cid, bytes)
        self.torn = 0            # copies not kept: the next copy disagreed
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
                cells = _offsets(parts[3]) if len(parts) > 3 else None
                counters = _offsets(parts[4]) if len(parts) > 4 else []
            except (ValueError, IndexError):
                continue
            if cells is not None:
                # cells of a stream given before: what to compare
                for e in self.by_cid.get(cid, ()):
                    if e[1] == addr and e[2] == n:
                        if cells:
                            e[5] = spans_between(cells, n)
                            e[6] = _mask(e[5])
                            e[7] = _compared(e[3], e[6])
                        e[8] = _mask(spans_between(cells + counters, n))
                        e[9] = _compared(e[3], e[8])
                continue
            e = [cid, addr, n, None, 0.0, None, None, None, None, None, 0.0, set(), 0]
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
        t_cpu = time.thread_time()
        try:
            self._round()
        finally:
            # (new addresses are not counted: they come in bursts, at start)
            cost = time.thread_time() - t_cpu
            self.round_cost += (cost - self.round_cost) / 8

    def _round(self):
        self.rounds += 1
        now = time.perf_counter()
        codes = self.codes
        hot = self.hot = [e for e in self.hot if now - e[4] < HOT_S]
        # counters only, lately: every WARM_EVERY-th round of the fast pace
        warm_too = self.rounds % WARM_EVERY == 0 or not self._pacing(now)
        todo = [e for e in hot if warm_too or _fast(e, now)]
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
            key = _compared(b, e[6])
            if e[6] is not None and key == e[7]:
                continue      # only a back-edge counter or branch history moved
            shape = _compared(b, e[8])
            if shape != e[9]:
                # a new shape: kept only if a second copy agrees (outside the
                # counters, one store each); a copy with the last kept shape
                # and new counter values is no mix of two states
                again = self._read(e)
                if again is None:
                    return
                if again != b and _compared(again, e[8]) != shape:
                    self.torn += 1
                    continue      # caught in the middle of a write: next round
            t = time.perf_counter()
            if now - e[4] >= HOT_S:
                hot.append(e)
            if e[9] is None:
                e[11].add(shape)      # the first copy
            elif shape != e[9]:
                e[10] = t     # more than counters changed
                seen = e[11]
                if shape in seen:
                    e[12] += 1
                else:
                    e[12] = 0
                    if len(seen) < MAX_SHAPES:
                        seen.add(shape)
            e[3], e[4], e[7], e[9] = b, t, key, shape
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

    def _pacing(self, now):
        """Is some stream's shape (opcodes, cached versions) changing?"""
        return any(_fast(e, now) for e in self.hot)

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
        """How long to wait before the next round: ROUND_S while some
        stream's opcodes or cached versions keep changing, else IDLE_ROUND_S;
        longer when rounds cost more than PARENT_SHARE of that."""
        pace = ROUND_S if self._pacing(time.perf_counter()) else IDLE_ROUND_S
        # a program with many changing streams makes rounds dear: fewer of
        # them, so that the reader's CPU stays under PARENT_SHARE
        return max(pace, self.round_cost / PARENT_SHARE)

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
