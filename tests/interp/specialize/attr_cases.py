"""Shared helpers for the attribute families' differential tests."""

from tests.interp.specialize import harness

# the harness's child, also printing the case's RESULTS list (what the program computed)
CHILD = harness.CHILD.replace("print(json.dumps(trace))",
                              "print(json.dumps([trace, namespace.get('RESULTS')]))")


def trace(source, mode):
    """(site trace, RESULTS) of a case run natively or interpreted in a fresh process."""
    return harness.trace(source, mode, CHILD)

RECORD_AT = (0, 1, 2, 3, 4, 5, 11, 12, 26, 27, 57, 58, 69)


def _only(trace_, prefixes):
    return [{name: [s for s in sites if s[1].startswith(prefixes)] for name, sites in capture.items()}
            for capture in trace_]


def assert_same_family(source, prefixes):
    """Native and interpreted traces agree on every site of the given families
    (LOAD_ATTR does not prefix LOAD_SUPER_ATTR)."""
    native, native_results = trace(source, "native")
    interpreted, interpreted_results = trace(source, "interpreted")
    assert interpreted_results == native_results, (native_results, interpreted_results)
    native = _only(native, prefixes)
    interpreted = _only(interpreted, prefixes)
    assert len(native) == len(interpreted)
    for step, (n, i) in enumerate(zip(native, interpreted)):
        assert i == n, f"capture {step} differs:\nnative      {n}\ninterpreted {i}"
    return native


def site_case(setup, expr, arg, n=70, record_at=RECORD_AT, check=None):
    """Source running `site(arg)` (returning expr) n times, recording at record_at;
    with `check`, every result must equal it (natively and interpreted)."""
    check_line = f"        assert r == {check}, (i, r)\n" if check is not None else ""
    return f"""
{setup}
def site(o):
    return {expr}
WATCH = ["site"]
def drive(record):
    for i in range({n}):
        try:
            r = site({arg})
        except AttributeError:
            r = 'AttributeError'
{check_line}        if i in {tuple(record_at)!r}:
            record()
"""


def forms(trace_, name="site"):
    """The forms of a watched function's sites in the last capture."""
    return [s[1] for s in trace_[-1][name]]
