"""Warm-up probe: runs inside the target interpreter (CPython 3.11 to 3.15).

Stdlib only; invoked as ``python warmup_agent.py`` with a JSON request on
stdin, writes a JSON answer on stdout.  Request keys:

``mode``        "stmt" or "func"
``stmt, setup`` (stmt mode) source text
``file, func, args`` (func mode) path, function name, list of argument
                source texts (``ast.literal_eval``; a plain string if that fails)
``executions``  how many executions to trace
``repeat``      timing repeats per execution (0: no timing)
``steady``      executions run before timing the steady state

Each trace is taken on a *fresh* code object (a fresh compile, or a deep
``code.replace`` copy), one execution at a time, by reading
``_co_code_adaptive`` after each execution -- no tracing of any kind.
"""

import ast
import gc
import json
import os
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))


def _load_decode():
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "_quickening_lens_decode", os.path.join(_HERE, "decode.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


D = _load_decode()
TABLES = D.Tables.current()
CodeType = type(_load_decode.__code__)


def _all_codes(code):
    out, stack = [], [code]
    while stack:
        c = stack.pop()
        out.append(c)
        stack.extend(k for k in reversed(c.co_consts) if isinstance(k, CodeType))
    return out


def _fresh_code(code):
    consts = tuple(_fresh_code(k) if isinstance(k, CodeType) else k
                   for k in code.co_consts)
    return code.replace(co_consts=consts)


def _literal(text):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _compiles(source, filename, what):
    try:
        compile(source, filename, "exec")
    except SyntaxError as exc:
        raise _Refused("%s does not compile: SyntaxError: %s (line %s)"
                       % (what, exc.msg, exc.lineno))


class _Refused(Exception):
    """The target cannot be run; the message is the whole line for the user."""


class _StmtTarget(object):
    def __init__(self, stmt, setup):
        self.stmt, self.setup = stmt, setup
        sys.path.insert(0, os.getcwd())
        _compiles(setup, "<setup>", "--setup")
        _compiles(stmt, "<stmt>", "-c")

    def fresh(self):
        ns = {"__name__": "__quickening_warmup__"}
        setup_code = compile(self.setup, "<setup>", "exec")
        try:
            exec(setup_code, ns)
        except Exception as exc:
            raise _Refused("--setup raised %s: %s" % (type(exc).__name__, exc))
        code = compile(self.stmt, "<stmt>", "exec")
        watched = _all_codes(code) + _all_codes(setup_code)[1:]

        def run():
            exec(code, ns)
        return run, watched


class _FuncTarget(object):
    def __init__(self, path, name, args):
        import runpy
        sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
        try:
            self.ns = runpy.run_path(path, run_name="__quickening_warmup__")
        except SyntaxError as exc:
            raise _Refused("%s%s: SyntaxError: %s" % (path, ":%s" % exc.lineno if exc.lineno else "",
                                                     exc.msg))
        except Exception as exc:
            raise _Refused("%s failed while loading: %s: %s" % (path, type(exc).__name__, exc))
        if name not in self.ns:
            raise _Refused("%s has no function %r" % (path, name))
        self.fn = self.ns[name]
        if not hasattr(self.fn, "__code__"):
            raise _Refused("%s: %s is not a Python function" % (path, name))
        self.args = [_literal(a) for a in args]

    def fresh(self):
        fn = self.fn
        code = _fresh_code(fn.__code__)
        f = type(fn)(code, fn.__globals__, fn.__name__, fn.__defaults__,
                     fn.__closure__)
        f.__kwdefaults__ = fn.__kwdefaults__
        args = self.args

        def run():
            f(*args)
        return run, _all_codes(code)


def _snapshot(codes):
    sites = []
    for c in codes:
        positions = None
        for s in D.decode(TABLES, c.co_code, c._co_code_adaptive):
            if positions is None:
                positions = list(c.co_positions())
            p = positions[s.offset // 2]
            sites.append({
                "code": getattr(c, "co_qualname", c.co_name),
                "filename": c.co_filename,
                "firstlineno": c.co_firstlineno,
                "offset": s.offset, "line": p[0], "col": p[2],
                "end_col": p[3] if p[1] == p[0] else None,
                "family": s.family, "opname": s.opname, "state": s.state,
                "counter_raw": s.counter_raw, "counter_value": s.counter_value,
                "backoff": s.backoff,
                "specialized": s.state == "specialized",
            })
    return sites


def trace(target, executions):
    """[state before the first execution] + [state after each execution]."""
    run, codes = target.fresh()
    out = [_snapshot(codes)]
    for _ in range(executions):
        run()
        out.append(_snapshot(codes))
    return out


def timing(target, executions, repeat, steady):
    per = []
    clock = time.perf_counter_ns
    gc_was = gc.isenabled()
    gc.disable()
    try:
        for i in range(executions):
            best = None
            for _ in range(repeat):
                run, _codes = target.fresh()
                for _k in range(i):
                    run()
                t0 = clock()
                run()
                dt = clock() - t0
                if best is None or dt < best:
                    best = dt
            per.append(best)
        run, _codes = target.fresh()
        for _k in range(steady):
            run()
        best = None
        for _ in range(max(repeat, 1) * 5):
            t0 = clock()
            run()
            dt = clock() - t0
            if best is None or dt < best:
                best = dt
    finally:
        if gc_was:
            gc.enable()
    return per, best


def main():
    req = json.loads(sys.stdin.read())
    try:
        if req["mode"] == "stmt":
            target = _StmtTarget(req["stmt"], req.get("setup", ""))
        else:
            target = _FuncTarget(req["file"], req["func"], req.get("args", []))
    except _Refused as exc:
        json.dump({"error": str(exc)}, sys.__stdout__)
        return 0
    except Exception as exc:
        json.dump({"error": "setting up failed: %s: %s" % (type(exc).__name__, exc)},
                  sys.__stdout__)
        return 0
    n = int(req.get("executions", 10))
    answer = {"version": list(sys.version_info[:3])}
    try:
        states = trace(target, n)
        answer["initial"] = states[0]
        answer["executions"] = states[1:]
        if int(req.get("repeat", 0)) > 0:
            per, steady = timing(target, n, int(req["repeat"]),
                                 int(req.get("steady", 1000)))
            answer["time_ns"] = per
            answer["steady_ns"] = steady
    except _Refused as exc:
        answer["error"] = str(exc)
    except Exception as exc:
        what = "-c %s" % req["stmt"] if req["mode"] == "stmt" else "%s(...)" % req["func"]
        answer["error"] = "%s raised %s: %s" % (what, type(exc).__name__, exc)
    real_stdout = sys.__stdout__
    json.dump(answer, real_stdout)
    return 0


if __name__ == "__main__":
    # the code under test may print: keep our JSON apart on the real stdout
    _out = sys.stdout
    sys.stdout = sys.stderr
    sys.__stdout__ = _out
    sys.exit(main())
