"""Start-up shim for `quickening watch` (put on PYTHONPATH of the watched child).

Loads the lens agent by file path, removes itself from sys.path and from
PYTHONPATH (so the program's own subprocesses are not watched) and chains to
any other ``sitecustomize`` the program's environment would have imported.
"""
import os
import sys


def _quickening_lens_boot():
    here = os.path.dirname(os.path.abspath(__file__))
    env = os.environ
    orig = env.pop("QUICKENING_LENS_ORIG_PYTHONPATH", None)
    if orig is None:
        env.pop("PYTHONPATH", None)
    else:
        env["PYTHONPATH"] = orig
    sys.path[:] = [p for p in sys.path
                   if not p or os.path.abspath(p) != here]
    agent = None
    try:
        path = os.path.join(os.path.dirname(here), "agent.py")
        try:  # the cheap way (importlib.util costs a few ms at start-up)
            import _frozen_importlib as boot
            import _frozen_importlib_external as ext
            mod = boot._load(ext.spec_from_file_location("_quickening_lens_agent", path))
        except Exception:
            import importlib.util
            spec = importlib.util.spec_from_file_location("_quickening_lens_agent", path)
            mod = importlib.util.module_from_spec(spec)
            sys.modules["_quickening_lens_agent"] = mod
            spec.loader.exec_module(mod)
        agent = mod.start_from_environ()
    except Exception as exc:  # never stop the program from running
        sys.stderr.write("quickening watch: agent failed to start: %r\n" % (exc,))
    # chain to the next sitecustomize, if any
    me = sys.modules.pop("sitecustomize", None)
    try:
        import sitecustomize  # noqa: F401
    except ImportError:
        pass
    if "sitecustomize" not in sys.modules and me is not None:
        sys.modules["sitecustomize"] = me
    return agent


_quickening_lens_boot()
