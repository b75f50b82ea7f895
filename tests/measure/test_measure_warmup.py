"""`experiment warmup`: per operation, the execution at which its site changes form,
read by `quickening warmup`'s tracer and cross-checked by the experiment's probe."""

import json

import pytest

from quickening.measure import cli_experiment

from measure_helpers import installed_python

EXPECTED_FIRST_CHANGE = {"3.11": 8, "3.12": 2, "3.13": 2}   # fact sheet §2.2, §2.3


@pytest.mark.parametrize("version", ["3.11", "3.12", "3.13"])
def test_warmup_first_change(version, records_dir, cli):
    python = installed_python(version)
    if python is None:
        pytest.skip(f"CPython {version} is not installed")
    status, out, err = cli(cli_experiment, ["warmup", "--python", python, "--no-chart", "-q"])
    assert status == 0, err
    (path,) = records_dir.glob("*-warmup-*.json")
    (interp,) = json.loads(path.read_text())["interpreters"]
    assert interp["lens_error"] is None
    if interp["machinery"].startswith("quickening warmup"):
        assert interp["probe_disagrees"] == []
        assert "agrees on every site" in out
    for site in interp["sites"]:
        first, before, after = site["changes"][0]
        assert first == EXPECTED_FIRST_CHANGE[version], site["key"]
        assert before == site["history"][0][1] and after != before
    assert len(interp["sites"]) == 11


def test_probe_only(records_dir, cli):
    status, out, err = cli(cli_experiment, ["warmup", "--probe-only", "--executions", "3",
                                            "--no-chart", "-q"])
    assert status == 0, err
    assert "via probe" in out and "0x0340 (value 52, backoff 0)" in out
