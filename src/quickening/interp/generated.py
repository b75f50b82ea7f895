"""The source of the code the interpreter generates, registered in `linecache`.

Fused runs (fusion.py, with callees written in by inlining.py), the handlers
derived from the families' declarations (spec.py) and the unpacking helpers
(ops/containers.py) are Python source compiled at run time.  Each distinct source gets a file name of its own and its lines go into
`linecache`, so a traceback that shows an internal frame, `pdb`, `inspect`
and profilers show the generated line.

The name is a path inside this package's directory, so the traceback filter
(tracebacks.is_internal) still drops these frames from the program's
tracebacks.  The entry has no modification time: `linecache.checkcache`
leaves such entries alone (they are not files on disk).

Code made by editing a real code object (masquerade stubs, generator drivers,
traceback stand-ins) keeps a real file's name and lines on purpose -- the
program's, where a frame must look like the program's -- so it has nothing to
register.
"""

import hashlib
import linecache
import os

_DIR = os.path.dirname(os.path.abspath(__file__))


def filename(kind, source, where=""):
    """The file name of one generated source: its kind, a digest of its text (two
    sources never share a name) and, for the reader, what it was made for."""
    digest = hashlib.blake2b(source.encode(), digest_size=6).hexdigest()
    label = f"<{kind} {digest} of {where}>" if where else f"<{kind} {digest}>"
    return os.path.join(_DIR, label)


FUSED_RUN = "fused run"       # the kind of fusion.py's runs


def prefix(kind):
    """What the file names of every generated source of that kind start with."""
    return os.path.join(_DIR, f"<{kind} ")


_FUSED_PREFIX = prefix(FUSED_RUN)


def is_fused(code):
    """Whether a code object is a fused run's (fusion.py)."""
    return code.co_filename.startswith(_FUSED_PREFIX)


def register(kind, source, where=""):
    """Put the source in linecache under its own name; returns the name to compile it with."""
    name = filename(kind, source, where)
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    return name


def compile_registered(kind, source, where=""):
    """compile(source) under a registered name (module code: run it with exec)."""
    return compile(source, register(kind, source, where), "exec")
