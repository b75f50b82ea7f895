"""The source of the code the interpreter generates, found by linecache when asked.

Fused runs (fusion.py, with callees written in by inlining.py), the handlers
derived from the families' declarations (spec.py) and the unpacking helpers
(ops/containers.py) are Python source compiled at run time -- much of it in
the middle of the program.  Each distinct source gets a file name of its own,
kept here with its text.

Nothing is written into `linecache.cache` when code is generated: that is a
module's dict the program can see (and clear).  Instead the generated code's
globals carry what linecache looks for in a module's globals -- a `__name__`
(the file name) and a `__loader__` whose get_source() answers from here -- so
whoever asks for a generated frame's lines with its globals, as tracebacks
(traceback.StackSummary), pdb and bdb do, gets them lazily, exactly as for a
module imported from a zip file.  A lookup with no globals (inspect on a
generated function before any traceback showed it) finds nothing; `quickening
dis --generated` reads source_of().

The name is a path inside this package's directory, so the traceback filter
(tracebacks.is_internal) still drops these frames from the program's
tracebacks.

Code made by editing a real code object (masquerade stubs, generator drivers,
traceback stand-ins) keeps a real file's name and lines on purpose -- the
program's, where a frame must look like the program's -- so it has nothing to
register.
"""

import hashlib
import os
import re

from quickening.interp import codecache

_re_compile = re._compiler.compile     # (re.compile without re's module-level caches)

_DIR = os.path.dirname(os.path.abspath(__file__))
_SOURCES = {}     # file name -> the generated source compiled under it


def filename(kind, source, where=""):
    """The file name of one generated source: its kind, a digest of its text (two
    sources never share a name) and, for the reader, what it was made for."""
    digest = hashlib.blake2b(source.encode(), digest_size=6).hexdigest()
    label = f"<{kind} {digest} of {where}>" if where else f"<{kind} {digest}>"
    return os.path.join(_DIR, label)


GENERATED_PREFIX = os.path.join(_DIR, "<")     # (what every generated file name starts with)
FUSED_RUN = "fused run"       # the kind of fusion.py's runs


def prefix(kind):
    """What the file names of every generated source of that kind start with."""
    return os.path.join(_DIR, f"<{kind} ")


_FUSED_PREFIX = prefix(FUSED_RUN)


def is_fused(code):
    """Whether a code object is a fused run's (fusion.py)."""
    return code.co_filename.startswith(_FUSED_PREFIX)


_PATTERNS = {}


def regex(text):
    """The regular expression `text` compiled, once.  Generating code edits source
    text with patterns made in the middle of the program: re.compile(), re.sub()
    ... would put them in re's own caches, a module's the program can see (and
    purge), evicting the program's patterns."""
    pattern = _PATTERNS.get(text)
    if pattern is None:
        pattern = _PATTERNS[text] = _re_compile(text, 0)
    return pattern


class _Sources:
    """The `__loader__` of generated code: linecache.lazycache calls get_source with
    the globals' `__name__`, which is the code's file name."""
    __slots__ = ()

    def get_source(self, name):
        return _SOURCES.get(name)


LOADER = _Sources()


def source_of(name):
    """The source compiled under a generated file name (None: not one of ours)."""
    return _SOURCES.get(name)


def register(kind, source, where=""):
    """Keep the source under its own name; returns the name to compile it with."""
    name = filename(kind, source, where)
    _SOURCES[name] = source
    return name


def adopt(ns, code):
    """Make the dict ns (the globals generated code runs in) name code's source to
    linecache: the two names it looks for in a module's globals (a `__spec__`
    copied in from a module's globals goes: linecache would ask its loader first)."""
    ns.pop("__spec__", None)
    ns["__name__"] = code.co_filename
    ns["__loader__"] = LOADER
    return ns


def namespace(code, contents=()):
    """New globals for the generated code `code`: contents, adopted (above)."""
    return adopt(dict(contents), code)


def compile_registered(kind, source, where=""):
    """compile(source) under a registered name (module code: exec it in globals
    made by namespace() or adopt())."""
    return codecache.compile_code(source, register(kind, source, where))
