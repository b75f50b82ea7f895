"""bench/real_suites.py's machinery, offline: a tiny local library with a test
suite of its own goes through the same steps as the PyPI libraries (collect,
deselect, sample, run natively and interpreted, compare per test), with this
environment's pytest standing in for the suites venv."""

import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "bench", "real_suites.py")


def _load_script():
    spec = importlib.util.spec_from_file_location("real_suites", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


real_suites = _load_script()

LIBRARY_SOURCE = '''\
"""A tiny library: a generator, a class with a property, an exception path."""


def running_totals(values):
    total = 0
    for value in values:
        total += value
        yield total


class Interval:
    def __init__(self, low, high):
        if low > high:
            raise ValueError(f"empty interval {low}..{high}")
        self.low, self.high = low, high

    @property
    def width(self):
        return self.high - self.low

    def __contains__(self, x):
        return self.low <= x <= self.high
'''

TESTS_SOURCE = '''\
import pytest

import tinylib


def test_running_totals():
    assert list(tinylib.running_totals([1, 2, 3])) == [1, 3, 6]


@pytest.mark.parametrize("low, high, width", [(0, 1, 1), (2, 5, 3), (-1, 1, 2)])
def test_width(low, high, width):
    assert tinylib.Interval(low, high).width == width


def test_empty_interval_raises():
    with pytest.raises(ValueError, match="empty interval"):
        tinylib.Interval(3, 1)


def test_contains():
    assert 2 in tinylib.Interval(1, 3)


def test_fails_in_both_runs():
    assert tinylib.Interval(0, 2).width == 3


@pytest.mark.skip(reason="skipped in both runs")
def test_skipped():
    pass


@pytest.mark.xfail(reason="expected to fail in both runs", strict=True)
def test_expected_failure():
    assert 5 not in tinylib.Interval(0, 9)


def test_deselected_by_the_library_data():
    raise AssertionError("a deselected test must not run")
'''


@pytest.fixture
def tiny_library(tmp_path):
    source = tmp_path / "tinylib-1.0"
    (source / "tinylib").mkdir(parents=True)
    (source / "tinylib" / "__init__.py").write_text(LIBRARY_SOURCE)
    (source / "tests").mkdir()
    (source / "tests" / "__init__.py").write_text("")
    (source / "tests" / "test_tiny.py").write_text(TESTS_SOURCE)
    library = real_suites.Library(
        "tinylib", "1.0", ["tinylib"], "a test of the script", ["tests"],
        deselect={"tests/test_tiny.py::test_deselected_by_the_library_data": "shows deselection works"},
        max_tests=None, source_dir=str(source))
    return library, tmp_path


def _run(tmp_path, library, *argv):
    out_json = tmp_path / "out.json"
    status = real_suites.main(["--cache", str(tmp_path / "cache"), "--json", str(out_json), *argv],
                              libraries={"tinylib": library}, python=sys.executable)
    return status, json.loads(out_json.read_text())["libraries"][0]


def test_a_local_suite_runs_natively_and_interpreted_with_the_same_outcomes(tiny_library):
    library, tmp_path = tiny_library
    status, result = _run(tmp_path, library)
    assert status == 0, result
    assert result["collected"] == 10
    assert result["deselected"] == {"shows deselection works": 1}
    assert result["tests"] == result["same"] == 9
    assert result["differing"] == []
    # the natively failing test fails in the interpreted run too (so it is "same")
    assert result["native_failing"] == ["tests.test_tiny::test_fails_in_both_runs"]
    # the library really ran in the interpreter: its file has executed sites
    stats = result["interpreted"]["stats"]
    assert stats["instructions"] > 0
    assert any(path.endswith(os.path.join("tinylib", "__init__.py")) for path in stats["files"])
    assert isinstance(stats["escapes"], int)
    assert result["native"]["seconds"] is not None and result["interpreted"]["seconds"] is not None


def test_comparison_names_every_differing_test():
    native = {"a": "passed", "b": "failed", "c": "passed", "d": "skipped"}
    interpreted = {"a": "passed", "b": "failed", "c": "error", "e": "passed"}
    result = real_suites.compare(native, interpreted)
    assert result["tests"] == 5 and result["same"] == 2
    assert result["differing"] == [
        {"test": "c", "native": "passed", "interpreted": "error"},
        {"test": "d", "native": "skipped", "interpreted": "not run"},
        {"test": "e", "native": "not run", "interpreted": "passed"},
    ]


def test_sampling_spreads_over_the_suite_and_deselection_matches_prefixes():
    ids = [f"t{i}" for i in range(10)]
    assert real_suites.choose(ids, 5) == ["t0", "t2", "t4", "t6", "t8"]
    assert real_suites.choose(ids, None) == ids
    deselect = {"tests/test_a.py": "whole file", "tests/test_b.py::TestX": "a class"}
    assert real_suites.deselected("tests/test_a.py::test_1[x]", deselect) == "whole file"
    assert real_suites.deselected("tests/test_b.py::TestX::test_2", deselect) == "a class"
    assert real_suites.deselected("tests/test_b.py::TestXY::test_2", deselect) is None
    by_name = {"::test_slow": "slow everywhere"}
    assert real_suites.deselected("tests/test_c.py::TestY::test_slow", by_name) == "slow everywhere"
    assert real_suites.deselected("tests/test_c.py::test_slow[1-2]", by_name) == "slow everywhere"
    assert real_suites.deselected("tests/test_c.py::test_slower", by_name) is None


def test_every_library_is_pinned_and_says_why_it_deselects():
    pinned = {line.split("==")[0].lower() for line in real_suites.REQUIREMENTS}
    assert len(real_suites.LIBRARIES) >= 8
    for name, lib in real_suites.LIBRARIES.items():
        assert lib.dist.lower() in pinned, name
        assert f"{lib.dist.lower()}=={lib.version}" in {r.lower() for r in real_suites.REQUIREMENTS}
        assert lib.interpret and lib.tests and lib.exercises
        assert all(reason.strip() for reason in lib.deselect.values()), name


def test_an_unknown_library_is_one_error_line():
    out = subprocess.run([sys.executable, SCRIPT, "--only", "no-such-library"],
                         capture_output=True, text=True)
    assert out.returncode == 2
    assert "unknown library 'no-such-library'" in out.stderr
    assert "Traceback" not in out.stderr
