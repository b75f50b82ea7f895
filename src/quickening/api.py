"""The Python API of the interpreter.

    from quickening import api
    api.run_path("script.py", argv=["script.py", "x"])   # like `python script.py x`
    api.run_module("package.module")                     # like `python -m package.module`
    api.run_code(code, globals_dict)                      # exec(code, globals) in the interpreter
    api.call(fn, *args, **kwargs)                         # fn's body runs in the interpreter

Functions, classes and generators created by interpreted code keep running
in the interpreter wherever they are called from.
"""

import importlib.machinery
import importlib.util
import os
import sys
import types

from quickening.interp import host

host.check_host()

from quickening.interp import escapes  # noqa: E402
from quickening.interp.ops import registered as _handlers  # noqa: E402,F401  (registers the handlers)
from quickening.interp import runtime  # noqa: E402  (registers the intercepts)
from quickening.interp.runtime import run_code  # noqa: E402,F401  (exec in the interpreter)
from quickening.interp import frameview, generators  # noqa: E402,F401  (no lazy imports mid-run)
from quickening.interp.families import registered as _families  # noqa: E402,F401  (registers the families)
from quickening.interp.codeinfo import info_for  # noqa: E402
from quickening.interp.frame import THREAD  # noqa: E402
from quickening.interp.functions import entry_depth, interpreted_info, new_frame, trampoline_for  # noqa: E402
from quickening.interp.loop import run_frame  # noqa: E402

__all__ = ["run_code", "run_path", "run_module", "call", "Interpreter"]


class Interpreter:
    """Process-wide options of the interpreter; set them before running code.

    specialize=False leaves every site generic; collect_stats=True counts
    executions and operand types per site (quickening.stats_report).
    Code objects already decoded keep the options they were decoded with.
    """

    def __init__(self, specialize=True, collect_stats=False):
        from quickening.interp import quicken
        quicken.Config.specialize = specialize
        quicken.Config.collect_stats = collect_stats


def call(fn, /, *args, **kwargs):
    """Call fn with its body (and everything it calls from Python) interpreted."""
    if isinstance(fn, types.MethodType):
        return call(fn.__func__, fn.__self__, *args, **kwargs)
    if not isinstance(fn, types.FunctionType):
        return fn(*args, **kwargs)
    info = interpreted_info(fn) or info_for(fn.__code__, runtime.engine())
    escapes.watch(info.code)
    trampoline_for(info)
    back = THREAD.frame
    frame = new_frame(info, fn, args, kwargs or None, entry_depth(back))
    if info.is_generator_like:
        return generators.wrap(frame)
    return run_frame(frame)


def _fresh_main(path=None, spec=None, loader=None):
    """A __main__ module with the names CPython's start-up gives it, in its order
    (a global's index in the dict is what LOAD_GLOBAL caches); -c has no __file__
    nor __cached__."""
    import builtins
    main = types.ModuleType("__main__")
    main.__loader__ = loader
    main.__spec__ = spec
    main.__package__ = spec.parent if spec is not None else None
    main.__annotations__ = {}
    main.__builtins__ = builtins
    if path is not None:
        main.__file__ = path
        main.__cached__ = None
    return main


def run_path(path, run_name="__main__", argv=None, *, set_sys_path=True):
    """Run a script file like `python path args...`; return its module globals."""
    with open(path, "rb") as fh:
        source = fh.read()
    path = os.path.abspath(path)
    code = compile(source, path, "exec", dont_inherit=True)
    loader = importlib.machinery.SourceFileLoader(run_name, path)
    main = _fresh_main(path, None, loader)
    main.__name__ = run_name
    if argv is not None:
        sys.argv[:] = argv
    if set_sys_path:
        sys.path[0:1] = [os.path.dirname(os.path.realpath(path))]
    previous = sys.modules.get(run_name)
    sys.modules[run_name] = main
    try:
        run_code(code, main.__dict__)
    finally:
        if run_name != "__main__" and previous is not None:
            sys.modules[run_name] = previous
    return main.__dict__


def run_source(source, filename="<string>", argv=None):
    """Run source text like `python -c source`; return its module globals."""
    code = compile(source, filename, "exec", dont_inherit=True)
    # `python -` names the program's file <stdin>; `python -c` gives it none
    main = _fresh_main(filename if filename == "<stdin>" else None)
    main.__loader__ = importlib.machinery.BuiltinImporter
    if argv is not None:
        sys.argv[:] = argv
    sys.modules["__main__"] = main
    run_code(code, main.__dict__)
    return main.__dict__


class ModuleNotFound(Exception):
    pass


def run_module(modname, run_name="__main__", argv=None):
    """Run a module like `python -m modname args...`; return its globals."""
    spec = importlib.util.find_spec(modname)
    if spec is None:
        raise ModuleNotFound(f"No module named {modname}")
    if spec.submodule_search_locations is not None:
        if modname == "__main__" or modname.endswith(".__main__"):
            raise ModuleNotFound("Cannot use package as __main__ module")
        main_name = modname + ".__main__"
        spec = importlib.util.find_spec(main_name)
        if spec is None:
            raise ModuleNotFound(f"No module named {main_name}; '{modname}' is a package "
                                 f"and cannot be directly executed")
        modname = main_name
    loader = spec.loader
    code = loader.get_code(modname) if hasattr(loader, "get_code") else None
    if code is None:
        raise ModuleNotFound(f"No code object available for {modname}")
    main = _fresh_main(spec.origin, spec, loader)
    main.__name__ = run_name
    main.__cached__ = spec.cached
    if argv is not None:
        sys.argv[:] = [spec.origin, *argv[1:]]
    sys.modules[run_name] = main
    run_code(code, main.__dict__)
    return main.__dict__
