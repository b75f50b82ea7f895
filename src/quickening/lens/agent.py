"""The lens agent: runs *inside* the watched program (CPython 3.11 to 3.15).

Stdlib only, loaded by file path from the ``sitecustomize`` shim next to it,
so the watched interpreter needs nothing installed.  It

* discovers code objects without tracing: an audit hook on ``exec`` (imports,
  ``exec``/``eval``, ``runpy``), the frames of running threads on the first
  ticks (``sys._current_frames``, which is how the ``__main__`` code is found),
  ``co_consts`` recursively, and functions/classes of the program's modules
  at exit;
* samples every discovered code object's ``_co_code_adaptive`` from a daemon
  thread every ``interval`` and once at exit, keeping only the streams that
  changed;
* maps the type versions cached by specialized forms back to classes by
  reading each class's ``tp_version_tag`` from memory (``/proc/self/mem``,
  or ctypes where there is no /proc; the offset is measured once per
  interpreter by the parent, see ``decode.probe_offsets``), and function
  versions cached by CALL forms back to the program's functions;
* notices when the program turns on ``sys.settrace``, ``sys.setprofile`` or
  ``sys.monitoring`` events, which de-specialize what they watch;
* streams marshal records (format 4, readable by any later Python) to the
  output file.

Start-up cost matters (it is part of the watched run), so the agent avoids
heavy imports: opcode tables and the compiled agent come from the parent in
marshal files, memory is read with os.pread, threads come from ``_thread``.

It never installs a tracer, a profiler or a monitoring callback.

Record kinds (tuples, first item is the kind):
``("hello", info)``, ``("code", cid, meta)``, ``("sample", t, [(cid, bytes)],
final)``, ``("types", {version: "module.qualname"})``,
``("funcs", {version: "module.qualname"})``, ``("probe", offsets)``,
``("event", t, kind, detail)`` (kind: an audit event name, "sys.monitoring",
"note" or "agent-error"), ``("end", t, info)``.
"""

import _thread
import atexit
import marshal
import os
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))


def _load_decode():
    name = "_quickening_lens_decode"
    if name in sys.modules:
        return sys.modules[name]
    path = os.path.join(_HERE, "decode.py")
    try:
        import _frozen_importlib as boot
        import _frozen_importlib_external as ext
        spec = ext.spec_from_file_location(name, path)
        return boot._load(spec)
    except Exception:
        import importlib.util
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        return mod


def _stdlib_prefixes():
    out = set()
    std = os.path.dirname(os.__file__)
    for p in (std, os.path.realpath(std)):
        out.add(p + os.sep)
    for p in sys.path:
        if p and ("site-packages" in p or "dist-packages" in p):
            out.add(os.path.abspath(p) + os.sep)
    out.add(_HERE + os.sep)
    return tuple(sorted(out))


# audit events of the calls that start another process
_STARTS_PROCESS = frozenset(("os.fork", "os.forkpty", "os.posix_spawn", "os.spawn",
                             "os.system", "subprocess.Popen"))


def _multiprocessing_processes():
    """How many Process objects multiprocessing made here (its workers may be
    forked by a server process, where no audit event of ours sees them): its
    counter, read without advancing it."""
    mp = sys.modules.get("multiprocessing.process")
    counter = getattr(mp, "_process_counter", None) if mp is not None else None
    text = repr(counter) if type(counter).__name__ == "count" else ""
    try:
        return int(text[len("count("):-1]) - 1
    except ValueError:
        return 0


_FIRST_WALK = 0.25   # s: no walk of the classes or functions before (see Agent)

_SPAN = 1 << 16      # one read of /proc/self/mem covers values this close together


def _identity():
    """(key, address): functions giving a live object's identity (a dict
    key) and its address.  id() raises the audit event builtins.id, which
    calls every audit hook, ours (a Python function) included: a walk of the
    classes cost one hook call per class.  object.__hash__ is CPython's
    pointer hash, the address rotated right by 4 bits, with no event; it is
    checked against id() once, and id() is used if it does not match."""
    bits = 8 * (8 if sys.maxsize > 2 ** 32 else 4)
    mask = (1 << bits) - 1
    key = object.__hash__

    def address(obj):
        h = key(obj) & mask
        return ((h << 4) | (h >> (bits - 4))) & mask
    probes = (object(), address, 1.5, type)
    if all(address(o) == id(o) for o in probes):
        return key, address
    return id, id


_key, _address = _identity()


def _memory_reader():
    """A function reading native unsigned 32-bit ints at a list of addresses.

    /proc/self/mem with os.pread costs no import, but every pread lets go of
    the GIL, and a CPU-bound program that takes it then keeps it for a whole
    switch interval (5 ms): one read per class made a walk of 300 classes
    last 90 ms while the program ran.  So values close together in memory
    are read with one pread (classes are allocated near each other).
    ctypes (whose import costs ~10 ms of start-up, most of a short run's
    overhead) is the fallback where /proc is not available."""
    try:
        fd = os.open("/proc/self/mem", os.O_RDONLY)
        order = sys.byteorder
        pread = os.pread

        def read_one(addr):
            try:
                return int.from_bytes(pread(fd, 4, addr), order)
            except OSError:
                return 0

        def read_u32s(addrs):
            n = len(addrs)
            out = [0] * n
            by_addr = sorted(range(n), key=addrs.__getitem__)
            i = 0
            while i < n:
                start = addrs[by_addr[i]]
                j = i
                while j + 1 < n and addrs[by_addr[j + 1]] + 4 - start <= _SPAN:
                    j += 1
                try:
                    data = pread(fd, addrs[by_addr[j]] + 4 - start, start)
                except OSError:
                    data = b""   # an unmapped page in between: one by one
                for k in by_addr[i:j + 1]:
                    a = addrs[k] - start
                    out[k] = (int.from_bytes(data[a:a + 4], order) if a + 4 <= len(data)
                              else read_one(addrs[k]))
                i = j + 1
            return out
        ptr = 8 if sys.maxsize > 2 ** 32 else 4
        probe = 1.5
        if int.from_bytes(pread(fd, ptr, _address(probe) + ptr), order) == _address(float):
            return read_u32s
        os.close(fd)
    except (OSError, AttributeError, ValueError):
        pass
    import ctypes
    c_uint32 = ctypes.c_uint32

    def read_u32s(addrs):
        return [c_uint32.from_address(a).value for a in addrs]
    return read_u32s


class _Addresses(object):
    """Where the streams of the code objects found are, for the parent's
    reader (quickening/lens/outside.py), which copies them from
    /proc/PID/mem about every millisecond without the GIL: an in-process
    thread gets one turn per switch interval, too few to see a site that
    re-targets many times a millisecond.  A text file: a header line
    ``quickening-lens-addrs 1 PID T0`` (T0: the agent's perf_counter origin),
    then ``CID ADDRESS NBYTES`` lines (again with `` O1,O2,.. C1,C2,..`` once
    the code object ran: its cells that move all the time and its counters,
    see _send_meta and publish_moving).  Nothing is written unless the
    layout is checked: the stream is a code object's inline array at
    type(code).__basicsize__."""

    def __init__(self, path, t0):
        self.fd = None
        self.base = None
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND)
            mem = os.open("/proc/self/mem", os.O_RDONLY)
        except OSError:
            return
        try:
            code = _os_threads.__code__    # runs only at a fork: its stream stays put
            base = type(code).__basicsize__
            want = code._co_code_adaptive
            if os.pread(mem, len(want), _address(code) + base) != want:
                os.close(fd)
                return
        except (OSError, AttributeError, ValueError):
            os.close(fd)
            return
        finally:
            os.close(mem)
        self.fd, self.base = fd, base
        self._send("quickening-lens-addrs 1 %d %r\n" % (os.getpid(), t0))

    def _send(self, text):
        try:
            os.write(self.fd, text.encode())
        except OSError:
            self.fd = None

    def publish(self, entries):
        if self.fd is not None and entries:
            base = self.base
            self._send("".join("%d %d %d\n" % (e[0], _address(e[1]) + base, len(e[2]))
                               for e in entries))

    def publish_moving(self, cid, code, offsets, counters):
        """``CID ADDRESS NBYTES O1,O2,.. C1,C2,..``: byte offsets of 2-byte
        cells of a published stream whose changes alone are not worth a
        copy (``-``: none), then those of its sites' counters (one 16-bit
        store each: a copy caught while one changes is not torn)."""
        if self.fd is not None:
            self._send("%d %d %d %s %s\n" % (cid, _address(code) + self.base,
                                              len(code._co_code_adaptive),
                                              ",".join(map(str, offsets)) or "-",
                                              ",".join(map(str, counters)) or "-"))


_MAX_DYNAMIC = 2000
_BUDGET = 50          # wait at least 50x the last tick's cost between ticks
_CALM_MAX = 0.05      # whole samples back off to this while the parent reads
                      # from outside and nothing needs the agent
_HOT_TICKS = 4        # full ticks a changed code object stays in the focused reads
_FOCUS_WAIT = 0.001   # between focused reads (the GIL's switch interval, 5 ms, is
                      # what spaces them while the program computes)


def _same_in(a, b, spans):
    """Do streams ``a`` and ``b`` agree in ``spans`` ([(start, end)])?"""
    for x, y in spans:
        if a[x:y] != b[x:y]:
            return False
    return True


def _opcode_finder(starts, size, op):
    """A function giving the offsets among ``starts`` (the instruction
    offsets of a stream of ``size`` bytes) where a stream holds opcode ``op``.

    ENTER_EXECUTOR's byte (255 on 3.14) is common in cache cells (counters,
    versions, pointers), so a search for it stopped at most cells and paid
    a set lookup each: on a loop under the JIT that was most of a sample's
    cost.  Here the stream is taken as one int: the opcode bytes are kept,
    XORed with ``op`` (zero where it is there), every other byte is made
    non-zero, and the zero bytes left are the hits."""
    keep = pattern = 0
    for off in starts:
        keep |= 0xFF << (8 * off)
        pattern |= op << (8 * off)
    others = int.from_bytes(b"\x01" * size, "little") & ~keep
    zero = b"\x00"

    def find(b):
        if len(b) != size:
            return []
        x = ((int.from_bytes(b, "little") & keep) ^ pattern) | others
        flat = x.to_bytes(size, "little")
        out = []
        i = flat.find(zero)
        while i >= 0:
            out.append(i)
            i = flat.find(zero, i + 1)
        return out
    return find


class _Output(object):
    """Our record file, written with os.write from our own buffer (no
    BufferedWriter that could complain at exit).  Before each write the fd
    is checked to still be *our* file: a program that closes every fd and
    reuses the number must never receive our bytes."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        st = os.fstat(self.fd)
        self.ident = (st.st_dev, st.st_ino)
        self.buf = []
        self.dead = False

    def add(self, data):
        if not self.dead:
            self.buf.append(data)

    def flush(self):
        if self.dead or not self.buf:
            return
        data = b"".join(self.buf)
        self.buf = []
        try:
            st = os.fstat(self.fd)
            if (st.st_dev, st.st_ino) != self.ident:
                self.dead = True
                return
            view = memoryview(data)
            while view:
                n = os.write(self.fd, view)
                view = view[n:]
        except OSError:
            self.dead = True

    def close(self):
        self.flush()
        if not self.dead:
            try:
                os.close(self.fd)
            except OSError:
                pass
        self.dead = True


def _os_threads():
    """Threads of this process as Linux counts them (0 if unknown)."""
    try:
        with open("/proc/self/stat", "rb") as f:
            return int(f.read().rsplit(b")", 1)[1].split()[17])
    except (OSError, ValueError, IndexError):
        return 0


class _Event(object):
    """The little of threading.Event we need, on _thread."""

    def __init__(self):
        self._lock = _thread.allocate_lock()
        self._lock.acquire()
        self.is_set = False

    def set(self):
        if not self.is_set:
            self.is_set = True
            self._lock.release()

    def wait(self, timeout):
        if self._lock.acquire(True, timeout):
            self._lock.release()
            return True
        return False


class Agent(object):
    def __init__(self, out_path, interval, scope, tables_path=None, addrs_path=None):
        self.decode = _load_decode()
        self.tables = None
        self.tables_path = None
        self._offsets = None
        self._extend_deltas = None
        if tables_path:
            try:
                with open(tables_path, "rb") as f:
                    d = marshal.loads(f.read())
                if tuple(d["version"]) == tuple(sys.version_info[:3]):
                    self.tables = self.decode.Tables.from_dict(d)
                    self.tables_path = tables_path
                    self._offsets = d.get("offsets")
                    self._extend_deltas = d.get("extend_from_int")
            except Exception:
                self.tables = None
        if self.tables is None:
            self.tables = self.decode.Tables.current()
        self.interval = interval
        self.scope = scope
        self.pid = os.getpid()
        self.t0 = time.perf_counter()
        self.lock = _thread.RLock()
        self.out = _Output(out_path)
        self.addrs = _Addresses(addrs_path, self.t0) if addrs_path else None
        # the parent says it reads the streams from outside (about every
        # millisecond) by creating this file; see run()
        self.reading_flag = addrs_path + ".reading" if addrs_path else None
        self.outside_reading = False
        self.calm_wait = interval
        self.acted = 0           # things a tick did that only the agent can do
        self._codes_at_tick = 0
        self.published = 0       # code objects whose address the parent was given
        self.codes = {}          # _key(code) -> [cid, code, last bytes, tvslots]
        self.ignored = {}        # _key(code) -> code, not the program's
        self.by_cid = []
        self.pending_exec = []   # (code, force) from the audit hook
        self.dynamic = 0         # run-time compiled code objects taken
        self.skip_prefixes = _stdlib_prefixes()
        self.known_types = {}    # version -> name
        self.unresolved = set()
        self.known_funcs = {}
        self.func_unresolved = set()
        self.type_index = {}     # every class version seen by a walk -> name
        self.func_index = {}
        self.want_types = set()  # versions waiting for the next walk
        self.want_funcs = set()
        # (the first walk waits: a short program is walked once, at exit -- a
        # walk in the middle of the run reads memory with a pread per group of
        # classes, each giving up the GIL to the program and waiting to take it
        # back, ~1-2 ms of a 0.1 s run)
        self.next_type_walk = self.t0 + _FIRST_WALK
        self.next_func_walk = self.t0 + _FIRST_WALK
        self.events_seen = set()
        self.stop = _Event()
        self.exited = None
        self.handle = None
        self.nsamples = 0
        self.sample_cost = 0.0
        self.first_tick_cost = None
        self.slowed = False
        self.main_ident = _thread.get_ident()   # the agent starts in main
        self.main_found = False
        self.read_cost = 0.0
        self.hot = {}            # cid -> full ticks left to read it between them
        self.walk_cost = 0.0     # thread time spent walking the classes
        self.indexes_fresh = False   # both walks done at exit (see finish)
        self.nfocused = 0        # focused reads done (between full ticks)
        self.done = False
        self.tv_ops, self.fv_ops = self._version_ops()
        # sys._jit says "off" while site runs (the JIT starts after it): asked
        # again at the first tick and at exit (see _tier2_check)
        self.tier2 = self.decode.tier2_state()
        self.tier2_on = False
        self.tier2_checks = 0
        self.starts = {}         # cid -> its ENTER_EXECUTOR finder (_opcode_finder)
        self.positions = {}      # cid -> list(code.co_positions())
        self.executor_offsets = {}   # cid -> offsets holding an executor we read
        self.ee_byte = (bytes([self.tables.enter_executor])
                        if self.tables.enter_executor is not None else None)
        self.extend_op = None    # BINARY_OP_EXTEND's opcode, until its table is sent
        if "BINARY_OP_EXTEND" in self.tables.opname:
            self.extend_op = bytes([self.tables.opname.index("BINARY_OP_EXTEND")])
        self.executors = {}      # (cid, offset) -> (executor index, executor)
        self.started = {}        # audit event that starts another process -> times
        self.tp_version_offset = None
        self.func_version_offset = None
        self._probed = False
        self._read_u32 = None
        self._probe_error = None
        self._write(("hello", {
            "version": list(sys.version_info[:3]),
            "implementation": sys.implementation.name,
            "executable": sys.executable,
            "pid": self.pid,
            "interval": interval,
            "scope": scope,
            "tables": None if self.tables_path else self.tables.to_dict(),
            "tables_path": self.tables_path,
            "argv": list(sys.argv),
            "tier2": self.tier2,
        }))
        self.out.flush()

    # -- set-up -----------------------------------------------------------

    def _version_ops(self):
        t = self.tables
        tv, fv = set(), set()
        for op, name in enumerate(t.opname):
            if not t.is_specialized(op):
                continue
            base = t.opname[t.deopt[op]]
            if base in ("LOAD_ATTR", "STORE_ATTR", "LOAD_METHOD"):
                if not name.endswith("_MODULE"):
                    tv.add(op)
            elif name in ("TO_BOOL_ALWAYS_TRUE", "CALL_ALLOC_AND_ENTER_INIT"):
                tv.add(op)
            elif name == "BINARY_SUBSCR_GETITEM" and t.cache_entries[t.deopt[op]] > 1:
                tv.add(op)
            elif base == "CALL" and ("PY_" in name or "BOUND_METHOD" in name):
                if t.cache_entries[t.deopt[op]] >= 3:
                    fv.add(op)
        return tv, fv

    def _reader(self):
        """read(addresses) -> their native u32 values"""
        if self._read_u32 is None:
            self._read_u32 = _memory_reader()
        return self._read_u32

    def _probe(self):
        if self._probed:
            return
        self._probed = True
        try:
            if self._offsets:   # measured once per interpreter by the parent
                self.tp_version_offset = self._offsets["tp_version_tag"]
                self.func_version_offset = self._offsets["func_version"]
            else:
                d = self.decode.probe_offsets()
                self.tp_version_offset = d["tp_version_tag"]
                self.func_version_offset = d["func_version"]
        except Exception as exc:
            self._probe_error = repr(exc)
        self._write(("probe", {"tp_version_offset": self.tp_version_offset,
                               "func_version_offset": self.func_version_offset,
                               "error": self._probe_error}))

    # -- output -----------------------------------------------------------

    def _write(self, rec):
        with self.lock:
            if self.out is None:
                return
            self.out.add(marshal.dumps(rec, 4))

    def now(self):
        return time.perf_counter() - self.t0

    # -- discovery --------------------------------------------------------

    def interesting(self, code):
        fn = code.co_filename
        if fn.startswith(_HERE):
            return False
        if self.scope == "all":
            return True
        if fn.startswith("<frozen"):
            return False
        if fn.startswith("<"):
            return True
        return not os.path.abspath(fn).startswith(self.skip_prefixes)

    def register(self, code, force=False):
        k = _key(code)
        if k in self.codes or k in self.ignored:
            return
        if not force and not self.interesting(code):
            self.ignored[k] = code   # keep it alive: keys stay unique
            return
        stack = [code]
        while stack:
            c = stack.pop()
            k = _key(c)
            if k in self.codes:
                continue
            cid = len(self.by_cid)
            # [cid, code, last bytes, type-version slots, meta sent, t of last,
            #  spans compared (None: all; see _send_meta), structure]
            entry = [cid, c, None, None, False, 0.0, None, None]
            self.codes[k] = entry
            self.by_cid.append(entry)
            for k in c.co_consts:
                if type(k) is type(c):
                    stack.append(k)

    def _send_meta(self, cid, code):
        # the code object as it is: its sites and loops (names, positions)
        # are worked out by the parent after the run (decode.complete_code_meta)
        co_code = code.co_code
        self._write(("code", cid, {
            "filename": code.co_filename,
            "name": code.co_name,
            "qualname": getattr(code, "co_qualname", code.co_name),
            "firstlineno": code.co_firstlineno,
            "co_code": co_code,
            "names": code.co_names,
            "linetable": code.co_linetable,
        }))
        # Back edges' counters (the JIT counting) and conditional jumps'
        # branch history change the stream all the time a loop runs: they
        # are left out when comparing streams, here and by the parent (a
        # loop's counter at exit, all the report shows of them, comes from
        # the last sample, which is taken whole)
        cells = self.decode.moving_cells(self.tables, co_code)
        if cells:
            self.by_cid[cid][6] = self.decode.spans_between(cells, len(co_code))
        if self.addrs is not None and self.published:
            counters = [off + 2 for off, op, arg, ncache in self._structure(self.by_cid[cid])
                        if ncache]
            if cells or counters:
                self.addrs.publish_moving(cid, code, cells, counters)

    def _structure(self, entry):
        """decode.structure of a code object, made once."""
        got = entry[7]
        if got is None:
            got = entry[7] = self.decode.structure(self.tables, entry[1].co_code)
        return got

    # -- tier 2 -----------------------------------------------------------

    def _check_executors(self, entry, b, now):
        """An instruction whose byte became ENTER_EXECUTOR got a tier-2
        executor: a loop's back edge, and on 3.14+ also a guard that kept
        failing (a trace starts at the side exit) or, on 3.15, a hot
        function's RESUME.  Each is read once (micro-ops, guards, exits, and
        the tier-1 instruction it hides: its opcode and oparg, which the
        stream no longer shows) and kept, to tell when it is gone
        (invalidated or thrown away)."""
        cid, code = entry[0], entry[1]
        held = self.executor_offsets.get(cid)
        ee = self.ee_byte
        if not held and ee not in b:
            return
        finder = self.starts.get(cid)
        if finder is None:
            finder = self.starts[cid] = _opcode_finder(
                self.decode.instruction_offsets(self.tables, code.co_code),
                len(b), ee[0])
        found = finder(b)
        if held:
            for off in [o for o in held if o not in found]:
                self._executor_gone((cid, off), now)
        for off in found:
            key = (cid, off)
            index = b[off + 1]
            prev = self.executors.get(key)
            if prev is not None:
                if prev[0] == index:
                    continue
                self._executor_gone(key, now)
            got = self.decode.executor_info(code, off)
            if got is None:
                continue
            info, ex = got
            positions = self.positions.get(cid)
            if positions is None:
                positions = self.positions[cid] = list(code.co_positions())
            for u in info["uops"]:
                o = u[3]
                u.append(positions[o // 2][0] if o is not None and
                         o // 2 < len(positions) else None)
            self.executors[key] = (index, ex)
            self.executor_offsets.setdefault(cid, set()).add(off)
            self.acted += 1
            self._write(("executor", now, cid, off, index, info))

    def _check_extend(self, b, now):
        """Name BINARY_OP_EXTEND's descriptors (3.14+) the first time one may
        be in use: once per process, the descriptors are static.  The parent
        measured where they lie from `int` (the tables file); probing them
        here compiles and runs fifteen little functions (~2 ms)."""
        if self.extend_op not in b:
            return
        self.extend_op = None
        try:
            if self._extend_deltas:
                base = _address(int)
                found = dict((base + d, name) for d, name in self._extend_deltas.items())
            else:
                found = self.decode.extend_descriptors(self.tables)
            self._write(("extend", found))
        except Exception as exc:
            self._write(("event", now, "agent-error", "extend: %r" % (exc,)))

    def _executor_gone(self, key, now):
        self.acted += 1
        prev = self.executors.pop(key)
        self.executor_offsets[key[0]].discard(key[1])
        try:
            valid = bool(prev[1].is_valid())
        except Exception:
            valid = None
        self._write(("executor-gone", now, key[0], key[1], prev[0], valid))

    def audit(self, event, args):
        if event == "exec":
            code = args[0] if args else None
            if not hasattr(code, "co_code"):
                return
            fn = code.co_filename
            if fn.startswith("<") and not fn.startswith("<frozen"):
                # source compiled at run time: the program's only if the
                # code calling exec/eval is (namedtuple, dataclasses... are not)
                if self.dynamic >= _MAX_DYNAMIC:
                    return
                # (no Python frame under it: the interpreter itself runs the
                # program's main code, read from stdin or given with -c)
                main = False
                try:
                    f = sys._getframe(1)
                    while f is not None and f.f_code.co_filename.startswith("<frozen"):
                        f = f.f_back
                except ValueError:
                    f, main = None, True
                except Exception:
                    f = None
                if self.scope != "all" and not main and (
                        f is None or not self.interesting(f.f_code)):
                    return
                self.dynamic += 1
                if self.dynamic == _MAX_DYNAMIC:
                    self._write(("event", self.now(), "note",
                                 "more than %d code objects compiled at run time: "
                                 "later ones are not watched" % _MAX_DYNAMIC))
                self.pending_exec.append((code, True))
            else:
                self.pending_exec.append((code, False))
        elif event in _STARTS_PROCESS:
            # (what runs there is not watched: the shim is off their PYTHONPATH)
            self.started[event] = self.started.get(event, 0) + 1
        elif event == "os.exec":
            # the process is about to become another program: no exit hooks
            # run, so its last sample is taken now
            if not self.done and os.getpid() == self.pid:
                t = self.now()
                self._write(("event", t, "note",
                             "the program replaced itself with os.exec* (%s) at %.3f s: "
                             "the report covers what ran before" % (args[0] if args else "?", t)))
                self.finish()
        elif event in ("sys.settrace", "sys.setprofile",
                       "sys._settraceallthreads", "sys._setprofileallthreads",
                       "sys.monitoring.register_callback"):
            if not self.done:
                self.events_seen.add(event)
                self._write(("event", self.now(), event, ""))

    def _discover_frames(self):
        me = _thread.get_ident()
        try:
            frames = sys._current_frames()
        except Exception:
            return
        for tid, f in frames.items():
            if tid == me:
                continue
            chain = []
            while f is not None:
                chain.append(f.f_code)
                f = f.f_back
            if tid == self.main_ident and any(c.co_name == "<module>" for c in chain):
                self.main_found = True   # the script, -c code or -m module runs
            # outermost first: run-time compiled code ("<string>") is the
            # program's when the code that runs it is
            caller_ok = True
            for c in reversed(chain):
                k = _key(c)
                if k in self.codes:
                    caller_ok = True
                    continue
                if k in self.ignored:
                    caller_ok = False
                    continue
                fn = c.co_filename
                if fn.startswith("<") and not fn.startswith("<frozen"):
                    if caller_ok:
                        self.register(c, True)
                    continue
                self.register(c)
                caller_ok = _key(c) in self.codes

    def _discover_modules(self):
        """Functions and methods reachable from the program's modules."""
        FunctionType = type(_load_decode)
        for name, mod in list(sys.modules.items()):
            d = getattr(mod, "__dict__", None)
            if not isinstance(d, dict):
                continue
            fn = d.get("__file__") or ""
            if name != "__main__" and self.scope != "all":
                if not fn or os.path.abspath(fn).startswith(self.skip_prefixes):
                    continue
            for v in list(d.values()):
                self._discover_value(v, FunctionType, 0)

    def _discover_value(self, v, FunctionType, depth):
        if isinstance(v, FunctionType):
            if _key(v.__code__) not in self.codes:
                self.register(v.__code__)
        elif isinstance(v, (staticmethod, classmethod)):
            self._discover_value(v.__func__, FunctionType, depth)
        elif isinstance(v, property):
            for g in (v.fget, v.fset, v.fdel):
                if g is not None:
                    self._discover_value(g, FunctionType, depth)
        elif isinstance(v, type) and depth < 3:
            try:
                items = list(vars(v).values())
            except Exception:
                return
            for x in items:
                self._discover_value(x, FunctionType, depth + 1)

    # -- monitoring detection ---------------------------------------------

    def _check_monitoring(self):
        mon = getattr(sys, "monitoring", None)
        if mon is None:
            return
        for tool in range(6):
            try:
                if mon.get_tool(tool) is None:
                    continue
                ev = mon.get_events(tool)
            except Exception:
                continue
            key = ("sys.monitoring", tool, ev)
            if ev and key not in self.events_seen:
                self.events_seen.add(key)
                names = [n for n in dir(mon.events)
                         if n.isupper() and getattr(mon.events, n) & ev
                         and bin(getattr(mon.events, n)).count("1") == 1]
                self._write(("event", self.now(), "sys.monitoring",
                             "tool %d (%s): %s" % (tool, mon.get_tool(tool),
                                                   ", ".join(sorted(names)))))

    # -- sampling -----------------------------------------------------------

    def _tier2_check(self):
        state = self.decode.tier2_state()
        self.tier2_checks += 1
        self.tier2_on = bool(state.get("enabled") and state.get("executors")
                             and self.tables.enter_executor is not None)
        if state != self.tier2 or self.tier2_checks == 1:
            self.tier2 = state
            self._write(("tier2", self.now(), state))

    def tick(self, final=False):
        t_start = time.thread_time()
        if self.tier2_checks == 0 or (final and self.tier2_checks < 2):
            self._tier2_check()
        pend = self.pending_exec
        if pend:
            self.pending_exec = []
            for c, force in pend:
                self.register(c, force)
        if final:
            self._discover_modules()
        elif not self.main_found and self.nsamples < 200:
            # The stacks are walked only until the __main__ (or -c) code is
            # found, as no audit event announces it: a walk
            # makes frame objects for the running frames, and doing that
            # while the program runs measurably slows allocation-heavy
            # programs (pyperformance's float: ~15% CPU).  Everything else
            # arrives through the exec audit hook or at exit.
            self._discover_frames()
        t_read = time.thread_time()
        changed = []
        tv_ops, fv_ops = self.tv_ops, self.fv_ops
        new_tv = set()
        new_fv = set()
        now = self.now()
        first = []               # code objects seen for the first time
        for entry in self.by_cid:
            b = entry[1]._co_code_adaptive
            if not entry[4]:
                # nothing is sent for a code object until it shows it ran:
                # big programs have thousands of functions that never do
                if entry[2] is None and not final:
                    entry[2], entry[5] = b, now      # first sight: baseline
                    first.append(entry)
                    if self.tier2_on:    # an executor made before first sight
                        self._check_executors(entry, b, now)
                    if self.extend_op is not None:
                        self._check_extend(b, now)
                    continue
                if b == entry[2] or entry[2] is None:
                    if not final or b == entry[1].replace()._co_code_adaptive:
                        entry[2] = b
                        continue                     # (as created: never ran)
                self._send_meta(entry[0], entry[1])
                self.acted += 1
                entry[4] = True
                if entry[2] is not None:
                    # the baseline, at the time it was taken (on a busy
                    # machine first sight may come after specialization:
                    # its cached versions need names too)
                    self._write(("sample", entry[5], [(entry[0], entry[2])], False))
                    self._scan_versions(entry, entry[2], new_tv, new_fv)
                    if b == entry[2]:
                        continue
            elif b == entry[2]:
                continue
            elif not final and entry[6] is not None and _same_in(b, entry[2], entry[6]):
                continue
            self._take(entry, b, now, changed, new_tv, new_fv)
        self.read_cost = time.thread_time() - t_read
        if first and self.addrs is not None:
            # before the walks below, which may wait for the GIL
            self.addrs.publish(first)
            self.published += len(first)
        t = self.now()
        if changed or final:
            self._write(("sample", t, changed, final))
        if final and self.unresolved:
            # one more walk at exit for versions an earlier walk missed
            self.want_types.update(self.unresolved)
            self.unresolved = set()
        self._note_hot(changed)
        n_codes = len(self.by_cid)
        if first or new_tv or new_fv or self.want_types or self.want_funcs \
                or n_codes != self._codes_at_tick or not self.main_found:
            self.acted += 1     # (see run(): whole samples keep their pace)
        self._codes_at_tick = n_codes
        if new_tv or (final and self.want_types):
            self._resolve_types(new_tv, final)
        if new_fv or (final and self.want_funcs):
            self._resolve_funcs(new_fv, final)
        self._check_monitoring()
        if (final or self.nsamples % 25 == 0) and self.out is not None:
            self.out.flush()   # a crash loses at most ~25 samples
        self.nsamples += 1
        cost = time.thread_time() - t_start
        if self.first_tick_cost is None:
            self.first_tick_cost = cost
        self.sample_cost += cost

    def _take(self, entry, b, now, changed, new_tv, new_fv):
        """Record a code object's changed stream; collect the cached versions it
        names that are not known yet."""
        entry[2], entry[5] = b, now
        changed.append((entry[0], b))
        if self.tier2_on:
            self._check_executors(entry, b, now)
        if self.extend_op is not None:
            self._check_extend(b, now)
        self._scan_versions(entry, b, new_tv, new_fv)

    def _scan_versions(self, entry, b, new_tv, new_fv):
        """Add the type / function versions cached in stream ``b`` that have
        no name yet to ``new_tv`` / ``new_fv``."""
        tv_ops, fv_ops = self.tv_ops, self.fv_ops
        slots = entry[3]
        if slots is None:
            slots = entry[3] = [s[0] for s in self._structure(entry) if s[3] >= 3]
        for off in slots:
            op = b[off]
            if op in tv_ops:
                v = b[off + 4] | b[off + 5] << 8 | b[off + 6] << 16 | b[off + 7] << 24
                if v and v not in self.known_types and v not in self.unresolved \
                        and v not in self.want_types:
                    new_tv.add(v)
            elif op in fv_ops:
                v = b[off + 4] | b[off + 5] << 8 | b[off + 6] << 16 | b[off + 7] << 24
                if v and v not in self.known_funcs and v not in self.func_unresolved \
                        and v not in self.want_funcs:
                    new_fv.add(v)

    # Focused reads.  A full tick reads every code object, so its cost grows with
    # the program and the budget spaces full ticks out (25 ms for the tour); a
    # site that re-targets between two of them is seen only by chance, so which
    # classes a polymorphic site showed changed from run to run.  The code objects
    # whose stream changed in one of the last _HOT_TICKS full ticks are few and
    # cheap to read, so they are read again at every wake-up in between: the same
    # bytes a full tick reads (nothing is asked of CPython but a copy of
    # _co_code_adaptive), only more often.
    def _note_hot(self, changed):
        hot = self.hot
        for cid in [c for c, left in hot.items() if left <= 1]:
            del hot[cid]
        for cid in hot:
            hot[cid] -= 1
        for cid, _ in changed:
            hot[cid] = _HOT_TICKS

    def focused_tick(self):
        t_start = time.thread_time()
        now = self.now()
        changed, new_tv, new_fv = [], set(), set()
        by_cid = self.by_cid
        for cid in list(self.hot):
            entry = by_cid[cid]
            b = entry[1]._co_code_adaptive
            if b != entry[2] and not (entry[6] is not None and _same_in(b, entry[2], entry[6])):
                self._take(entry, b, now, changed, new_tv, new_fv)
        if changed:
            self._write(("sample", now, changed, False))
        if new_tv:
            self._resolve_types(new_tv, eager=True)
        if new_fv:
            self._resolve_funcs(new_fv)
        self.nfocused += 1
        self.sample_cost += time.thread_time() - t_start


    # Naming cached versions.  A walk reads the version of every class (or
    # of every function of the program) and keeps the whole index: versions
    # are never reused, so a later lookup of a known number needs no walk.
    # Walks are throttled (none in the first _FIRST_WALK s, then at most one
    # per 0.2 s, or 20x their cost) and always done at exit for what is still
    # unnamed.

    def _resolve_types(self, wanted, final=False, eager=False):
        index = self.type_index
        found = dict((v, index[v]) for v in wanted if v in index)
        rest = set(v for v in wanted if v not in index)
        self.want_types.update(rest)
        now = time.perf_counter()
        # eager (a class new at a site that keeps changing): walk now, while the
        # class still has the version the site cached, if walks so far cost
        # under ~2% of the run
        early = eager and self.walk_cost < 0.02 * (now - self.t0)
        if self.want_types and (final or early or now >= self.next_type_walk):
            t0 = time.thread_time()
            if not (final and self.indexes_fresh):
                self._walk_types()
            cost = time.thread_time() - t0
            self.walk_cost += cost
            self.next_type_walk = now + max(0.2, 20 * cost)
            for v in self.want_types:
                if v in index:
                    found[v] = index[v]
                else:
                    self.unresolved.add(v)
            self.want_types = set()
        if found:
            self.known_types.update(found)
            self._write(("types", found))

    def _walk_types(self):
        self._probe()
        off = self.tp_version_offset
        if off is None:
            return
        index = self.type_index
        seen = set()
        stack = [object]
        classes = []
        while stack:
            cls = stack.pop()
            classes.append(cls)
            try:
                subs = type.__subclasses__(cls)
            except Exception:
                subs = []
            for sub in subs:
                k = _key(sub)
                if k not in seen:
                    seen.add(k)
                    stack.append(sub)
        versions = self._reader()([_address(cls) + off for cls in classes])
        for cls, v in zip(classes, versions):
            if v and v not in index:
                index[v] = "%s.%s" % (getattr(cls, "__module__", "?"),
                                      getattr(cls, "__qualname__", cls.__name__))

    def _send_indexes(self):
        """The parent read streams from outside: the versions cached there
        are not known here, so every class and program function is named
        (as at exit, plus those earlier walks saw)."""
        if self.tv_ops:
            if not self.indexes_fresh:
                self._walk_types()
            rest = dict((v, n) for v, n in self.type_index.items()
                        if v not in self.known_types)
            if rest:
                self._write(("types", rest))
        if self.fv_ops:
            if not self.indexes_fresh:
                self._walk_funcs()
            rest = dict((v, n) for v, n in self.func_index.items()
                        if v not in self.known_funcs)
            if rest:
                self._write(("funcs", rest))

    def _resolve_funcs(self, wanted, final=False):
        index = self.func_index
        found = dict((v, index[v]) for v in wanted if v in index)
        self.want_funcs.update(v for v in wanted if v not in index)
        now = time.perf_counter()
        if self.want_funcs and (final or now >= self.next_func_walk):
            t0 = time.thread_time()
            if not (final and self.indexes_fresh):
                self._walk_funcs()
            cost = time.thread_time() - t0
            self.next_func_walk = now + max(0.2, 20 * cost)
            for v in self.want_funcs:
                if v in index:
                    found[v] = index[v]
                else:
                    self.func_unresolved.add(v)
            self.want_funcs = set()
        if found:
            self.known_funcs.update(found)
            self._write(("funcs", found))

    def _walk_funcs(self):
        self._probe()
        off = self.func_version_offset
        if off is None:
            return
        index = self.func_index
        FunctionType = type(_load_decode)
        funcs = []
        for name, mod in list(sys.modules.items()):
            d = getattr(mod, "__dict__", None)
            if not isinstance(d, dict):
                continue
            if name != "__main__" and self.scope != "all":
                fn = d.get("__file__") or ""
                if not fn or os.path.abspath(fn).startswith(self.skip_prefixes):
                    continue     # the program's own functions only
            for v in list(d.values()):
                if isinstance(v, FunctionType):
                    funcs.append(v)
                elif isinstance(v, type):
                    try:
                        for x in list(vars(v).values()):
                            if isinstance(x, (staticmethod, classmethod)):
                                x = x.__func__
                            if isinstance(x, FunctionType):
                                funcs.append(x)
                    except Exception:
                        pass
        versions = self._reader()([_address(f) + off for f in funcs])
        for f, v in zip(funcs, versions):
            if v and v not in index:
                index[v] = "%s.%s" % (f.__module__, f.__qualname__)

    def run(self, stop, exited):
        wait = self.interval
        next_full = 0.0
        try:
            while not stop.wait(wait):
                with self.lock:
                    if self.done:
                        return
                    if time.perf_counter() < next_full:
                        self.focused_tick()
                        wait = min(self.interval, _FOCUS_WAIT) if self.hot else self.interval
                        continue
                    acted = self.acted
                    self.tick()
                    cost = self.read_cost
                    calm = self.acted == acted
                if not self.outside_reading and self.published and self.reading_flag \
                        and self.nsamples < 100:    # (the parent answers within ms)
                    self.outside_reading = os.path.exists(self.reading_flag)
                if self.outside_reading:
                    # Each wake-up takes the GIL from the program (a forced
                    # switch, which on a busy machine also waits for the
                    # scheduler), and the parent already copies the streams
                    # about every millisecond: no focused reads, and whole
                    # samples back off (doubling up to _CALM_MAX) while they
                    # find nothing only the agent can do (new code objects,
                    # executors to read, cached versions to name)
                    self.calm_wait = (min(2 * self.calm_wait, max(self.interval, _CALM_MAX))
                                      if calm else self.interval)
                    full_wait = max(self.calm_wait, _BUDGET * cost)
                    next_full = time.perf_counter() + full_wait
                    wait = full_wait
                    continue
                # keep the sampler under ~2% of the run: a program with very
                # many code objects is read whole less often than asked (and
                # its changing code objects in between)
                full_wait = max(self.interval, _BUDGET * cost)
                next_full = time.perf_counter() + full_wait
                wait = min(self.interval, _FOCUS_WAIT) if self.hot else self.interval
                if full_wait > self.interval and not self.slowed:
                    self.slowed = True
                    self._write(("event", self.now(), "note",
                                 "whole samples slowed to every %.0f ms to keep the "
                                 "lens's cost low (%d code objects); the code objects "
                                 "that change are read in between"
                                 % (full_wait * 1000, len(self.by_cid))))
        except Exception as exc:  # never disturb the program
            try:
                self._write(("event", self.now(), "agent-error", repr(exc)))
            except Exception:
                pass
        finally:
            exited.release()

    def _spawn(self):
        self.stop = stop = _Event()
        self.exited = exited = _thread.allocate_lock()
        exited.acquire()
        starter = getattr(_thread, "start_joinable_thread", None)  # 3.13+
        if starter is not None:
            self.handle = starter(lambda: self.run(stop, exited), daemon=True)
        else:
            self.handle = None
            _thread.start_new_thread(self.run, (stop, exited))

    def start(self):
        sys.addaudithook(self.audit)
        atexit.register(self.finish)
        self._spawn()
        if hasattr(os, "register_at_fork"):
            # 3.12+ warns on os.fork() in a multi-threaded process: make sure
            # our sampler is not the thread that makes it so
            os.register_at_fork(before=self._before_fork,
                                after_in_parent=self._after_fork_parent)

    def _before_fork(self):
        if self.done or os.getpid() != self.pid:
            return
        before = _os_threads()
        self.stop.set()
        if self.handle is not None:
            self.handle.join(1.0)
        elif self.exited.acquire(True, 1.0):
            self.exited.release()
            # 3.12 has no join: wait (briefly) for the OS thread to be gone,
            # as that is what the fork warning counts
            deadline = time.perf_counter() + 0.2
            while before and _os_threads() >= before and time.perf_counter() < deadline:
                time.sleep(0.0002)

    def _after_fork_parent(self):
        # 3.13 counts threads *after* these hooks, so restart the sampler a
        # little later: at the end of the next garbage collection
        if self.done or os.getpid() != self.pid:
            return
        import gc

        def restart(phase, info):
            if phase != "stop":
                return
            try:
                gc.callbacks.remove(restart)
            except ValueError:
                return
            if not self.done and (self.exited is None or not self.exited.locked()):
                self._spawn()
        gc.callbacks.append(restart)

    def finish(self):
        if os.getpid() != self.pid:
            return
        self.stop.set()
        with self.lock:
            if self.done:
                return
            try:
                self._discover_frames()
                if self.published:
                    # every class and program function is named at exit
                    # (see _send_indexes): walked once, before the final
                    # tick, whose names then need no walk of their own
                    if self.tv_ops:
                        self._walk_types()
                    if self.fv_ops:
                        self._walk_funcs()
                    self.indexes_fresh = True
                self.tick(final=True)
                if self.published:
                    self._send_indexes()
                started = dict(self.started)
                made = _multiprocessing_processes()
                if made:
                    started["multiprocessing.Process"] = made
                if started:
                    self._write(("event", self.now(), "note",
                                 "the program started other processes (%s): what ran "
                                 "in them is not watched" % ", ".join(
                                     "%s x%d" % kv for kv in sorted(started.items()))))
            except Exception as exc:
                self._write(("event", self.now(), "agent-error", repr(exc)))
            self._write(("end", self.now(), {
                "samples": self.nsamples, "sample_cost": self.sample_cost,
                "focused_reads": self.nfocused,
                "first_tick_cost": self.first_tick_cost,
                "published": self.published,
                "codes": len(self.by_cid),
            }))
            self.done = True
            if self.out is not None:
                self.out.close()
            self.out = None


def start_from_environ():
    """Entry point used by the sitecustomize shim."""
    env = os.environ
    out = env.pop("QUICKENING_LENS_OUT", None)
    interval = float(env.pop("QUICKENING_LENS_INTERVAL", "10")) / 1000.0
    scope = env.pop("QUICKENING_LENS_SCOPE", "user")
    tables = env.pop("QUICKENING_LENS_TABLES", None)
    addrs = env.pop("QUICKENING_LENS_ADDRS", None)
    if not out:
        return None
    global AGENT
    agent = Agent(out, interval, scope, tables, addrs)
    agent.start()
    AGENT = agent
    return agent


#: the running agent (tests use ``AGENT.nsamples`` to wait for a sample)
AGENT = None
