"""Every command and example of README.md runs, exactly as written.

The README's fenced blocks are of three kinds, and no other is allowed (a
block of another kind fails here, so nothing slips by unrun):

  ```sh       commands: each line (a trailing backslash continues it) is run
              with bash and must exit 0
  ```python   a program: run with `python`, must exit 0
  ```text     output shown to the reader: not run

The commands run with the test's own environment's bin directory (the
checkout's .venv under `make test`) first on PATH, so `quickening` and
`python` are the ones being tested.  `make` targets run in the checkout (they
manage its .venv); everything else runs in a scratch directory holding links
to the checkout's examples/, bench/ and scripts/, so what the commands write
(records, reports) stays out of the checkout.

LONG_RUNNING lists the few commands that are not run, each with why; each
must still be in the README, and the script it names must exist.  A command
naming an interpreter that is not installed (the README's 3.12 path) is
skipped, saying which.
"""

import os
import re
import shlex
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(REPO, "README.md")

# command -> why it is not run here
LONG_RUNNING = {
    "make test": "runs the whole suite, this test among it",
    "python bench/interp_speed.py --repeat 5 --no-specialize":
        "every corpus program natively and interpreted, five times each: tens of minutes",
    "python bench/specialization_payoff.py --repeat 3": "a quarter of an hour of timed loops",
    "python bench/fidelity_corpus.py": "quickening fidelity over 20 programs: several minutes",
    "python bench/lens_overhead.py --pairs 11": "interleaved timing pairs: several minutes",
    "python bench/lens_overhead.py --python ~/.cache/quickening/cpython-builds/bin/python3.14 "
    "--jit --pairs 11": "interleaved timing pairs on 3.14 with its JIT on: several minutes",
    "python scripts/fuzz.py --seconds 600 --seed 1": "ten minutes of fuzzing, by its own argument",
    "python bench/real_suites.py": "eleven libraries' test suites from PyPI, natively and interpreted: "
                                   "a quarter of an hour (tests/bench runs its machinery offline)",
}
KINDS = ("sh", "python", "text")
_FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```[ \t]*$", re.M | re.S)


def _blocks():
    with open(README, encoding="utf-8") as fh:
        text = fh.read()
    return [(m.group(1).strip(), m.group(2), text.count("\n", 0, m.start()) + 1)
            for m in _FENCE.finditer(text)]


def _commands(body):
    commands, pending = [], ""
    for line in body.splitlines():
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        command = (pending + line).strip()
        pending = ""
        if command and not command.startswith("#"):
            commands.append(command)
    assert not pending, "a command ends with a line continuation"
    return commands


BLOCKS = _blocks()
RUN = [(kind, body, line) for kind, body, line in BLOCKS if kind != "text"]


def test_every_block_is_of_a_known_kind():
    assert BLOCKS, "no fenced block found in README.md"
    for kind, _, line in BLOCKS:
        assert kind in KINDS, f"README.md line {line}: a ```{kind} block (allowed: {KINDS})"


def test_the_commands_not_run_are_still_in_the_readme():
    written = {c for kind, body, _ in BLOCKS if kind == "sh" for c in _commands(body)}
    for command, why in LONG_RUNNING.items():
        assert command in written, f"LONG_RUNNING names {command!r}, no longer in README.md"
        assert why
        for word in shlex.split(command):
            if word.endswith(".py"):
                assert os.path.exists(os.path.join(REPO, word)), word


def _environment():
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env.pop("PYTHONPATH", None)
    return env


def _scratch(tmp_path):
    for name in ("examples", "bench", "scripts"):
        os.symlink(os.path.join(REPO, name), tmp_path / name)
    return tmp_path


def _missing_interpreter(command):
    for word in shlex.split(command):
        path = os.path.expanduser(word)
        if "/bin/python" in word and not os.path.exists(path):
            return path
    return None


def _run(argv, cwd, where):
    out = subprocess.run(argv, cwd=cwd, env=_environment(), capture_output=True, text=True,
                         timeout=600, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, (f"{where}: exit {out.returncode}\n--- stdout\n{out.stdout[-3000:]}"
                                 f"\n--- stderr\n{out.stderr[-3000:]}")
    assert "Traceback (most recent call last)" not in out.stderr, f"{where}:\n{out.stderr}"


@pytest.mark.parametrize("kind, body, line", RUN, ids=[f"line{line}" for _, _, line in RUN])
def test_readme_block_runs_as_written(kind, body, line, tmp_path):
    scratch = _scratch(tmp_path)
    if kind == "python":
        program = tmp_path / "readme_example.py"
        program.write_text(body)
        _run([_python(), str(program)], scratch, f"README.md line {line} (python block)")
        return
    for command in _commands(body):
        if command in LONG_RUNNING:
            continue
        missing = _missing_interpreter(command)
        if missing:
            pytest.skip(f"README.md line {line}: {missing} is not installed here")
        cwd = REPO if command.split()[0] == "make" else scratch
        _run(["bash", "-c", command], cwd, f"README.md line {line}: {command}")


def _python():
    """`python` as the README's readers have it: the first on PATH (this environment's)."""
    return os.path.join(os.path.dirname(sys.executable), "python")


def test_the_links_of_the_readme_and_docs_lead_to_files():
    with open(README, encoding="utf-8") as fh:
        text = fh.read()
    targets = re.findall(r"\]\(([^)#\s]+)\)", text)
    assert targets
    for target in targets:
        if "://" not in target:
            assert os.path.exists(os.path.join(REPO, target)), target
    for doc in sorted(os.listdir(os.path.join(REPO, "docs"))):
        with open(os.path.join(REPO, "docs", doc), encoding="utf-8") as fh:
            for target in re.findall(r"\]\(([^)#\s]+)\)", fh.read()):
                if "://" not in target:
                    assert os.path.exists(os.path.join(REPO, "docs", target)), (doc, target)
