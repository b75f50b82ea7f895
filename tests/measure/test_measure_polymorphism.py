"""`experiment polymorphism` arithmetic on synthetic runs, and its run order."""

import pytest

from quickening.measure.engine import Config, Group, run_interleaved
from quickening.measure.experiments import polymorphism
from quickening.measure.runner import Side

from measure_helpers import HOST


class Opts:
    objects, passes, max_classes, variant = 10, 2, 3, []


def test_groups_configs_and_order():
    groups = polymorphism.build_groups([HOST], Opts)
    assert [g.name.split("|")[1] for g in groups] == ["loop", "call"]
    assert [c.label for c in groups[0].configs] == ["baseline", "k=1", "k=2", "k=3"]
    assert all(c.per == 20 for c in groups[0].configs)
    order = []

    def fake(side, spec, **kw):
        order.append(spec["setup"])
        return {"side": "-", "times": [1.0], "best": 1.0, "digests": ["x"], "error": None}

    run_interleaved(groups, rounds=2, repeats=1, run=fake, check_outputs=False)
    # every configuration once per round, rounds repeated
    assert len(order) == 16 and order[:8] == order[8:]
    assert order[0] == "_run = make(0, 'loop', 10, 2)"
    assert order[5] == "_run = make(1, 'call', 10, 2)"


def test_summary_ratios_and_load_alone():
    g = Group(f"{HOST}|loop", [Config(lab, Side("-", HOST), {}, per=1.0)
                               for lab in ("baseline", "k=1", "k=2")])
    times = {"baseline": [6.0, 6.5, 7.0], "k=1": [9.0, 9.2, 9.1], "k=2": [18.0, 19.0, 18.5]}
    for rnd in range(3):
        for lab, vals in times.items():
            g.runs.append({"config": lab, "round": rnd, "best": vals[rnd] * 1e-9})
    s = polymorphism.summarize_group(g)
    rows = {r["config"]: r for r in s["rows"]}
    assert rows["k=2"]["ratio"] == pytest.approx(2.0)
    assert rows["k=2"]["verdict"] == "B slower"
    assert rows["k=2"]["pair_ratios"] == pytest.approx([2.0, 19.0 / 9.2, 18.5 / 9.1])
    # the load alone: (18 - 6) / (9 - 6)
    assert rows["k=2"]["load_ratio"] == pytest.approx(4.0)
    assert rows["k=1"]["verdict"] == ""
