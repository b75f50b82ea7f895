"""Start-up shim for `quickening watch` (put on PYTHONPATH of the watched child).

Loads the lens agent by file path (the runner puts a copy compiled by the
watched interpreter on the path, see quickening.lens.runner._shim_dir),
removes itself from sys.path and from PYTHONPATH (so the program's own
subprocesses are not watched) and chains to any other ``sitecustomize`` the
program's environment would have imported.
"""
import os
import sys


def _from_blob(blob_path, agent_path):
    """Agent and decoder precompiled by this interpreter (see
    quickening.lens.runner.agent_files): no compile at start-up."""
    if not blob_path:
        return None
    try:
        import marshal
        with open(blob_path, "rb") as f:
            blob = marshal.loads(f.read())
        if tuple(blob["version"]) != tuple(sys.version_info[:3]):
            return None
        mods = {}
        for name, key in (("_quickening_lens_decode", "decode"),
                          ("_quickening_lens_agent", "agent")):
            m = type(sys)(name)
            m.__file__ = os.path.join(os.path.dirname(agent_path), key + ".py")
            sys.modules[name] = m
            exec(blob[key], m.__dict__)
            mods[key] = m
        return mods["agent"]
    except Exception:
        sys.modules.pop("_quickening_lens_decode", None)
        sys.modules.pop("_quickening_lens_agent", None)
        return None


def _from_source(path):
    try:  # the cheap way (importlib.util costs a few ms at start-up)
        import _frozen_importlib as boot
        import _frozen_importlib_external as ext
        return boot._load(ext.spec_from_file_location("_quickening_lens_agent", path))
    except Exception:
        import importlib.util
        spec = importlib.util.spec_from_file_location("_quickening_lens_agent", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules["_quickening_lens_agent"] = mod
        spec.loader.exec_module(mod)
        return mod


def _quickening_lens_boot():
    here = os.path.dirname(os.path.abspath(__file__))
    env = os.environ
    # the lens's directory: this file may be its compiled copy in the cache
    home = env.pop("QUICKENING_LENS_HOME", None) or os.path.dirname(here)
    orig = env.pop("QUICKENING_LENS_ORIG_PYTHONPATH", None)
    if orig is None:
        env.pop("PYTHONPATH", None)
    else:
        env["PYTHONPATH"] = orig
    sys.path[:] = [p for p in sys.path
                   if not p or os.path.abspath(p) != here]
    agent = None
    if sys.version_info[:2] not in ((3, 11), (3, 12), (3, 13), (3, 14), (3, 15)) or \
            sys.implementation.name != "cpython":
        env.pop("QUICKENING_LENS_OUT", None)   # the parent explains why
        return None
    try:
        path = os.path.join(home, "agent.py")
        mod = _from_blob(env.pop("QUICKENING_LENS_CODE", None), path)
        if mod is None:
            mod = _from_source(path)
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
