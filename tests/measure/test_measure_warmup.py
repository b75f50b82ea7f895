"""`experiment warmup`: per operation, the execution at which its site changes form,
read by `quickening warmup`'s tracer and cross-checked by the experiment's probe."""

import json

import pytest

from quickening.measure import cli_experiment, snippets

from measure_helpers import build_params, build_path

# fact sheets: cpython-specializer.md §2.2, §2.3; cpython-3.14-3.15.md (counters)
EXPECTED_FIRST_CHANGE = {"3.11": 8, "3.12": 2, "3.13": 2, "3.14": 2, "3.15": 2}


@pytest.mark.parametrize("build", build_params(["3.11", "3.12", "3.13", "debian-3.13",
                                                "3.14", "3.15"]))
def test_warmup_first_change(build, records_dir, cli):
    python = build_path(build)
    version = build.replace("debian-", "")
    status, out, err = cli(cli_experiment, ["warmup", "--python", python, "--no-chart", "-q"])
    assert status == 0, err
    (path,) = records_dir.glob("*-warmup-*.json")
    (interp,) = json.loads(path.read_text())["interpreters"]
    assert interp["lens_error"] is None
    if interp["machinery"].startswith("quickening warmup"):
        assert interp["probe_disagrees"] == []
        assert "agrees on every site" in out
    for site in interp["sites"]:
        if site["key"] not in snippets.SEED_KEYS:
            continue     # the newer operations: checked by the probe's agreement above
        first, before, after = site["changes"][0]
        assert first == EXPECTED_FIRST_CHANGE[version], site["key"]
        assert before == site["history"][0][1] and after != before
    assert len(interp["sites"]) == len(snippets.SNIPPETS)


def test_probe_only(records_dir, cli):
    status, out, err = cli(cli_experiment, ["warmup", "--probe-only", "--executions", "3",
                                            "--no-chart", "-q"])
    assert status == 0, err
    assert "via probe" in out and "0x0340 (value 52, backoff 0)" in out
