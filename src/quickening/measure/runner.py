"""Launch one measured run: a fresh interpreter process with one side's setup.

A *side* is an interpreter path plus the environment variables and
interpreter arguments (``-X ...``) that only this side gets.  Every run starts
from the parent's environment, adds the side's variables and nothing else, so
a variable given for B never reaches A's process.  The child reports what it
really had (see ``child/qk_measure_child.py``).
"""

from dataclasses import dataclass, field
import json
import os
from pathlib import Path
import shutil
import subprocess
import tempfile
import time

from quickening.measure import machine

CHILD = Path(__file__).with_name("child") / "qk_measure_child.py"


class MeasureError(Exception):
    """A problem the user must hear about in one line (bad path, failed run)."""
    status = 1          # the command's exit status


class RefusedInput(MeasureError):
    """What was asked for cannot run at all (a missing or unsupported interpreter, a
    malformed option value): found before anything runs, and an exit status of 2 as
    for a usage error, as `watch` and `warmup` give."""
    status = 2


@dataclass
class Side:
    label: str                       # "A" or "B" (or a configuration name)
    python: str                      # interpreter path as given
    env: dict = field(default_factory=dict)
    args: list = field(default_factory=list)
    name: str = ""                   # a human name, e.g. "3.12.1" or "PYTHON_JIT=1"
    unset: list = field(default_factory=list)   # inherited variables removed for this side

    def as_dict(self) -> dict:
        return {"label": self.label, "python": self.python, "env": dict(self.env),
                "args": list(self.args), "name": self.name, "unset": list(self.unset)}

    @classmethod
    def from_dict(cls, d) -> "Side":
        return cls(d["label"], d["python"], dict(d.get("env", {})), list(d.get("args", [])),
                   d.get("name", ""), list(d.get("unset", [])))


def isolate_env(sides) -> None:
    """A variable that some side sets is removed from the sides that do not set
    it, so a value inherited from the user's shell cannot leak into them."""
    keys = {k for s in sides for k in s.env}
    for s in sides:
        s.unset = sorted(k for k in keys if k not in s.env)


def resolve_python(path: str) -> str:
    """An executable path for `path` (absolute, relative or a name on PATH)."""
    p = os.path.expanduser(path)
    if os.sep not in p:
        found = shutil.which(p)
        if found:
            return found
    if os.path.isfile(p) and os.access(p, os.X_OK):
        return os.path.abspath(p)
    raise RefusedInput(f"interpreter not found or not executable: {path}")


def readable_python(path: str) -> str:
    """resolve_python(path), refused (MeasureError, one line) unless the lens
    can read that build: asked before anything runs on it."""
    from quickening.lens.target import refusal
    python = resolve_python(path)
    line = refusal(python)
    if line:
        raise RefusedInput(line)
    return python


def parse_env(items, option="--env") -> dict:
    env = {}
    for item in items or ():
        key, eq, value = item.partition("=")
        if not eq or not key or any(c.isspace() for c in key):
            raise RefusedInput(f"{option} wants KEY=VALUE, got {item!r}")
        env[key] = value
    return env


def child_environment(side: Side) -> dict:
    env = dict(os.environ)
    for key in side.unset:
        env.pop(key, None)
    env.update(side.env)
    return env


def run_side(side: Side, spec: dict, *, repeats: int, loops: int = 1,
             env_keys=(), timeout: float | None = None) -> dict:
    """Run the workload `spec` once in a fresh process of `side`.

    Returns a run record: the side, per-repeat times (seconds), best, output
    digests, the interpreter description from inside the process, the load
    average at start, wall-clock duration, and an error text if it failed.
    """
    spec = dict(spec, repeats=repeats, loops=loops, env_keys=sorted(set(env_keys)))
    with tempfile.TemporaryDirectory(prefix="qk-run-") as tmp:
        spec_path = Path(tmp) / "spec.json"
        out_path = Path(tmp) / "out.json"
        spec_path.write_text(json.dumps(spec))
        cmd = [side.python, *side.args, str(CHILD), str(spec_path), str(out_path)]
        started = machine.now_utc()
        load = machine.load_average()
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, env=child_environment(side), capture_output=True,
                                  text=True, timeout=timeout, stdin=subprocess.DEVNULL)
            rc, stderr = proc.returncode, proc.stderr
        except subprocess.TimeoutExpired:
            rc, stderr = None, f"timed out after {timeout} s"
        except OSError as exc:
            rc, stderr = None, f"could not start {side.python}: {exc}"
        wall = time.perf_counter() - t0
        data = None
        if out_path.exists():
            try:
                data = json.loads(out_path.read_text())
            except ValueError:
                data = None
    run = {"side": side.label, "started": started, "load_average": load,
           "wall_seconds": round(wall, 4), "returncode": rc}
    if data is None:
        tail = (stderr or "").strip().splitlines()
        run.update(times=[], best=None, digests=[], interpreter=None,
                   error=(tail[-1] if tail else f"run failed (exit status {rc})"))
        return run
    times = data.get("times") or []
    run.update(times=times, best=min(times) if times else None,
               digests=data.get("digests", []), mode=data.get("mode"),
               interpreter=data.get("interpreter"),
               jit_after=(data.get("interpreter_after") or {}).get("jit"),
               error=data.get("error"))
    if "tier2_loops" in data:
        run["tier2_loops"] = data["tier2_loops"]
        if data.get("tier2_error"):
            run["tier2_error"] = data["tier2_error"]
    if data.get("error") and data.get("traceback"):
        run["traceback"] = data["traceback"]
    return run


def run_json_child(python: str, script: str, spec: dict, *, env: dict | None = None,
                   args=(), timeout: float | None = 600) -> dict:
    """Run child `script` (in child/) with `python`, passing `spec`; return its JSON."""
    path = Path(__file__).with_name("child") / script
    with tempfile.TemporaryDirectory(prefix="qk-child-") as tmp:
        spec_path, out_path = Path(tmp) / "spec.json", Path(tmp) / "out.json"
        spec_path.write_text(json.dumps(spec))
        full_env = dict(os.environ)
        full_env.update(env or {})
        try:
            proc = subprocess.run([python, *args, str(path), str(spec_path), str(out_path)],
                                  env=full_env, capture_output=True, text=True, timeout=timeout,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise MeasureError(f"{python} {script}: timed out after {timeout} s") from None
        except OSError as exc:
            raise MeasureError(f"could not start {python}: {exc}") from None
        if proc.returncode != 0 or not out_path.exists():
            tail = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
            raise MeasureError(f"{python} {script} failed: {tail}")
        return json.loads(out_path.read_text())
