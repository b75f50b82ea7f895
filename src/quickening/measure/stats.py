"""The statistics of an interleaved A/B measurement, on plain lists of seconds.

Each value is the best of M repeats inside one fresh process ("one run").
Over N runs per side we report the range (fastest to slowest run), and claim
a difference only when the two ranges do not overlap: every run of B was
slower (or faster) than every run of A.  Touching ranges count as overlapping.
No distribution is assumed, so unequal numbers of runs and outliers need no
special care: an outlier can only widen a range, which makes the verdict
more cautious, never bolder.  The ratio reported is that of the fastest runs
(B's best over A's best), the figure least disturbed by machine noise.
"""

from dataclasses import asdict, dataclass
import math
import statistics

B_SLOWER = "B slower"
B_FASTER = "B faster"
NO_CLAIM = "no claim: ranges overlap"
NO_DATA = "no claim: not enough runs"
MIN_RUNS = 3        # a range needs a few runs before it can carry a claim


@dataclass(frozen=True)
class Spread:
    n: int
    lo: float
    hi: float
    median: float

    @property
    def width(self) -> float:
        """Relative width of the range, (hi - lo) / lo."""
        return (self.hi - self.lo) / self.lo if self.lo > 0 else math.inf


def spread(values) -> Spread | None:
    vals = [float(v) for v in values if v is not None and math.isfinite(v)]
    if not vals:
        return None
    return Spread(len(vals), min(vals), max(vals), statistics.median(vals))


@dataclass(frozen=True)
class Verdict:
    a: Spread | None
    b: Spread | None
    ratio: float | None          # fastest B run / fastest A run
    pair_ratios: tuple           # B/A within each complete pair, in pair order
    verdict: str

    def as_dict(self) -> dict:
        d = asdict(self)
        d["pair_ratios"] = list(self.pair_ratios)
        return d

    @property
    def percent(self) -> float | None:
        """B relative to A in percent: +10 means B takes 10% longer."""
        return None if self.ratio is None else (self.ratio - 1.0) * 100.0


def judge(a_values, b_values, min_runs: int = MIN_RUNS) -> Verdict:
    """Compare two lists of per-run times (seconds, lower is better).

    The lists may differ in length (a run may have failed or been cut short);
    pair ratios are formed only for the positions both sides have.  With
    fewer than `min_runs` runs on a side the ranges are reported but no
    claim is made: one run per side always "separates".
    """
    a, b = spread(a_values), spread(b_values)
    pairs = tuple(bv / av for av, bv in zip(a_values, b_values)
                  if av and bv and math.isfinite(av) and math.isfinite(bv))
    if a is None or b is None:
        return Verdict(a, b, None, pairs, NO_DATA)
    ratio = b.lo / a.lo if a.lo > 0 else None
    if min(a.n, b.n) < min_runs:
        verdict = f"no claim: fewer than {min_runs} runs per side"
    elif b.lo > a.hi:
        verdict = B_SLOWER
    elif b.hi < a.lo:
        verdict = B_FASTER
    else:
        verdict = NO_CLAIM
    return Verdict(a, b, ratio, pairs, verdict)


def interleave(n_pairs: int, sides=("A", "B")) -> list:
    """The run order: every side once per round, rounds repeated n_pairs times.

    For two sides this is A B A B ...; machine drift during the measurement
    then lands on every side alike instead of on whichever ran last.
    """
    if n_pairs < 0:
        raise ValueError("n_pairs must be >= 0")
    return [(i, side) for i in range(n_pairs) for side in sides]


def fmt_seconds(x: float | None) -> str:
    """Human time with three significant digits: 812 ns, 3.41 ms, 1.20 s."""
    if x is None or not math.isfinite(x):
        return "-"
    ax = abs(x)
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if ax >= scale or unit == "ns":
            return f"{x / scale:.3g} {unit}"
    return f"{x:g} s"


def fmt_range(s: Spread | None, scale: float = 1.0, unit: str | None = None) -> str:
    if s is None:
        return "-"
    if unit is None:
        return f"{fmt_seconds(s.lo)} – {fmt_seconds(s.hi)}"
    return f"{s.lo / scale:.3g}–{s.hi / scale:.3g} {unit}"


def describe_ratio(ratio: float | None) -> str:
    """'B 6.4% slower' / 'B 3.0% faster' for a B/A ratio."""
    if ratio is None:
        return "-"
    pct = (ratio - 1.0) * 100.0
    if abs(pct) < 0.05:
        return "same fastest time"
    return f"B {abs(pct):.1f}% {'slower' if pct > 0 else 'faster'}"
