"""Is this interpreter one the lens can read?  Asked before anything runs.

``describe(python)`` runs ``decode.py --describe`` inside the target (the
decoder is stdlib-only, so it runs on any CPython and on other
implementations far enough to say what they are) and caches the answer per
interpreter binary.  ``refusal(python, prog)`` is the one line a command
prints, and exits on, when the answer is no; every command that reads a
target's bytecode (watch, warmup, compare, each experiment) asks it first.
"""

import hashlib
import json
import os
import subprocess

from quickening.lens import decode

LENS_DIR = os.path.dirname(os.path.abspath(__file__))
SUPPORTED_TEXT = decode.SUPPORTED_TEXT

_MEMO = {}


def _cache_path(real, st):
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    d = os.path.join(base, "quickening")
    stamp = os.stat(os.path.join(LENS_DIR, "decode.py")).st_mtime_ns
    key = "%s|%d|%d|%d" % (real, st.st_mtime_ns, st.st_size, stamp)
    return d, os.path.join(d, "describe-%s.json" % hashlib.sha1(key.encode()).hexdigest()[:16])


def describe(python):
    """decode.describe_build() as seen inside ``python``, or
    ``{"readable": False, "reason": ...}`` when it does not run."""
    real = os.path.realpath(python)
    try:
        st = os.stat(real)
    except OSError:
        return {"readable": False, "reason": "no such interpreter", "version": None}
    if real in _MEMO:
        return _MEMO[real]
    d, path = _cache_path(real, st)
    try:
        with open(path) as fh:
            info = json.load(fh)
        _MEMO[real] = info
        return info
    except (OSError, ValueError):
        pass
    # it runs in LENS_DIR: a relative path (./venv/bin/python) must still name it
    exe = os.path.abspath(python) if os.sep in python else python
    try:
        # -s -E: no user site, no PYTHON* variables; the answer is about the build
        r = subprocess.run([exe, "-s", "-E", os.path.join(LENS_DIR, "decode.py"),
                            "--describe"], capture_output=True, text=True, timeout=60,
                           cwd=LENS_DIR)
    except (OSError, subprocess.SubprocessError) as exc:
        return {"readable": False, "reason": "it does not run (%s)" % exc, "version": None}
    info = None
    if r.returncode == 0:
        try:
            info = json.loads(r.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            info = None
    if info is None:
        info = _fallback(python, r)
        return info            # not cached: may be a transient failure
    _MEMO[real] = info
    try:
        os.makedirs(d, exist_ok=True)
        tmp = "%s.%d" % (path, os.getpid())
        with open(tmp, "w") as fh:
            json.dump(info, fh)
        os.replace(tmp, path)
    except OSError:
        pass
    return info


def _fallback(python, result):
    """The decoder did not run there (too old a Python for its syntax, not
    Python at all): ask only for the version."""
    # (written so that Python 2 runs it too, and asked again without -I, which
    # Python 2 does not know: it is then named, not called "unknown")
    probe = ("import sys, platform; print('%d %d %d' % tuple(sys.version_info[:3])); "
             "print(platform.python_implementation().lower())")
    for isolation in (["-I"], ["-E", "-s"]):
        try:
            r = subprocess.run([python, *isolation, "-c", probe],
                               capture_output=True, text=True, timeout=30)
            lines = r.stdout.split("\n")
            version = [int(x) for x in lines[0].split()]
            impl = lines[1].strip()
        except (OSError, subprocess.SubprocessError, ValueError, IndexError):
            continue
        return {"readable": False, "version": version, "implementation": impl,
                "reason": "the lens cannot read its bytecode"}
    err = (result.stderr or "").strip().splitlines()
    return {"readable": False, "version": None,
            "reason": "it did not start%s" % (": " + err[-1] if err else "")}


def version_text(info):
    v = info.get("version")
    impl = info.get("implementation") or "?"
    name = "CPython" if impl == "cpython" else impl
    return "%s %s" % (name, ".".join(map(str, v))) if v else "unknown"


def refusal(python, prog=None):
    """None if ``python`` can be read; else the one line ``prog`` prints
    (without the ``prog:`` prefix when prog is None)."""
    info = describe(python)
    if info.get("readable"):
        return None
    line = "supports %s; %s is %s: %s" % (
        SUPPORTED_TEXT, python, version_text(info), info.get("reason"))
    return "%s: %s" % (prog, line) if prog else line
