"""Interleaved runs of several configurations, shared by compare and experiments.

A *group* is one question (one workload for `compare`, one variant for an
experiment) with two or more *configurations*.  Rounds go over every group
and, inside it, every configuration once, in a fixed order: A B, A B, ...
Each run is a fresh process timing the workload `repeats` times; its best
repeat is the run's value.  All configurations of a group must produce the
same output (compared after the first round); if they do not, the group
stops and none of its times count.
"""

from dataclasses import dataclass, field

from quickening.measure import stats
from quickening.measure.runner import Side, run_side


@dataclass
class Config:
    label: str          # "A", "B", "k=3", ...
    side: Side
    spec: dict
    loops: int = 1
    per: float = 1.0    # divide times by this (e.g. accesses per call) for reporting


@dataclass
class Group:
    name: str
    configs: list
    status: str = "ok"   # "ok", "outputs differ", "failed: ..."
    runs: list = field(default_factory=list)

    def bests(self, label):
        return [r["best"] / self.config(label).per for r in self.runs
                if r["config"] == label and r.get("best") is not None and not r.get("error")]

    def config(self, label):
        for c in self.configs:
            if c.label == label:
                return c
        raise KeyError(label)


def schedule(groups, rounds):
    """The exact run order: [(round, group index, config label), ...]."""
    return [(r, gi, c.label) for r in range(rounds)
            for gi, g in enumerate(groups) for c in g.configs]


def _compact_interpreter(info):
    if not info:
        return None
    return {k: info.get(k) for k in ("executable", "version", "jit", "gil_enabled",
                                     "xoptions", "env", "pid")}


def run_interleaved(groups, *, rounds, repeats, env_keys=(), timeout=None, progress=None,
                    check_outputs=True, run=run_side):
    """Run every group's configurations interleaved; fill each group's runs.

    Returns {config key: full interpreter description} for the record, keyed
    "group/label".  `run` is injectable for tests.  Ctrl-C stops the
    measurement between runs: what was measured so far is kept, and the
    returned dict has the key "__interrupted__".
    """
    interpreters = {}
    try:
        _run_all(groups, rounds, repeats, env_keys, timeout, progress, check_outputs, run,
                 interpreters)
    except KeyboardInterrupt:
        interpreters["__interrupted__"] = True
    return interpreters


def _run_all(groups, rounds, repeats, env_keys, timeout, progress, check_outputs, run,
             interpreters):
    digests = {}
    for rnd, gi, label in schedule(groups, rounds):
        group = groups[gi]
        if group.status != "ok":
            continue
        cfg = group.config(label)
        what = f"round {rnd + 1}/{rounds} · {group.name} · {label}"
        if progress:
            progress.starting(what)
        result = run(cfg.side, cfg.spec, repeats=repeats, loops=cfg.loops,
                     env_keys=env_keys, timeout=timeout)
        result = dict(result, group=group.name, config=label, round=rnd)
        info = result.pop("interpreter", None)
        if info:
            interpreters.setdefault(f"{group.name}/{label}", info)
        result["interpreter"] = _compact_interpreter(info)
        group.runs.append(result)
        if result.get("error"):
            group.status = f"failed: {label}: {result['error']}"
            if progress:
                progress.finished(what, f"FAILED: {result['error']}")
            continue
        if progress:
            progress.finished(what, stats.fmt_seconds(result["best"] / cfg.per))
        if check_outputs:
            seen = digests.setdefault(group.name, {})
            seen.setdefault(label, result.get("digests"))
            if len(set(map(tuple, (d or () for d in seen.values())))) > 1:
                group.status = "outputs differ"
