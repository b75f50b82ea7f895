"""An import hook that runs chosen modules' code in the interpreter.

The hook finds a module the normal way (the rest of sys.meta_path) and, when
the module is Python source that should be interpreted, swaps its loader's
class for a subclass whose exec_module runs the module code here.  The
loader keeps its type for isinstance checks, get_source, resources ...
"""

import fnmatch
import importlib.abc
import importlib.machinery
import os
import sys

from quickening.interp import tracebacks
from quickening.interp.runtime import run_code

_call_with_frames_removed = importlib._bootstrap._call_with_frames_removed

_subclasses = {}


def _interpreting_class(loader_cls):
    cls = _subclasses.get(loader_cls)
    if cls is None:
        def exec_module(self, module):
            code = self.get_code(module.__name__)
            if code is None:
                raise ImportError(f"cannot load source for {module.__name__!r}")
            namespace = module.__dict__
            if "__builtins__" not in namespace:
                # as exec(code, module.__dict__) in importlib: the builtins *dict*
                import builtins
                namespace["__builtins__"] = builtins.__dict__
            try:
                # as importlib runs it: the import system drops its own frames from
                # the traceback up to this one (import.c, remove_importlib_frames)
                _call_with_frames_removed(run_code, code, namespace)
            except BaseException as exc:
                tracebacks.leaving(exc)    # (this frame's entry, the interpreter's)
                raise

        cls = type(loader_cls.__name__, (loader_cls,), {
            "exec_module": exec_module, "__module__": loader_cls.__module__,
            "__qualname__": loader_cls.__qualname__, "_quickening_interpreted": True})
        _subclasses[loader_cls] = cls
    return cls


class InterpretingFinder(importlib.abc.MetaPathFinder):
    """Decides per module whether its code runs in the interpreter."""

    def __init__(self, directories=(), patterns=(), interpret_all=False):
        self.directories = [os.path.realpath(d) for d in directories if d]
        self.patterns = list(patterns)
        self.interpret_all = interpret_all

    def wants(self, fullname, origin):
        if fullname.partition(".")[0] == "quickening":
            return False   # the interpreter itself always runs natively
        if self.interpret_all:
            return True
        for pattern in self.patterns:
            if (fnmatch.fnmatchcase(fullname, pattern) or fullname == pattern
                    or fullname.startswith(pattern + ".")):
                return True
        real = os.path.realpath(origin)
        return any(real.startswith(d + os.sep) for d in self.directories)

    def find_spec(self, fullname, path=None, target=None):
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is None:
                continue
            loader = spec.loader
            if (isinstance(loader, importlib.machinery.SourceFileLoader)
                    and spec.origin and spec.origin.endswith(".py")
                    and not getattr(loader, "_quickening_interpreted", False)
                    and self.wants(fullname, spec.origin)):
                loader.__class__ = _interpreting_class(type(loader))
            return spec
        return None


def install(directories=(), patterns=(), interpret_all=False):
    finder = InterpretingFinder(directories, patterns, interpret_all)
    sys.meta_path.insert(0, finder)
    return finder


def uninstall(finder):
    try:
        sys.meta_path.remove(finder)
    except ValueError:
        pass
