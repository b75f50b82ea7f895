"""Warm-up, execution by execution, in any CPython 3.11 to 3.15.

:func:`trace_warmup` and :func:`trace_function_warmup` run a *fresh* code
object one execution at a time in a subprocess of the given interpreter and
return, per execution, the state of every specialization site (read from
``_co_code_adaptive``; nothing is traced).  They are used by
``quickening warmup`` and by ``quickening experiment``.
"""

import json
import os
import subprocess

AGENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "warmup_agent.py")


class WarmupError(Exception):
    """The target could not be set up or run (message is one line)."""


class WarmupResult(list):
    """A list (one item per execution) of lists of site dicts, plus
    ``version`` (the target's (major, minor, micro)), ``time_ns`` (best time
    of each early execution, fresh code object per measurement, or None) and
    ``steady_ns`` (best time of one execution after ``steady`` warm-up
    executions, or None)."""

    version = None
    initial = None      # the sites of the fresh code, before execution 1
    time_ns = None
    steady_ns = None


def _run(python, request, timeout):
    try:
        proc = subprocess.run([python, "-I", AGENT], input=json.dumps(request),
                              capture_output=True, text=True, timeout=timeout)
    except OSError as exc:
        raise WarmupError("cannot run %s: %s" % (python, exc.strerror or exc))
    except subprocess.TimeoutExpired:
        raise WarmupError("%s did not finish within %s s" % (python, timeout))
    try:
        answer = json.loads(proc.stdout)
    except ValueError:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise WarmupError("%s failed: %s" % (python, last))
    if "error" in answer and "executions" not in answer:
        raise WarmupError(answer["error"])
    res = WarmupResult(answer.get("executions", []))
    res.version = tuple(answer.get("version", ()))
    res.initial = answer.get("initial")
    res.time_ns = answer.get("time_ns")
    res.steady_ns = answer.get("steady_ns")
    if "error" in answer:
        raise WarmupError(answer["error"])
    return res


def trace_warmup(python, stmt, setup="", executions=10, repeat=0, steady=1000,
                 timeout=300):
    """Run ``stmt`` (after ``setup``) ``executions`` times on a fresh code
    object in the interpreter at path ``python``.

    Returns a :class:`WarmupResult`: per execution, a list of sites (the
    state just before the first execution is in ``.initial``), each a
    dict with ``code`` (qualified name), ``filename``, ``firstlineno``,
    ``offset``, ``line``, ``col``, ``end_col``, ``family`` (base opname),
    ``opname`` (live form), ``state`` (specialized / generic / adaptive /
    instrumented), ``specialized`` (bool), ``counter_raw``,
    ``counter_value`` and ``backoff`` (None for 3.11 specialized forms, whose
    counter is a plain miss budget).  Sites of the statement's code objects
    and of the code objects compiled from ``setup`` (e.g. functions it
    defines) are included.  With ``repeat > 0`` the result also carries
    ``time_ns`` (best of ``repeat`` timings of execution i, each on fresh
    code) and ``steady_ns`` (after ``steady`` warm-up executions).

    Raises :class:`WarmupError` with a one-line message on failure.
    """
    return _run(python, {"mode": "stmt", "stmt": stmt, "setup": setup,
                         "executions": executions, "repeat": repeat,
                         "steady": steady}, timeout)


def trace_function_warmup(python, path, func, args=(), executions=10,
                          repeat=0, steady=1000, timeout=300):
    """Like :func:`trace_warmup` for ``path::func`` called with ``args``
    (source texts, parsed with ``ast.literal_eval`` in the target, plain
    strings otherwise).  The module is loaded once; each trace or timing
    uses a fresh deep copy of the function's code object."""
    return _run(python, {"mode": "func", "file": os.path.abspath(path),
                         "func": func, "args": list(args),
                         "executions": executions, "repeat": repeat,
                         "steady": steady}, timeout)


def first_specialized(result):
    """{(code, offset): execution number (1-based) at which the site first
    showed a specialized form} for a :class:`WarmupResult`."""
    out = {}
    for i, sites in enumerate(result, 1):
        for s in sites:
            key = (s["code"], s["offset"])
            if s["specialized"] and key not in out:
                out[key] = i
    return out
