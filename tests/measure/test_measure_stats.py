"""The statistics of an interleaved A/B measurement, on synthetic timings."""

from hypothesis import given, strategies as st
import pytest

from quickening.measure import stats


def test_separated_ranges_b_slower():
    v = stats.judge([1.00, 1.02, 1.01], [1.10, 1.12, 1.11])
    assert v.verdict == stats.B_SLOWER == "B slower"
    assert v.ratio == pytest.approx(1.10 / 1.00)
    assert v.a.lo == 1.00 and v.a.hi == 1.02 and v.b.n == 3


def test_separated_ranges_b_faster():
    v = stats.judge([2.0, 2.1, 2.05], [1.5, 1.6, 1.55])
    assert v.verdict == "B faster"
    assert v.ratio == pytest.approx(0.75)
    assert stats.describe_ratio(v.ratio) == "B 25.0% faster"


def test_overlapping_ranges_make_no_claim():
    v = stats.judge([1.0, 1.2, 1.1], [1.15, 1.3, 1.25])
    assert v.verdict == "no claim: ranges overlap"
    # the fastest-run ratio is still reported, the claim is not
    assert v.ratio == pytest.approx(1.15)


def test_touching_ranges_count_as_overlap():
    assert stats.judge([1.0, 2.0, 1.5], [2.0, 3.0, 2.5]).verdict == stats.NO_CLAIM
    assert stats.judge([2.0, 3.0, 2.5], [1.0, 2.0, 1.5]).verdict == stats.NO_CLAIM


def test_unequal_sizes():
    v = stats.judge([1.0, 1.01, 1.02, 1.0, 1.03], [1.2, 1.21, 1.22])
    assert v.a.n == 5 and v.b.n == 3
    assert v.verdict == "B slower"
    # pair ratios only where both sides have a run at that position
    assert len(v.pair_ratios) == 3
    assert v.pair_ratios[0] == pytest.approx(1.2)


def test_too_few_runs_make_no_claim():
    v = stats.judge([1.0, 1.0], [2.0, 2.0])
    assert v.verdict == "no claim: fewer than 3 runs per side"
    assert v.ratio == pytest.approx(2.0)
    assert stats.judge([1.0], [2.0], min_runs=1).verdict == "B slower"


def test_one_sided_data_makes_no_claim():
    assert stats.judge([1.0], []).verdict == stats.NO_DATA
    assert stats.judge([], []).ratio is None


def test_outlier_widens_range_and_withholds_claim():
    a = [1.00, 1.01, 1.02, 1.01]
    b = [1.10, 1.11, 1.09, 1.10]
    assert stats.judge(a, b).verdict == "B slower"
    # one disturbed run of A (the machine was busy) reaches into B's range
    v = stats.judge(a + [1.5], b)
    assert v.verdict == "no claim: ranges overlap"
    # the fastest runs, and so the ratio, are untouched by a slow outlier
    assert v.ratio == pytest.approx(stats.judge(a, b).ratio)
    assert v.a.median == pytest.approx(1.01)


def test_nonfinite_values_are_ignored():
    v = stats.judge([1.0, float("nan"), None], [2.0, float("inf")], min_runs=1)
    assert v.a.n == 1 and v.b.n == 1 and v.verdict == "B slower"


def test_interleave_order_is_a_b_a_b():
    assert stats.interleave(3) == [(0, "A"), (0, "B"), (1, "A"), (1, "B"), (2, "A"), (2, "B")]
    assert [s for _, s in stats.interleave(2, ("x", "y", "z"))] == ["x", "y", "z"] * 2
    with pytest.raises(ValueError):
        stats.interleave(-1)


def test_formatting():
    assert stats.fmt_seconds(0.00341) == "3.41 ms"
    assert stats.fmt_seconds(8.2e-9) == "8.2 ns"
    assert stats.fmt_seconds(1.2) == "1.2 s"
    assert stats.describe_ratio(1.064) == "B 6.4% slower"


times = st.lists(st.floats(min_value=1e-6, max_value=10.0), min_size=3, max_size=15)


@given(times, times)
def test_swapping_sides_swaps_the_verdict(a, b):
    forward, backward = stats.judge(a, b).verdict, stats.judge(b, a).verdict
    mirror = {"B slower": "B faster", "B faster": "B slower", stats.NO_CLAIM: stats.NO_CLAIM}
    assert backward == mirror[forward]


@given(times, times, st.floats(min_value=0.01, max_value=100.0))
def test_verdict_does_not_depend_on_the_unit(a, b, scale):
    v1 = stats.judge(a, b)
    v2 = stats.judge([x * scale for x in a], [x * scale for x in b])
    if v1.verdict != v2.verdict:
        # only rounding at a touching boundary may flip it
        assert min(abs(v1.b.lo - v1.a.hi), abs(v1.b.hi - v1.a.lo)) <= 1e-9 * max(a + b)
    else:
        assert v1.ratio == pytest.approx(v2.ratio)


@given(times, times)
def test_a_claim_means_every_run_is_on_one_side(a, b):
    v = stats.judge(a, b)
    if v.verdict == "B slower":
        assert all(x > y for x in b for y in a)
    elif v.verdict == "B faster":
        assert all(x < y for x in b for y in a)
    else:
        assert not (all(x > y for x in b for y in a) or all(x < y for x in b for y in a))
