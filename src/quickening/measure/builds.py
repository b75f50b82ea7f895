"""Where the CPython builds the lens and the experiments are tested on live.

One place answers "which interpreter is CPython 3.X here": pyenv's versions
(3.11, 3.12 and the host's 3.13) and the Debian builds that
``scripts/install-cpython-builds.sh`` puts in ``~/.cache/quickening/cpython-builds``
(a later 3.13 patch release, and 3.14 and 3.15 with the JIT built in, off
unless ``PYTHON_JIT=1``).  The test suites ask :func:`build` for each one;
under CI (``CI=true``) a missing build is a failure, elsewhere a skip whose
message says how to install it.
"""

import glob
import os

#: The install script's destination (kept in step with the script).
BUILDS_DIR = os.environ.get("QUICKENING_CPYTHON_BUILDS") or os.path.join(
    os.path.expanduser("~"), ".cache", "quickening", "cpython-builds")

INSTALL_HINT = ("run `bash scripts/install-cpython-builds.sh` (or `make test`) to install "
                "Debian's 3.13/3.14/3.15 builds")

#: Names a test may ask for: "3.11", "3.12", "3.13" (pyenv's), and the Debian
#: builds "debian-3.13", "3.14", "3.15".
NAMES = ("3.11", "3.12", "3.13", "debian-3.13", "3.14", "3.15")


def _pyenv(minor):
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    cands = sorted(glob.glob(os.path.join(root, "versions", minor + ".*", "bin", "python")),
                   key=lambda p: [int(x) if x.isdigit() else 0
                                  for x in p.split(os.sep)[-3].split(".")])
    cands = [c for c in cands if os.access(c, os.X_OK)]
    return cands[-1] if cands else None


def _debian(minor):
    exe = os.path.join(BUILDS_DIR, "bin", "python" + minor)
    return exe if os.access(exe, os.X_OK) else None


def build(name):
    """Path of the interpreter called ``name`` (see NAMES), or None."""
    if name.startswith("debian-"):
        return _debian(name[len("debian-"):])
    if name in ("3.14", "3.15"):
        return _debian(name)
    return _pyenv(name)


def under_ci():
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def missing_reason(name):
    where = ("pyenv (~/.pyenv/versions)" if name in ("3.11", "3.12", "3.13")
             else BUILDS_DIR)
    hint = INSTALL_HINT if where == BUILDS_DIR else "install it with pyenv"
    return "CPython %s build not found in %s: %s" % (name, where, hint)
