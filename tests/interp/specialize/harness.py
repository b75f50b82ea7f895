"""Run a case natively and in the interpreter (fresh processes) and compare its sites.

A case is Python source that defines the functions to watch and
`drive(record)`, which calls them and calls `record()` whenever the state of
every function listed in WATCH should be captured.  Each capture lists, per
watched function, every site's (offset, form, counter, cached class, decoded
cache cells resolved to what they stand for: sitestate.Resolver).  The
interpreted run also fails when interpreted code ran natively (escapes).

Each run is a fresh process forked from a server that has made the imports a
run's own `python -c CHILD` start would make (one server per mode and
environment, per test process), so a case pays neither Python's start-up nor
the interpreter's import: the child then runs CHILD as that process's
`__main__` would, with the same arguments, and exits.
"""

import json
import os
import select
import signal
import subprocess
import sys
import textwrap

CHILD = r"""
import json, sys
mode, path = sys.argv[1], sys.argv[2]
source = open(path).read()
namespace = {"__name__": "__case__"}
code = compile(source, path, "exec")
from quickening.interp import sitestate
if mode == "native":
    exec(code, namespace)
    snapshot = lambda fn, v: sitestate.native_sites(fn.__code__, v, cells=True)
else:
    from quickening import api
    from quickening.interp import escapes
    from quickening.interp.families import _datastack
    # the native run's frames sit on the frames running this code
    _under, _f = [], sys._getframe()
    while _f is not None:
        _under.append(_f.f_code)
        _f = _f.f_back
    _datastack.BASE = _datastack.state_of_frames(reversed(_under))
    escapes.enable()
    api.run_code(code, namespace)
    def snapshot(fn, v):
        info = sitestate.info_of(fn)
        assert info is not None, f"{fn.__qualname__} was not run by the interpreter"
        return sitestate.interpreted_sites(info, v, cells=True)
trace = []
def record():
    resolver = sitestate.resolver(namespace)
    trace.append({name: snapshot(namespace[name], resolver) for name in namespace["WATCH"]})
namespace["drive"](record)
if mode != "native":
    assert escapes.total() == 0, f"interpreted code ran natively: {dict(escapes.COUNTS)}"
print(json.dumps(trace))
"""


# Every interpreted run is made twice: as programs run (fused once warm), and
# with each code object fused at its first execution (fusion.py), where sites
# run in place and their runs are made again as they change form.  The two
# must give the same trace (and the callers compare it with the native one).
FUSED_AT_ONCE = {"QUICKENING_FUSE_AFTER": "1"}


def trace(source, mode, child=CHILD):
    result = _run(source, mode, child)
    if mode == "interpreted":
        fused = _run(source, mode, child, FUSED_AT_ONCE)
        assert fused == result, f"fused at once:\n{fused}\nas programs run:\n{result}"
    return result


def _run(source, mode, child, env=None):
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"),
                        f"qk_case_{os.getpid()}_{abs(hash(source))}.py")
    with open(path, "w") as fh:
        fh.write(textwrap.dedent(source))
    try:
        environ = {**os.environ, **(env or {})}
        returncode, stdout, stderr = _server(mode, environ).run(child, [mode, path], environ,
                                                                timeout=300)
    finally:
        os.unlink(path)
    if returncode != 0:
        raise AssertionError(f"{mode} run failed:\n{stderr}")
    return json.loads(stdout.strip().splitlines()[-1])


# What a run's process has imported before CHILD reads the case: CHILD's own
# imports, in its order (the interpreted mode's come after `sitestate`).
_PRELUDE = {
    "native": "import json, sys\nfrom quickening.interp import sitestate\n",
    "interpreted": ("import json, sys\nfrom quickening.interp import sitestate\n"
                    "from quickening import api\nfrom quickening.interp import escapes\n"
                    "from quickening.interp.families import _datastack\n"),
}

# The server: requests (JSON lines: child source, argv, environment, output
# files) on fd 0, replies on fd 1: the child's pid once forked, then its exit
# status.  The child runs the source as `python -c` runs it: as __main__,
# argv[0] "-c", stdin empty, stdout and stderr to the files; an uncaught
# exception prints as at exit, SystemExit gives the status.
SERVER = r"""
import os, sys
requests = os.fdopen(os.dup(0), "rb")
replies = os.fdopen(os.dup(1), "w")
_null = os.open(os.devnull, os.O_RDWR)
os.dup2(_null, 0)
os.dup2(_null, 1)
os.close(_null)
exec(compile(sys.argv[1], "<prelude>", "exec"), {})
del sys.argv[1]

def _child(request):
    status = 1
    try:
        requests.close()
        os.close(replies.fileno())
        for fd, name in ((1, "stdout"), (2, "stderr")):
            out = os.open(request[name], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(out, fd)
            os.close(out)
        import builtins, types
        main = types.ModuleType("__main__")
        main.__builtins__ = builtins
        sys.modules["__main__"] = main
        sys.argv[:] = ["-c", *request["argv"]]
        os.environ.clear()
        os.environ.update(request["environ"])
        try:
            exec(compile(request["child"], "<string>", "exec"), main.__dict__)
            status = 0
        except SystemExit as exc:
            code = exc.code
            status = code if isinstance(code, int) else (0 if code is None else 1)
            if not isinstance(code, int) and code is not None:
                print(code, file=sys.stderr)
        except BaseException:
            sys.excepthook(*sys.exc_info())
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
        os._exit(status)

for line in requests:
    request = __import__("json").loads(line)
    pid = os.fork()
    if pid == 0:
        _child(request)
    replies.write(f"{pid}\n")
    replies.flush()
    replies.write(f"{os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])}\n")
    replies.flush()
"""

_SERVERS = {}


def _server(mode, env):
    # (pytest names the current test in the environment: that alone does not
    # make another server, the child takes the request's environment)
    key = (mode, tuple(sorted((k, v) for k, v in env.items() if k != "PYTEST_CURRENT_TEST")))
    server = _SERVERS.get(key)
    if server is None or server.proc.poll() is not None:
        server = _SERVERS[key] = _Server(mode, env)
    return server


class _Server:
    def __init__(self, mode, env):
        self.proc = subprocess.Popen([sys.executable, "-c", SERVER, _PRELUDE[mode]],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.pending = b""

    def run(self, child, argv, environ, timeout):
        """(exit status, stdout, stderr) of `child` run with argv and environ in a forked child."""
        base = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"qk_run_{os.getpid()}")
        files = {"stdout": base + ".out", "stderr": base + ".err"}
        request = {"child": child, "argv": argv, "environ": environ, **files}
        self.proc.stdin.write((json.dumps(request) + "\n").encode())
        self.proc.stdin.flush()
        try:
            pid = int(self._reply(timeout))
            try:
                status = int(self._reply(timeout))
            except TimeoutError:
                os.kill(pid, signal.SIGKILL)
                self._reply(timeout)
                raise AssertionError(f"{argv[0]} run timed out after {timeout} s") from None
            with open(files["stdout"]) as out, open(files["stderr"]) as err:
                return status, out.read(), err.read()
        finally:
            for name in files.values():
                if os.path.exists(name):
                    os.unlink(name)

    def _reply(self, timeout):
        # (read from the pipe itself: a buffered readline could take both
        # replies at once and leave the second where poll does not see it)
        poll = select.poll()
        poll.register(self.proc.stdout, select.POLLIN)
        while b"\n" not in self.pending:
            if not poll.poll(timeout * 1000):
                raise TimeoutError
            data = os.read(self.proc.stdout.fileno(), 4096)
            if not data:
                raise AssertionError(f"the run server died (status {self.proc.wait()})")
            self.pending += data
        line, self.pending = self.pending.split(b"\n", 1)
        return line.decode()


def assert_same_sites(source):
    """Native and interpreted traces are identical; returns the native trace."""
    native = trace(source, "native")
    interpreted = trace(source, "interpreted")
    for step, (n, i) in enumerate(zip(native, interpreted)):
        assert i == n, f"capture {step} differs:\nnative      {n}\ninterpreted {i}"
    assert len(native) == len(interpreted)
    return native
