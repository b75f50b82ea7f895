"""The per-site harness fails for the right reasons: a case that did not run in
the interpreter, and a cache cell that differs while form and counter agree."""

import pytest

from tests.interp.specialize import harness

CASE = """
class C:
    k = 5
    def __init__(self):
        self.a = 1
        self.b = 2
    def m(self):
        return self.b
def callee(x):
    return x
def site(o):
    return o.a + o.m() + len("ab") + callee(1) + C.k
WATCH = ["site"]
def drive(record):
    o = C()
    for i in range(40):
        site(o)
    record()
"""

# the kinds of cache field (sitestate._READS) this case's specialized sites read
EXPECTED_FORMS = {"LOAD_ATTR_INSTANCE_VALUE", "LOAD_ATTR_METHOD_WITH_VALUES", "LOAD_ATTR_CLASS",
                  "LOAD_GLOBAL_BUILTIN", "LOAD_GLOBAL_MODULE", "CALL_PY_EXACT_ARGS"}


def test_cells_are_compared_resolved():
    native = harness.assert_same_sites(CASE)
    sites = {s[1]: s[4] for s in native[-1]["site"]}
    assert EXPECTED_FORMS <= set(sites), sorted(sites)
    for form in EXPECTED_FORMS:
        cells = sites[form]
        assert cells, form
        # every field resolved to what it stands for (an unresolved one, "?", would
        # compare equal on both sides whatever the interpreter wrote)
        assert all(v not in ("?", "stale", 0) for k, v in cells.items() if k != "index"), (form, cells)


def test_a_case_run_natively_fails():
    child = harness.CHILD.replace("    api.run_code(code, namespace)\n", "    exec(code, namespace)\n")
    assert child != harness.CHILD
    with pytest.raises(AssertionError, match="was not run by the interpreter"):
        harness.trace(CASE, "interpreted", child)


def test_a_wrong_cache_cell_is_seen():
    """One cell changed in the interpreted stream (the instance attribute's index),
    form and counter untouched: the traces differ."""
    corrupt = '''
def _corrupt():
    info = sitestate.info_of(namespace["site"])
    for s in sitestate._decode.decode(sitestate.tables(), info.code.co_code, info.quickened.tobytes()):
        if s.opname == "LOAD_ATTR_INSTANCE_VALUE":
            info.quickened[s.offset // 2 + 4] += 1      # counter, version (2), index
def record():
    if mode != "native":
        _corrupt()
'''
    child = harness.CHILD.replace("def record():\n", corrupt)
    assert child != harness.CHILD
    native = harness.trace(CASE, "native")
    interpreted = harness._run(CASE, "interpreted", child)
    assert [[s[:4] for s in c["site"]] for c in interpreted] == [[s[:4] for s in c["site"]]
                                                               for c in native]
    assert interpreted != native
