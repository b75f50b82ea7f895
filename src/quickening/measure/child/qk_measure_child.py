"""One measured run, executed in a fresh interpreter process.

This file is run *by path* with whatever interpreter a side of a comparison
names (3.11 and up), so it imports nothing from quickening and uses no syntax
newer than 3.11.  Usage::

    python [interpreter args] qk_measure_child.py SPEC.json OUT.json

SPEC describes the workload and how often to time it; OUT receives the
timings, a digest of what the workload produced, and a description of the
interpreter as this process really sees it (version, build flags, JIT state
read from ``sys._jit`` when present, the environment variables asked about).

Workload modes
--------------
``auto``     if the file defines a top-level ``workload()`` (read from its
             source, not executed), import it (``__name__`` is not
             ``"__main__"``) and call that per repeat; otherwise run the whole
             file as a script per repeat.
``script``   execute the file's code as ``__main__`` once per repeat.
``call``     import the file, execute ``setup`` (statements) in its namespace
             once, then time ``call`` (an expression) per repeat; ``result``
             (an expression, default the call's value) is digested.
"""

import hashlib
import io
import json
import os
import platform
import sys
import sysconfig
import time
import types


def describe_interpreter(env_keys=()):
    """What this process is, read from inside it."""
    config_args = sysconfig.get_config_var("CONFIG_ARGS") or ""
    flags = []
    for part in config_args.replace("'", " ").split():
        if part.startswith(("--enable-", "--with-", "--disable-", "--without-")):
            if not part.startswith(("--with-openssl", "--libdir", "--prefix")):
                flags.append(part)
    jit = {"has_sys_jit": hasattr(sys, "_jit"), "available": None, "enabled": None,
           "configured": "--enable-experimental-jit" in config_args}
    if hasattr(sys, "_jit"):
        try:
            jit["available"] = bool(sys._jit.is_available())
            jit["enabled"] = bool(sys._jit.is_enabled())
        except Exception as exc:  # an unexpected API shape: say so, do not guess
            jit["error"] = repr(exc)
    gil = None
    if hasattr(sys, "_is_gil_enabled"):
        gil = bool(sys._is_gil_enabled())
    env = {}
    for key in env_keys:
        env[key] = os.environ.get(key)
    return {
        "executable": sys.executable,
        "version": platform.python_version(),
        "version_info": list(sys.version_info[:3]),
        "implementation": sys.implementation.name,
        "build": {
            "configure_flags": flags,
            "config_args": config_args,
            "debug": bool(sysconfig.get_config_var("Py_DEBUG")),
            "free_threading": bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
            "pystats": hasattr(sys, "_stats_on"),
            "compiler": platform.python_compiler(),
            "build": list(platform.python_build()),
        },
        "jit": jit,
        "gil_enabled": gil,
        "xoptions": {str(k): (v if isinstance(v, str) else bool(v))
                     for k, v in sys._xoptions.items()},
        "optimize": sys.flags.optimize,
        "env": env,
        "pid": os.getpid(),
    }


def tier2_loops(namespace, path):
    """Every loop (JUMP_BACKWARD) of the workload file's functions, and whether
    tier 2 made an executor for it: the ENTER_EXECUTOR byte at the back edge
    (dis does not show it) and _opcode.get_executor there.  None where the
    build has no executors (3.11, 3.12)."""
    import dis
    try:
        import _opcode
        get = _opcode.get_executor
    except (ImportError, AttributeError):
        return None
    enter = dis.opmap.get("ENTER_EXECUTOR")
    seen, codes = set(), []
    stack = [v.__code__ for v in list(namespace.values())
             if isinstance(v, types.FunctionType) and v.__code__.co_filename == path]
    while stack:
        c = stack.pop()
        if id(c) in seen:
            continue
        seen.add(id(c))
        codes.append(c)
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    out = []
    for c in codes:
        raw = c._co_code_adaptive
        for ins in dis.get_instructions(c):
            if ins.opname != "JUMP_BACKWARD":
                continue
            row = {"function": c.co_qualname if hasattr(c, "co_qualname") else c.co_name,
                   "offset": ins.offset, "executor": False, "valid": None, "uops": None}
            if enter is not None and raw[ins.offset] == enter:
                try:
                    ex = get(c, ins.offset)
                    row.update(executor=True, valid=bool(ex.is_valid()), uops=len(ex))
                except Exception:
                    pass
            out.append(row)
    return out


def _stub_pyperf():
    """A tiny stand-in for pyperf: benchmark files import it at the top."""
    mod = types.ModuleType("pyperf")
    mod.perf_counter = time.perf_counter

    class Runner(object):
        def __init__(self, *args, **kwargs):
            raise RuntimeError("pyperf.Runner is not available under quickening")

    mod.Runner = Runner
    return mod


def _import_file(path, name, stub_pyperf):
    if stub_pyperf:
        sys.modules["pyperf"] = _stub_pyperf()
    module = types.ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module
    with open(path, "rb") as fh:
        source = fh.read()
    code = compile(source, path, "exec")
    exec(code, module.__dict__)
    return module


class _Capture(object):
    """Collect what the workload prints, so A and B can be checked alike."""

    def __init__(self):
        self.buffer = io.StringIO()

    def __enter__(self):
        self.saved = sys.stdout
        sys.stdout = self.buffer
        return self

    def __exit__(self, *exc):
        sys.stdout = self.saved
        return False


def _digest(text):
    return hashlib.sha256(text.encode("utf-8", "backslashreplace")).hexdigest()[:16]


def _defines_workload(path):
    """Does the file define a top-level workload()?  Read, not executed."""
    import ast
    with open(path, "rb") as fh:
        tree = ast.parse(fh.read(), path)
    return any(isinstance(node, ast.FunctionDef)
               and node.name == "workload" for node in tree.body)


_NAMESPACE = []     # the imported workload's namespace (call mode)


def build_runner(spec):
    """Return (mode, run_once) where run_once() -> text describing the output."""
    path = os.path.abspath(spec["path"])
    mode = spec.get("mode", "auto")
    # Behave like `python WORKLOAD.py`: its own folder first on sys.path, and
    # sys.argv as that command line would have it.
    sys.path[0] = os.path.dirname(path)
    sys.argv[:] = [path]
    if mode == "auto":
        mode = "call" if _defines_workload(path) else "script"
        call_src, result_src = "workload()", None
    elif mode == "call":
        call_src, result_src = spec["call"], spec.get("result")
    if mode == "call":
        name = spec.get("module_name") or "__quickening_workload__"
        module = _import_file(path, name, spec.get("stub_pyperf", False))
        ns = module.__dict__
        _NAMESPACE[:] = [ns]
        if spec.get("setup"):
            exec(compile(spec["setup"], "<setup>", "exec"), ns)
    if mode == "call":
        call_code = compile(call_src, "<call>", "eval")
        result_code = compile(result_src, "<result>", "eval") if result_src else None

        def run_once():
            with _Capture() as cap:
                value = eval(call_code, ns)
                if result_code is not None:
                    value = eval(result_code, ns)
            return repr(value) + "\n" + cap.buffer.getvalue()
        return "call", run_once
    if mode == "script":
        with open(path, "rb") as fh:
            code = compile(fh.read(), path, "exec")

        def run_once():
            globs = {"__name__": "__main__", "__file__": path, "__builtins__": __builtins__}
            with _Capture() as cap:
                try:
                    exec(code, globs)
                except SystemExit as exc:   # sys.exit(0) ends a script normally
                    if exc.code not in (None, 0):
                        raise
            return cap.buffer.getvalue()
        return "script", run_once
    raise ValueError("unknown workload mode %r" % (mode,))


def _one_line(exc):
    if isinstance(exc, SyntaxError) and exc.lineno:
        return "%s:%s: SyntaxError: %s" % (exc.filename, exc.lineno, exc.msg)
    return "%s: %s" % (type(exc).__name__, exc)


def _workload_traceback(exc):
    """The traceback of the workload's own code: this file's frames (it only
    drives the workload) are left out, and a SyntaxError has none to show."""
    import traceback
    if isinstance(exc, SyntaxError):
        return None
    here = os.path.abspath(__file__)
    te = traceback.TracebackException.from_exception(exc)
    te.stack = traceback.StackSummary.from_list(
        [f for f in te.stack if os.path.abspath(f.filename) != here])
    return "Traceback (most recent call last):\n" + "".join(te.stack.format()) + \
        "".join(te.format_exception_only())


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: qk_measure_child.py SPEC.json OUT.json\n")
        return 2
    with open(argv[1]) as fh:
        spec = json.load(fh)
    out_path = argv[2]
    info = describe_interpreter(spec.get("env_keys", ()))
    result = {"interpreter": info, "times": [], "digests": [], "error": None}
    try:
        mode, run_once = build_runner(spec)
        result["mode"] = mode
        repeats = int(spec.get("repeats", 6))
        loops = max(1, int(spec.get("loops", 1)))
        clock = time.perf_counter_ns
        for _ in range(repeats):
            outputs = []
            t0 = clock()
            for _ in range(loops):
                outputs.append(run_once())
            t1 = clock()
            result["times"].append((t1 - t0) / 1e9 / loops)
            result["digests"].append(_digest("\x00".join(outputs)))
    except BaseException as exc:  # report, never hide: the parent prints it
        result["error"] = _one_line(exc)
        result["traceback"] = _workload_traceback(exc)
    # Read JIT state again after the work: it must not have changed.
    result["interpreter_after"] = {"jit": describe_interpreter()["jit"]}
    if spec.get("tier2_check") and _NAMESPACE:
        try:
            result["tier2_loops"] = tier2_loops(_NAMESPACE[0], os.path.abspath(spec["path"]))
        except Exception as exc:   # say so; the parent reports the check as failed
            result["tier2_loops"] = None
            result["tier2_error"] = "%s: %s" % (type(exc).__name__, exc)
    with open(out_path, "w") as fh:
        json.dump(result, fh)
    return 0 if result["error"] is None else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
