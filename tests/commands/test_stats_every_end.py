"""`run --stats` / `--stats-json` report for every way a program ends: a normal
end, sys.exit, an uncaught exception, Ctrl-C (a SIGINT the program sends itself,
so it arrives at a known point).  The program's own output, stderr and exit
status stay what the native run gives."""

import json
import subprocess
import sys

import pytest

PYTHON = sys.executable

WARM = """\
def f(x):
    return x + 1
for i in range(100):
    f(i)
print("warm", flush=True)
"""

ENDINGS = {
    "normal end": "print('done')\n",
    "sys.exit": "import sys\nsys.exit(3)\n",
    "sys.exit with a message": "import sys\nsys.exit('bye')\n",
    "uncaught exception": "raise ValueError('boom')\n",
    "Ctrl-C": "import os, signal\nos.kill(os.getpid(), signal.SIGINT)\n",
}

STATS_LINES = ("quickening: ", "escapes (interpreted code that ran natively)")


@pytest.mark.parametrize("ending", list(ENDINGS))
def test_statistics_are_reported_however_the_program_ends(ending, tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(WARM + ENDINGS[ending])
    report = tmp_path / "stats.json"
    native = subprocess.run([PYTHON, str(script)], capture_output=True, text=True, cwd=tmp_path)
    ours = subprocess.run([PYTHON, "-m", "quickening", "run", "--stats", "--stats-json",
                           str(report), str(script)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert ours.returncode == native.returncode, ours.stderr
    assert ours.stdout == native.stdout
    lines = ours.stderr.splitlines()
    assert any(line.startswith("quickening: ") and "executed sites" in line for line in lines), \
        ours.stderr
    program_stderr = [line for line in lines if not line.startswith(STATS_LINES)]
    assert program_stderr == native.stderr.splitlines()
    data = json.loads(report.read_text())
    assert data["schema"] == "quickening-stats/2"
    assert any(site["site"].split(":")[1] == "f" for site in data["sites"]), data["sites"][:3]
