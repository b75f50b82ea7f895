"""Launch a program under the lens agent and collect its raw samples.

The program runs as ``python script.py args`` (or ``-m`` / ``-c``) exactly as
the user would run it: same command line, same stdin/stdout/stderr, same exit
status.  The agent is injected through a ``sitecustomize`` shim on the
child's PYTHONPATH (the shim removes itself and restores PYTHONPATH, so the
program's own subprocesses are not watched).
"""

import os
import signal
import subprocess
import sys
import tempfile
import time

LENS_DIR = os.path.dirname(os.path.abspath(__file__))
SITE_DIR = os.path.join(LENS_DIR, "_site")
DEFAULT_INTERVAL_MS = 10.0


def child_command(python, target):
    """The child's argv for a :class:`quickening.pyargs.Target`."""
    if target.kind == "path":
        return [python, *target.argv]
    if target.kind == "module":
        return [python, "-m", *target.argv]
    return [python, "-c", target.value, *target.argv[1:]]


def _cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache")
    d = os.path.join(base, "quickening")
    try:
        os.makedirs(d, exist_ok=True)
    except OSError:
        d = tempfile.gettempdir()
    return d


def agent_files(python):
    """(tables, code) paths for ``python``: marshal files with its opcode
    tables and the agent and decoder compiled by it (and, beside the code
    file, a directory with the start-up shim compiled by it: see
    _shim_dir).  Made once per interpreter binary and lens version (in
    ~/.cache/quickening); (None, None) if they can't be made (the agent
    then works from source)."""
    import hashlib
    real = os.path.realpath(python)
    try:
        st = os.stat(real)
        stamps = [os.stat(os.path.join(LENS_DIR, n)).st_mtime_ns
                  for n in ("decode.py", "agent.py", os.path.join("_site", "sitecustomize.py"))]
    except OSError:
        return None, None
    key = "%s|%d|%d|%r|%s" % (real, st.st_mtime_ns, st.st_size, stamps, LENS_DIR)
    stem = os.path.join(_cache_dir(), "lens-%s" % hashlib.sha1(key.encode()).hexdigest()[:16])
    tables, code = stem + ".tables", stem + ".code"
    if os.path.exists(tables) and os.path.exists(code):
        return tables, code
    tmp = "%s.%d.tmp" % (stem, os.getpid())
    try:
        r = subprocess.run([python, "-I", os.path.join(LENS_DIR, "decode.py"),
                            tmp + ".tables", tmp + ".code", tmp + ".shim"],
                           capture_output=True, timeout=60)
        if r.returncode != 0:
            return None, None
        shim = _shim_dir(code)
        try:
            os.makedirs(shim, exist_ok=True)
            os.replace(tmp + ".shim", os.path.join(shim, "sitecustomize.pyc"))
        except OSError:
            pass     # the shim is then imported from source
        os.replace(tmp + ".tables", tables)
        os.replace(tmp + ".code", code)
    except (OSError, subprocess.SubprocessError):
        return None, None
    return tables, code


def _shim_dir(code):
    """The directory put on a watched child's PYTHONPATH when the agent's
    code file is ``code``: one holding only ``sitecustomize.pyc``, the shim
    of _site/ compiled by that child's interpreter (imported without a
    source, so never compiled at start-up)."""
    return code + ".site"


def tables_file(python):
    """Path of the marshal file with ``python``'s opcode tables (or None)."""
    return agent_files(python)[0]


def child_env(out_path, interval_ms, scope, base=None, files=(None, None),
              addrs_path=None):
    """Environment for a watched child; ``files`` is agent_files(python);
    ``addrs_path`` the file where the agent says where its code streams are
    (for :func:`wait_reading`)."""
    env = dict(os.environ if base is None else base)
    if addrs_path:
        env["QUICKENING_LENS_ADDRS"] = addrs_path
    tables, code = files
    if tables:
        env["QUICKENING_LENS_TABLES"] = tables
    if code:
        env["QUICKENING_LENS_CODE"] = code
    site = SITE_DIR
    if code and os.path.exists(os.path.join(_shim_dir(code), "sitecustomize.pyc")):
        site = _shim_dir(code)
    env["QUICKENING_LENS_HOME"] = LENS_DIR
    orig = env.get("PYTHONPATH")
    if orig is not None:
        env["QUICKENING_LENS_ORIG_PYTHONPATH"] = orig
        env["PYTHONPATH"] = site + os.pathsep + orig
    else:
        env["PYTHONPATH"] = site
    env["QUICKENING_LENS_OUT"] = out_path
    env["QUICKENING_LENS_INTERVAL"] = repr(float(interval_ms))
    env["QUICKENING_LENS_SCOPE"] = scope
    return env


def addresses_file():
    """A new empty file for the agent's code-stream addresses."""
    fd, path = tempfile.mkstemp(prefix="quickening-lens-", suffix=".addrs")
    os.close(fd)
    return path


class _AwayFromProgram(object):
    """Keeps the reading thread off the CPU the program last ran on.

    A thread that wakes about every millisecond on the CPU where the program
    runs preempts it, and on a busy machine a preempted program then waits
    behind the others' work: on 2 shared cores the reader cost pyperformance's
    deltablue ~800 involuntary context switches a second.  Allowed only the
    other CPUs, the reader's wake-ups take their CPU, never the program's,
    and its reads see the program while it runs.  The program's CPU (field
    39 of /proc/PID/stat) is looked at every few rounds, as the scheduler
    moves it now and then.  Nothing is done with one CPU, or where the
    affinity cannot be set (then the reader is an ordinary thread)."""

    EVERY = 4     # rounds between looks at the program's CPU

    def __init__(self, pid):
        self.fd = None
        self.where = None
        self.rounds = 0
        try:
            self.cpus = os.sched_getaffinity(0)
            if len(self.cpus) > 1:
                self.fd = os.open("/proc/%d/stat" % pid, os.O_RDONLY)
        except (OSError, AttributeError):
            self.fd = None

    def step(self):
        if self.fd is None:
            return
        self.rounds += 1
        if self.rounds % self.EVERY != 1:
            return
        try:
            stat = os.pread(self.fd, 1024, 0)
            cpu = int(stat.rsplit(b")", 1)[1].split()[36])
        except (OSError, ValueError, IndexError):
            return
        if cpu != self.where:
            self.where = cpu
            try:
                os.sched_setaffinity(0, (self.cpus - {cpu}) or self.cpus)   # 0: this thread
            except OSError:
                self.close()

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def wait_reading(proc, addrs_path, samples_path):
    """Wait for ``proc``, reading its code streams from outside meanwhile
    (see quickening.lens.outside), from a thread of its own kept off the
    program's CPU (see _AwayFromProgram); then append what
    was read to the samples file as ``("outside", t, cid, bytes)`` records
    and one ``("outside-end", info)``.  Returns the child's return code."""
    import marshal
    import threading
    from quickening.lens.outside import OutsideReader, ROUND_S
    reader = OutsideReader(addrs_path)
    failed = []
    exited = threading.Event()

    def read_until_exit():
        away = _AwayFromProgram(proc.pid)
        try:
            while not exited.is_set():
                away.step()
                reader.round()
                exited.wait(reader.pause())
        except BaseException as exc:     # said below, the program is waited for
            failed.append(exc)
        finally:
            away.close()
    thread = threading.Thread(target=read_until_exit, name="quickening-lens-reader",
                              daemon=True)
    try:
        thread.start()
        # the exit is seen when it happens: a reader polling between its
        # rounds saw it up to a pause (1-5 ms) late, added to every run
        rc = proc.wait()
    finally:
        exited.set()
        if thread.is_alive():
            thread.join()
        reader.finish()
        try:
            os.unlink(addrs_path)
        except OSError:
            pass
    if failed and reader.error is None:
        reader.error = "reading from outside stopped: %r" % (failed[0],)
    try:
        with open(samples_path, "ab") as f:
            for t, cid, b in reader.records:
                f.write(marshal.dumps(("outside", t, cid, b), 4))
            f.write(marshal.dumps(("outside-end", {
                "rounds": reader.reads, "copies": len(reader.records), "torn": reader.torn,
                "round_ms": ROUND_S * 1000, "error": reader.error,
                "stopped": reader.stopped}), 4))
    except OSError:
        pass
    return rc


class WatchResult(object):
    def __init__(self, returncode, wall, samples_path):
        self.returncode = returncode
        self.wall = wall
        self.samples_path = samples_path


def run_watched(cmd, interval_ms=DEFAULT_INTERVAL_MS, scope="user",
                samples_path=None, env=None, stdin=None):
    """Run ``cmd`` (a full argv whose first item is a python) under the
    agent; returns a :class:`WatchResult`.  Ctrl-C reaches the program; we
    wait for it so the report can still be written."""
    if samples_path is None:
        fd, samples_path = tempfile.mkstemp(prefix="quickening-lens-",
                                            suffix=".pkl")
        os.close(fd)
    addrs = addresses_file()
    e = child_env(samples_path, interval_ms, scope, env, agent_files(cmd[0]), addrs)
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, env=e, stdin=stdin,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        rc = wait_reading(proc, addrs, samples_path)
        wall = time.perf_counter() - t0
    finally:
        signal.signal(signal.SIGINT, old)
    return WatchResult(rc, wall, samples_path)


def exit_status(returncode):
    """A shell-like exit status for a child's return code."""
    if returncode < 0:
        return 128 - returncode
    return returncode


def probe_version(python):
    """(major, minor, micro) of an interpreter, or None if it does not run."""
    try:
        out = subprocess.run(
            [python, "-I", "-c", "import sys; print(*sys.version_info[:3]);"
             "print(sys.implementation.name)"],
            capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    lines = out.stdout.split("\n")
    try:
        return tuple(int(x) for x in lines[0].split()) + (lines[1].strip(),)
    except (ValueError, IndexError):
        return None


def default_python():
    return sys.executable
