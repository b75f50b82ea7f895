"""quickening as a user installs it: a wheel built from this checkout, installed
(not editable) into a fresh venv, runs its commands -- including the HTML report,
whose assets are package data that only a real install can lose.

The wheel is built once per session: the first worker to need it builds it under
a lock in a directory all of the session's xdist workers share, the others use
it.  (The xdist_group mark alone does not do it: pytest 9.2 drops xdist's group
suffix from node ids, so --dist loadgroup spreads a group over the workers,
pytest-xdist issue 1386, and each built its own wheel.)
"""

import fcntl
import importlib.util
import pathlib
import re
import json
import os
import shutil
import subprocess
import sys
import sysconfig

import pytest

pytestmark = pytest.mark.xdist_group("installed-wheel")

CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# what a copy of the checkout leaves out: this worktree's venv, git data, build litter
_NOT_SOURCE = shutil.ignore_patterns(".venv", ".git", "__pycache__", "build", "dist",
                                     "*.egg-info", ".pytest_cache", ".hypothesis",
                                     "quickening-records")

# what the installed venv's commands run with: the caller's environment without its
# PYTHONPATH (a checkout's src there, as a worktree's tests have it, would be
# imported instead of the wheel's quickening; a user of the wheel has none).
# pip needs it gone too: a checkout's src holding a quickening.egg-info would
# make pip see quickening installed already and install nothing.
AS_INSTALLED = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

PROGRAM = """\
class Square:
    def __init__(self, side):
        self.side = side
    def area(self):
        return self.side * self.side
def total(shapes):
    t = 0
    for s in shapes:
        t += s.area()
    return t
print(total([Square(i) for i in range(2000)]))
"""


@pytest.fixture(scope="session")
def installed(tmp_path_factory):
    """(venv python, quickening script, its purelib) of a fresh venv holding the wheel."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run is None:             # no workers: this session's own directory
        return _install(tmp_path_factory.mktemp("wheel"))
    # the workers' base temp directories sit side by side in the session's
    root = tmp_path_factory.getbasetemp().parent / f"wheel-{run}"
    root.mkdir(exist_ok=True)
    with open(root / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = root / "installed.json"
        if done.exists():
            return tuple(json.loads(done.read_text()))
        result = _install(root)
        done.write_text(json.dumps([str(p) for p in result]))
        return result


def _install(root):
    source = root / "source"
    shutil.copytree(CHECKOUT, source, ignore=_NOT_SOURCE)
    dist = root / "dist"
    # the test extras carry the build backend (pyproject's build-system), so the
    # wheel builds with it in place: an isolated build would first install it
    # into a fresh environment (9 of the build's 12 seconds).  A venv made
    # before the extras had it still builds, isolated.
    isolation = ["--no-build-isolation"] if importlib.util.find_spec("setuptools") else []
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", *isolation,
                            "-w", str(dist), str(source)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    wheels = list(dist.glob("quickening-*.whl"))
    assert len(wheels) == 1, wheels
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             capture_output=True, text=True, check=True, env=AS_INSTALLED).stdout.strip()
    # the runtime dependencies come from the test venv (its site-packages, after the
    # new venv's own, so the wheel's quickening is the one imported; the test venv's
    # editable hook is a .pth file there, which a path added this way does not run)
    with open(os.path.join(purelib, "_test_venv_dependencies.pth"), "w") as fh:
        fh.write(sysconfig.get_path("purelib") + "\n")
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                              "--no-deps", "--no-index", "-q", str(wheels[0])],
                             capture_output=True, text=True, env=AS_INSTALLED)
    assert install.returncode == 0, install.stderr[-3000:]
    script = venv / "bin" / "quickening"
    assert script.exists()
    where = subprocess.run([str(python), "-c", "import quickening; print(quickening.__file__)"],
                           capture_output=True, text=True, check=True, cwd=root,
                           env=AS_INSTALLED).stdout.strip()
    assert where.startswith(purelib), where
    return python, script, purelib


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "shapes.py"
    path.write_text(PROGRAM)
    return path


def _native_stdout(path):
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          check=True).stdout


def test_wheel_declares_the_runtime_dependencies(installed):
    python, _, _ = installed
    requires = subprocess.run([str(python), "-c", "import importlib.metadata as m; "
                               "print('\\n'.join(m.requires('quickening')))"],
                              capture_output=True, text=True, check=True, env=AS_INSTALLED).stdout.split("\n")
    names = {r.split(">")[0].split("=")[0].split(";")[0].strip() for r in requires if r.strip()}
    # the extras stay extras: only what running needs is unconditional
    unconditional = {r.split(">")[0].split("=")[0].strip() for r in requires
                     if r.strip() and "extra ==" not in r}
    assert {"rich", "matplotlib"} <= unconditional
    assert "pytest" in names and "pytest" not in unconditional


def test_installed_run_with_stats(installed, program):
    _, script, _ = installed
    out = subprocess.run([str(script), "run", "--stats", str(program)], capture_output=True,
                         text=True, cwd=program.parent, env=AS_INSTALLED)
    assert out.returncode == 0, out.stderr
    assert out.stdout == _native_stdout(program)
    assert "executed sites" in out.stderr


def test_installed_watch_writes_the_html_report(installed, program, tmp_path):
    _, script, purelib = installed
    html = tmp_path / "html"
    report = tmp_path / "r.json"
    out = subprocess.run([str(script), "watch", "--quiet", "--html", str(html), "--json",
                          str(report), str(program)], capture_output=True, text=True,
                         cwd=program.parent, env=AS_INSTALLED)
    assert out.returncode == 0, out.stderr
    assert out.stdout == _native_stdout(program)
    index = (html / "index.html").read_text()
    # the page carries the installed assets inline, and the report's data
    assets = os.path.join(purelib, "quickening", "lens", "_html")
    with open(os.path.join(assets, "report.css")) as fh:
        assert fh.read().strip()[:200] in index
    with open(os.path.join(assets, "report.js")) as fh:
        assert fh.read().strip()[:200] in index
    data = json.loads(report.read_text())
    assert any(s["function"] == "Square.area" for s in data["sites"]), data["sites"][:3]
    assert "Square.area" in index


def test_installed_dis_and_fidelity(installed, program):
    _, script, _ = installed
    dis = subprocess.run([str(script), "dis", "--function", "total", str(program)],
                         capture_output=True, text=True, cwd=program.parent, env=AS_INSTALLED)
    assert dis.returncode == 0, dis.stderr
    assert "Disassembly of total" in dis.stdout
    fid = subprocess.run([str(script), "fidelity", str(program)], capture_output=True,
                         text=True, cwd=program.parent, env=AS_INSTALLED)
    assert "executed sites agree" in fid.stdout, fid.stderr


def test_installed_fidelity_beside_its_venv(installed, program):
    """A program whose directory also holds the venv (a .venv beside the script): the
    sites of quickening's own installed code (the native side's lens reads) and of the
    venv's packages are not the program's; the same sites are compared as elsewhere."""
    python, script, _ = installed
    beside = pathlib.Path(python).parent.parent.parent / "beside_its_venv.py"
    shutil.copy(program, beside)
    counts = []
    for path in (program, beside):
        fid = subprocess.run([str(script), "fidelity", str(path)], capture_output=True,
                             text=True, cwd=path.parent, env=AS_INSTALLED)
        assert fid.returncode == 0, fid.stdout + fid.stderr
        counts.append(re.search(r"fidelity: (\d+)/(\d+) executed sites agree", fid.stdout).groups())
    assert counts[1] == counts[0] and counts[0][0] == counts[0][1], counts
