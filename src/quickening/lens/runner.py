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
    tables and the agent and decoder compiled by it.  Made once per
    interpreter binary and lens version (in ~/.cache/quickening); (None,
    None) if they can't be made (the agent then works from source)."""
    import hashlib
    real = os.path.realpath(python)
    try:
        st = os.stat(real)
        stamps = [os.stat(os.path.join(LENS_DIR, n)).st_mtime_ns
                  for n in ("decode.py", "agent.py")]
    except OSError:
        return None, None
    key = "%s|%d|%d|%r" % (real, st.st_mtime_ns, st.st_size, stamps)
    stem = os.path.join(_cache_dir(), "lens-%s" % hashlib.sha1(key.encode()).hexdigest()[:16])
    tables, code = stem + ".tables", stem + ".code"
    if os.path.exists(tables) and os.path.exists(code):
        return tables, code
    tmp = "%s.%d.tmp" % (stem, os.getpid())
    try:
        r = subprocess.run([python, "-I", os.path.join(LENS_DIR, "decode.py"),
                            tmp + ".tables", tmp + ".code"],
                           capture_output=True, timeout=60)
        if r.returncode != 0:
            return None, None
        os.replace(tmp + ".tables", tables)
        os.replace(tmp + ".code", code)
    except (OSError, subprocess.SubprocessError):
        return None, None
    return tables, code


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
    orig = env.get("PYTHONPATH")
    if orig is not None:
        env["QUICKENING_LENS_ORIG_PYTHONPATH"] = orig
        env["PYTHONPATH"] = SITE_DIR + os.pathsep + orig
    else:
        env["PYTHONPATH"] = SITE_DIR
    env["QUICKENING_LENS_OUT"] = out_path
    env["QUICKENING_LENS_INTERVAL"] = repr(float(interval_ms))
    env["QUICKENING_LENS_SCOPE"] = scope
    return env


def addresses_file():
    """A new empty file for the agent's code-stream addresses."""
    fd, path = tempfile.mkstemp(prefix="quickening-lens-", suffix=".addrs")
    os.close(fd)
    return path


def wait_reading(proc, addrs_path, samples_path):
    """Wait for ``proc``, reading its code streams from outside meanwhile
    (see quickening.lens.outside); then append what was read to the
    samples file as ``("outside", t, cid, bytes)`` records and one
    ``("outside-end", info)``.  Returns the child's return code."""
    import marshal
    from quickening.lens.outside import OutsideReader, ROUND_S
    reader = OutsideReader(addrs_path)
    try:
        while True:
            rc = proc.poll()
            if rc is not None:
                break
            reader.round()
            time.sleep(reader.pause())
    finally:
        reader.finish()
        try:
            os.unlink(addrs_path)
        except OSError:
            pass
    try:
        with open(samples_path, "ab") as f:
            for t, cid, b in reader.records:
                f.write(marshal.dumps(("outside", t, cid, b), 4))
            f.write(marshal.dumps(("outside-end", {
                "rounds": reader.reads, "copies": len(reader.records),
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
                samples_path=None, env=None):
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
        proc = subprocess.Popen(cmd, env=e,
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
