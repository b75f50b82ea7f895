"""Records: written, found, listed, shown, re-rendered, compared; charts drawn."""

import json
import os

import pytest

from quickening.measure import (charts, cli_experiment, cli_records, compare, machine,
                                records)
from quickening.measure.runner import MeasureError, Side

from measure_helpers import HOST, FakeRunner


def fake_compare_record(ratio_b=1.2):
    rec = records.new_record("compare", "compare", ["quickening", "compare", "w"],
                             {"repeats": 2, "pairs": 3, "loops": 1, "workloads": ["w"]},
                             machine.describe_machine())
    rec["machine_end"] = {"load_average": [0, 0, 0], "date": rec["created"]}
    return compare.run(rec, [Side("A", HOST), Side("B", HOST)], [("w", {"path": "w"})],
                       repeats=2, pairs=3, runner=FakeRunner(times={"A": 1.0, "B": ratio_b}))


def test_round_trip_and_lookup(tmp_path):
    rec = fake_compare_record()
    path = records.save(rec, tmp_path)
    assert path.name == rec["id"] + ".json"
    loaded = records.load_path(path)
    assert loaded == json.loads(json.dumps(rec))
    assert records.find(rec["id"], tmp_path)[1]["id"] == rec["id"]
    assert records.find(rec["id"][:20], tmp_path)[1]["id"] == rec["id"]
    assert records.find("latest", tmp_path)[1]["id"] == rec["id"]
    assert records.find("latest-compare", tmp_path)[1]["id"] == rec["id"]
    assert records.find(str(path), tmp_path)[1]["id"] == rec["id"]
    with pytest.raises(MeasureError):
        records.find("latest-polymorphism", tmp_path)
    with pytest.raises(MeasureError):
        records.find("nothing-like-this", tmp_path)
    # a record keeps every raw timing and the summary with its spread
    assert len(loaded["runs"]) == 6 and all(r["times"] for r in loaded["runs"])
    (w,) = loaded["summary"]["workloads"]
    assert w["a"]["lo"] <= w["a"]["hi"] and w["verdict"] == "B slower"


def test_records_dir_option_env_default(monkeypatch, tmp_path):
    monkeypatch.delenv("QUICKENING_RECORDS", raising=False)
    assert str(records.records_dir()) == "quickening-records"
    monkeypatch.setenv("QUICKENING_RECORDS", str(tmp_path / "e"))
    assert records.records_dir() == tmp_path / "e"
    assert str(records.records_dir("x")) == "x"


def test_not_a_record(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"hello": 1}')
    with pytest.raises(MeasureError):
        records.load_path(bad)
    assert records.list_records(tmp_path) == []


def test_records_cli(records_dir, cli):
    r1 = fake_compare_record(1.2)
    r2 = fake_compare_record(1.1)
    r2["id"] = r1["id"] + "x"
    records.save(r1, records_dir)
    records.save(r2, records_dir)
    status, out, _ = cli(cli_records, [])
    assert status == 0 and r1["id"] in out and "B slower" in out
    status, out, _ = cli(cli_records, ["show", r1["id"] + "x"])
    assert status == 0 and "machine:" in out and "B slower" in out
    status, out, _ = cli(cli_records, ["compare", r1["id"], r2["id"]])
    assert status == 0 and "w: fastest B/A" in out and "%" in out
    status, out, _ = cli(cli_records, ["render", r1["id"]])
    assert status == 0
    png = records_dir / (r1["id"] + ".png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (records_dir / (r1["id"] + ".svg")).read_text().lstrip().startswith("<?xml")
    status, _, err = cli(cli_records, ["show", "zzz"])
    assert status == 1 and err.count("\n") == 1 and "no record" in err


def test_records_compare_refuses_different_experiments(records_dir, cli):
    r1 = fake_compare_record()
    r2 = dict(fake_compare_record(), id="other", name="polymorphism", kind="experiment")
    records.save(r1, records_dir)
    records.save(r2, records_dir)
    status, _, err = cli(cli_records, ["compare", r1["id"], "other"])
    assert status == 1 and "same experiment" in err


def test_compare_chart_files(tmp_path):
    paths = charts.draw(fake_compare_record(), tmp_path / "sub" / "chart")
    assert [p.suffix for p in paths] == [".png", ".svg"]
    assert all(p.stat().st_size > 1000 for p in paths)


def test_experiment_records_and_charts(records_dir, cli):
    """Tiny real runs of the three experiments that need no JIT; each leaves a
    record that `records render` draws.  (A run draws its chart by default: the
    first checks that; the others leave it to `records render`, which draws each
    experiment's figure through the same cliutil.chart_files, so that each chart
    is drawn once: matplotlib's PNG and SVG are most of this test's time.)"""
    runs = [["warmup", "--executions", "3"],
            ["specialize", "--calls", "20", "--no-chart"],
            ["polymorphism", "-N", "1", "-M", "1", "--objects", "40", "--passes", "2",
             "--max-classes", "2", "--no-chart"]]
    for argv in runs:
        status, out, err = cli(cli_experiment, argv + ["-q"])
        assert status == 0, err
        assert "record:" in out
        assert ("chart:" in out) is ("--no-chart" not in argv)
    names = sorted(rec["name"] for _, rec in records.list_records(records_dir))
    assert names == ["polymorphism", "specialize", "warmup"]
    for _, rec in records.list_records(records_dir):
        if rec["name"] == "warmup":
            assert [c[-4:] for c in rec["charts"]] == [".png", ".svg"]
            assert all(os.path.getsize(c) > 1000 for c in rec["charts"])
        status, out, err = cli(cli_records, ["render", rec["id"], "--chart",
                                             str(records_dir / ("again-" + rec["name"]))])
        assert status == 0, err
        assert (records_dir / f"again-{rec['name']}.png").stat().st_size > 1000
    # two records of one experiment compare figure by figure
    status, out, err = cli(cli_experiment, runs[0] + ["-q", "--no-chart"])
    assert status == 0, err
    status, out, err = cli(cli_records, ["compare", "latest-warmup",
                                         next(r["id"] for _, r in records.list_records(records_dir)
                                              if r["name"] == "warmup")])
    assert status == 0 and "int add" in out
