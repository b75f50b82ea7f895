"""`frame.f_locals` of an interpreted frame: a live, write-through mapping (PEP 667).

In CPython 3.13 `f_locals` of a function frame (and of module or class code
while an inlined comprehension's variables are set) is a FrameLocalsProxy:
reading it shows the variables' current values, writing it changes them,
and names that are not fast locals go to a dict kept with the frame.  This
is the same for interpreted frames; a frame of module or class code without
such variables just has its namespace dict as f_locals.
"""

import reprlib
import types
from collections.abc import Mapping, MutableMapping

from quickening.interp import host
from quickening.interp.ops.registry import NULL

_CellType = types.CellType


def f_locals(frame):
    """What `frame.f_locals` is for an interpreted frame."""
    if frame.locals is not None:
        if not hidden_locals(frame):
            return frame.locals
    return FrameLocalsProxy(frame)


_NOT_HIDDEN = frozenset(("__class__", "__classdict__", "__conditional_annotations__"))


def hidden_locals(f):
    """The set fast locals of non-function code: variables of inlined comprehensions."""
    info = f.info
    fast = f.stack
    hidden = None
    for i in range(info.free_start):
        value = fast[i]
        if value is NULL:
            continue
        varname = info.localsplus[i]
        if varname in info.cell_names:
            if varname in _NOT_HIDDEN or type(value) is not _CellType:
                continue
            try:
                value = value.cell_contents
            except ValueError:
                continue
        if hidden is None:
            hidden = {}
        hidden[varname] = value
    return hidden


class FrameLocalsProxy(MutableMapping):
    __slots__ = ("_frame", "_index")

    def __init__(self, frame):
        self._frame = frame
        info = frame.info
        optimized = bool(info.code.co_flags & host.CO_OPTIMIZED)
        index = {}
        for i, name in enumerate(info.localsplus):
            if i >= info.free_start and not optimized:
                continue  # free variables of class bodies are not locals
            index.setdefault(name, i)
        self._index = index

    # -- the fast locals ---------------------------------------------------------
    def _fast(self, i):
        frame = self._frame
        value = frame.stack[i]
        if value is NULL:
            return NULL
        info = frame.info
        name = info.localsplus[i]
        if (i >= info.free_start or name in info.cell_names) and type(value) is _CellType:
            try:
                return value.cell_contents
            except ValueError:
                return NULL
        return value

    def _extra(self, create=False):
        frame = self._frame
        if frame.locals is not None:
            return frame.locals
        extra = getattr(frame, "extra_locals", None)
        if extra is None and create:
            extra = frame.extra_locals = {}
        return extra

    # -- mapping -----------------------------------------------------------------
    def __getitem__(self, key):
        i = self._index.get(key) if type(key) is str else None
        if i is not None:
            value = self._fast(i)
            if value is not NULL:
                return value
            raise KeyError(key)
        extra = self._extra()
        if extra is not None:
            return extra[key]
        raise KeyError(key)

    def __setitem__(self, key, value):
        i = self._index.get(key) if type(key) is str else None
        if i is not None:
            frame = self._frame
            info = frame.info
            old = frame.stack[i]
            if ((i >= info.free_start or key in info.cell_names) and type(old) is _CellType):
                old.cell_contents = value
            else:
                frame.stack[i] = value
            return
        self._extra(create=True)[key] = value

    def __delitem__(self, key):
        i = self._index.get(key) if type(key) is str else None
        if i is not None and self._fast(i) is not NULL:
            raise ValueError("cannot remove local variables from FrameLocalsProxy")
        extra = self._extra()
        if extra is None:
            raise KeyError(key)
        del extra[key]

    def __iter__(self):
        seen = set()
        for name, i in self._index.items():
            if self._fast(i) is not NULL:
                seen.add(name)
                yield name
        extra = self._extra()
        if extra is not None:
            for name in list(extra):
                if name not in seen:
                    yield name

    def __len__(self):
        return sum(1 for _ in self)

    def __contains__(self, key):
        try:
            self[key]
        except KeyError:
            return False
        return True

    def copy(self):
        return dict(self)

    def __eq__(self, other):
        if isinstance(other, (FrameLocalsProxy, dict, Mapping)):
            return dict(self) == dict(other)
        return NotImplemented

    __hash__ = None

    def __or__(self, other):
        if not isinstance(other, Mapping):
            return NotImplemented
        result = dict(self)
        result.update(other)
        return result

    def __ror__(self, other):
        if not isinstance(other, Mapping):
            return NotImplemented
        result = dict(other)
        result.update(self)
        return result

    def __ior__(self, other):
        self.update(other)
        return self

    def __reversed__(self):
        return reversed(list(self))

    @reprlib.recursive_repr("{...}")
    def __repr__(self):
        return repr(dict(self))
