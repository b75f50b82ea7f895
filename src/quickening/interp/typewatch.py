"""Type versions, watched: a token per (type, version) that turns false when
the type is modified.

CPython's type guards compare a type's tp_version_tag with the version the
specializer cached.  The tag changes only when the type is modified:
PyType_Modified sets it to 0 (a later lookup gives a new tag; tags are never
reused), and calls the type watchers (PyType_AddWatcher, 3.12+) of a watched
type at exactly that moment.  So `token[0]`, true from the moment the tag is
seen to hold the version until a watcher call for the type, answers the same
question as reading the tag: in fused runs a list item (about 13 ns) instead
of a 4-byte memory read compared with the version (about 35 ns), on every
attribute guard.

A type stays watched until its next modification (the callback unwatches it:
a program that keeps modifying a class pays for one callback per token, not
per modification).  The watcher is cleared at exit, by an atexit hook
registered when the interpreter is imported, so that it runs after the
program's own hooks; every token made so far turns false then (what is
interpreted later still, finalizers at shutdown, misses at those sites), and
a token made after it, like one made without a free watcher slot, reads the
tag itself.
"""

import atexit
import ctypes

from quickening.interp import facts

_api = ctypes.pythonapi
_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.py_object)

# id(type) -> (version, token): the token of the type's version now (an entry
# left by a type that died is told apart by its version: tags are not reused)
_TOKENS = {}
# id(type) -> the version its last modification ended.  CPython calls the watchers
# before it resets the tag, and a callback runs Python code, so another thread may
# ask for a token of the old version while the tag still holds it: such a version
# is never valid again (tags are not reused), whatever the tag says.
_ENDED = {}


class _ReadsTheTag:
    """A token without a watcher: reads the tag (as the members' handlers do)."""

    __slots__ = ("address", "version")

    def __init__(self, t, version):
        self.address = (id(t) + facts.TYPE_VERSION_TAG) >> 2
        self.version = version

    def __getitem__(self, i):
        return facts.MEM32[self.address] == self.version


def _on_modified(t):
    _ENDED[id(t)] = facts.type_version(t)
    entry = _TOKENS.pop(id(t), None)
    if entry is not None:
        entry[1][0] = False
    if _watcher[0] >= 0:
        _api.PyType_Unwatch(_watcher[0], t)
    return 0


_on_modified_c = _CALLBACK(_on_modified)
_watcher = [None]     # the watcher id: None before the first token, -1 when there is none


def _start():
    _api.PyType_AddWatcher.argtypes = [_CALLBACK]
    _api.PyType_AddWatcher.restype = ctypes.c_int
    for name in ("PyType_Watch", "PyType_Unwatch"):
        getattr(_api, name).argtypes = [ctypes.c_int, ctypes.py_object]
        getattr(_api, name).restype = ctypes.c_int
    _api.PyType_ClearWatcher.argtypes = [ctypes.c_int]
    try:
        _watcher[0] = _api.PyType_AddWatcher(_on_modified_c)
    except Exception:       # all watcher slots taken (ValueError set by CPython)
        _watcher[0] = -1


def _stop():
    watcher, _watcher[0] = _watcher[0], -1
    if watcher is not None and watcher >= 0:
        _api.PyType_ClearWatcher(watcher)
    for _, token in _TOKENS.values():
        token[0] = False
    _TOKENS.clear()
    _ENDED.clear()


def _holds(t, version):
    """t's tag is `version`, and no modification has ended it (see _ENDED)."""
    return facts.type_version(t) == version and _ENDED.get(id(t)) != version


def token(t, version):
    """A token for `version` of type t: token[0] is true while t's tp_version_tag
    is `version` (false from the start if it is not now)."""
    if _watcher[0] is None:
        _start()
    entry = _TOKENS.get(id(t))
    if entry is not None and entry[0] == version:
        return entry[1]
    if version == 0 or not _holds(t, version):
        return [False]
    if _watcher[0] < 0:
        return _ReadsTheTag(t, version)
    # (registered, then watched, then the tag read again: a modification at any
    # point in between, in another thread, leaves the token false)
    token = [True]
    _TOKENS[id(t)] = (version, token)
    _api.PyType_Watch(_watcher[0], t)
    if not _holds(t, version):
        token[0] = False
        if _TOKENS.get(id(t), (None, None))[1] is token:
            del _TOKENS[id(t)]
    return token


atexit.register(_stop)    # (at import: after the program's own hooks)
