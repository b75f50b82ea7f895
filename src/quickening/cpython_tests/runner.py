"""Run Lib/test modules natively and interpreted, compare per test id, report.

Each module runs twice, each time in a fresh process of the same Python
(`worker.py`): once natively, once with its code interpreted.  A test's
outcome is one of pass, skip, xfail, uxpass, fail, error (subtest failures
count for their test); the interpreted run must give every test id the
outcome the native run gave it.
"""

import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

from quickening import termtable

WORKER = "quickening.cpython_tests.worker"


@dataclass
class Run:
    """What one worker process reported (or how it died)."""
    mode: str
    record: dict = None
    crashed: str = None          # why there is no record (exit status, timeout ...)
    wall: float = 0.0

    @property
    def outcomes(self):
        return self.record["outcomes"] if self.record else {}

    @property
    def seconds(self):
        return self.record["seconds"] if self.record else None

    def counts_text(self):
        if not self.record:
            return "CRASH"
        c = self.record["counts"]
        return f"{c['run']}/{c['failures']}/{c['errors']}/{c['skipped']}"


@dataclass
class ModuleResult:
    name: str
    native: Run
    interpreted: Run
    mismatches: list = field(default_factory=list)   # (test id, native, interpreted, detail)

    @property
    def ok(self):
        return (self.native.record is not None and self.interpreted.record is not None
                and not self.mismatches)

    @property
    def ratio(self):
        n, i = self.native.seconds, self.interpreted.seconds
        if n is None or i is None:
            return None
        return i / max(n, 1e-6)

    @property
    def escapes(self):
        rec = self.interpreted.record
        return rec.get("escapes") if rec else None

    def to_json(self):
        return {
            "name": self.name, "ok": self.ok, "ratio": self.ratio, "escapes": self.escapes,
            "native": self.native.record or {"crashed": self.native.crashed},
            "interpreted": self.interpreted.record or {"crashed": self.interpreted.crashed},
            "mismatches": [{"test": t, "native": n, "interpreted": i, "detail": d}
                           for t, n, i, d in self.mismatches],
        }


def run_worker(mode, name, timeout, interpret_support=False, interpret=()):
    """Run one worker process in a scratch directory; return its Run.

    `interpret`: module name patterns also interpreted when imported (see worker.py)."""
    with tempfile.TemporaryDirectory(prefix=f"qk-{name}-") as scratch:
        out = os.path.join(scratch, "record.json")
        cwd = os.path.join(scratch, "cwd")
        os.mkdir(cwd)
        cmd = [sys.executable, "-X", "faulthandler", "-m", WORKER, mode, name, out]
        if interpret_support:
            cmd.append("--interpret-support")
        if mode == "interpreted":
            for pattern in interpret:
                cmd += ["--interpret", pattern]
        env = dict(os.environ)
        env["PYTHONHASHSEED"] = env.get("PYTHONHASHSEED", "0")
        start = time.perf_counter()
        try:
            proc = subprocess.run(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            tail = (exc.stdout or b"").decode("utf-8", "replace")[-2000:]
            return Run(mode, crashed=f"timed out after {timeout}s\n{tail}",
                       wall=time.perf_counter() - start)
        wall = time.perf_counter() - start
        if proc.returncode != 0 or not os.path.exists(out):
            tail = proc.stdout.decode("utf-8", "replace")[-3000:]
            return Run(mode, crashed=f"exit status {proc.returncode}\n{tail}", wall=wall)
        with open(out) as fh:
            return Run(mode, record=json.load(fh), wall=wall)


def compare(name, native, interpreted):
    result = ModuleResult(name, native, interpreted)
    if native.record is None or interpreted.record is None:
        return result
    n_out, i_out = native.outcomes, interpreted.outcomes
    details = interpreted.record.get("details", {})
    for tid in sorted(set(n_out) | set(i_out)):
        n, i = n_out.get(tid, "missing"), i_out.get(tid, "missing")
        if n != i:
            result.mismatches.append((tid, n, i, details.get(tid, "")))
    return result


def run_module(name, timeout, interpret_support=False, interpret=()):
    native = run_worker("native", name, timeout)
    interpreted = run_worker("interpreted", name, timeout, interpret_support, interpret)
    return compare(name, native, interpreted)


def run_all(names, jobs=1, timeout=900, interpret_support=False, on_done=None, interpret=()):
    """Run every module (up to `jobs` at a time); return ModuleResults in name order."""
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(run_module, name, timeout, interpret_support, interpret): name
                   for name in names}
        for future in concurrent.futures.as_completed(futures):
            res = future.result()
            results[futures[future]] = res
            if on_done is not None:
                on_done(res)
    return [results[name] for name in names]


HEADER = ("module", "native r/f/e/s", "interp r/f/e/s", "escapes", "native s", "interp s",
          "ratio", "status")
# too narrow for the table ($COLUMNS, else the terminal): the seconds go first
# (the ratio stays), then the escapes
DROP_ORDER = ("native s", "interp s", "escapes")


def format_table(results):
    rows = []
    for r in results:
        ratio = f"{r.ratio:.1f}x" if r.ratio is not None else "-"
        esc = str(r.escapes) if r.escapes is not None else "-"
        ns = f"{r.native.seconds:.2f}" if r.native.seconds is not None else "-"
        is_ = f"{r.interpreted.seconds:.2f}" if r.interpreted.seconds is not None else "-"
        if r.ok:
            status = "ok"
        elif r.native.record is None or r.interpreted.record is None:
            status = "CRASH"
        else:
            status = f"MISMATCH ({len(r.mismatches)})"
        rows.append((r.name, r.native.counts_text(), r.interpreted.counts_text(), esc, ns, is_,
                     ratio, status))
    out = sys.stdout
    lines = termtable.render(list(HEADER), rows, width=termtable.width_for(out),
                             drop_order=DROP_ORDER, right=HEADER[1:-1],
                             floors={name: None for name in HEADER},
                             colour=termtable.colour_for(out))
    total_tests = sum(len(r.native.outcomes) for r in results)
    bad = sum(len(r.mismatches) for r in results)
    ok = sum(r.ok for r in results)
    lines.append(f"{ok}/{len(results)} modules match; {total_tests} test ids, {bad} mismatched")
    return "\n".join(lines)


def format_problems(results, detail_lines=8):
    out = []
    for r in results:
        if r.ok:
            continue
        for run in (r.native, r.interpreted):
            if run.record is None:
                out.append(f"--- {r.name} ({run.mode}) crashed: {run.crashed.strip()[-1500:]}")
        for tid, n, i, detail in r.mismatches:
            out.append(f"--- {tid}: native {n}, interpreted {i}")
            if detail:
                out.extend("    " + line for line in detail.splitlines()[-detail_lines:])
    return "\n".join(out)
