"""Generated code kept between runs, as CPython keeps a module's bytecode in .pyc.

The interpreter compiles Python source it generates (handlers, fused runs):
about a hundred sources before a program's first line and more while it runs,
a few milliseconds each.  The same sources come back run after run, so their
code objects are kept in one file per CPython bytecode format, read once when
this module is imported (before the program starts) and written back at exit
with what this run compiled that was not there: nothing is read or written in
the middle of the program.

A code object is found by a digest of its file name and source, so a change
of quickening's own code (which changes what it generates) or of where it is
installed (which is in the file names) finds nothing stale.  The file lives in
$QUICKENING_CACHE/code (default ~/.cache/quickening/code);
QUICKENING_CODE_CACHE=0 turns the cache off.  As with .pyc files, nothing is
written under PYTHONDONTWRITEBYTECODE (python -B), though a file there is read.
A file that cannot be read or written is ignored: the code is compiled as
without a cache.
"""

import atexit
import hashlib
import marshal
import os
import sys
from importlib.util import MAGIC_NUMBER
from types import CodeType

from quickening.interp.quiet import quietly

# bytes of code in the file (a program needs ~100-300 KB): beyond, what no run used
# for longest goes, so that reading it stays a few milliseconds of start-up
LIMIT = 2 << 20

_HEADER = b"quickening code cache 1\n" + MAGIC_NUMBER


def _path():
    if os.environ.get("QUICKENING_CODE_CACHE", "1") == "0":
        return None
    root = os.environ.get("QUICKENING_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "quickening")
    return os.path.join(root, "code", f"{sys.implementation.cache_tag}.marshal")


def _read(path):
    """{digest: marshalled code} from the file (empty when absent or unreadable)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
        if not data.startswith(_HEADER):
            return {}
        entries = marshal.loads(data[len(_HEADER):])
        return entries if type(entries) is dict else {}
    except (OSError, ValueError, EOFError, TypeError):
        return {}


_PATH = _path()
_KEPT = _read(_PATH) if _PATH else {}
_NEW = {}       # compiled in this run, not in the file
_USED = set()   # digests this run took from the file


def _kept(digest):
    """What the file keeps under digest (None: nothing, or what cannot be read)."""
    blob = _KEPT.get(digest)
    if blob is None:
        return None
    try:
        return marshal.loads(blob)
    except (ValueError, EOFError, TypeError):
        return None


def compile_code(source, filename):
    """compile(source, filename, "exec"), or the same code object kept by an earlier run."""
    if _PATH is None:
        return compile(source, filename, "exec")
    digest = hashlib.blake2b(f"{filename}\0{source}".encode(), digest_size=16).digest()
    code = _kept(digest)
    if type(code) is CodeType and code.co_filename == filename:
        _USED.add(digest)
        return code
    code = compile(source, filename, "exec")
    _NEW[digest] = marshal.dumps(code)
    return code


def remembered(key, compute):
    """compute(), or what it gave an earlier run for the same key: a value marshal
    can write, and a key that names everything the value depends on."""
    if _PATH is None:
        return compute()
    digest = hashlib.blake2b(f"value\0{key}".encode(), digest_size=16).digest()
    kept = _kept(digest)
    if type(kept) is tuple and len(kept) == 2 and kept[0] == key:
        _USED.add(digest)
        return kept[1]
    value = compute()
    _NEW[digest] = marshal.dumps((key, value))
    return value


def _save():
    """Merge this run's new code into the file (written whole, then renamed in place)."""
    if not _NEW or _PATH is None or sys.dont_write_bytecode:
        # (what was used keeps its place in the file's order until a run adds some)
        return
    try:
        entries = _read(_PATH)      # (another process may have added some meanwhile)
        # (the file's order is the order of last use: what this run used goes last)
        for digest in _USED:
            if digest in entries:
                entries[digest] = entries.pop(digest)
        entries.update(_NEW)
        size = sum(map(len, entries.values()))
        for digest in list(entries):
            if size <= LIMIT:
                break
            size -= len(entries.pop(digest))
        os.makedirs(os.path.dirname(_PATH), exist_ok=True)
        tmp = f"{_PATH}.{os.getpid()}.tmp"
        try:
            with open(tmp, "wb") as fh:
                fh.write(_HEADER + marshal.dumps(entries))
            os.replace(tmp, _PATH)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except (OSError, ValueError):
        pass
    _NEW.clear()


# (at import: after the program's own exit hooks; quietly: the file's open, mkdir,
# marshal.dumps and rename are no events for the program's audit hooks)
atexit.register(quietly, _save)
