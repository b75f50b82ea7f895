"""The differential helpers fail a snippet that did not really run in the interpreter."""

import types

import pytest

from tests.interp import differential

SNIPPET = """
def double(x):
    return 2 * x
def pairs():
    yield 1
    yield 2
r = [double(i) for i in pairs()]
"""


def test_a_clean_run_passes_and_starts_what_cpython_started():
    outcome = differential.assert_same(SNIPPET)
    # the started set is CPython's own (PY_START), not written here
    assert outcome["started"] and any(k.endswith(":double") for k in outcome["started"])


def test_a_snippet_run_natively_fails(monkeypatch):
    monkeypatch.setattr(differential, "_interpreter_entry", lambda: (lambda c, g: exec(c, g)))
    with pytest.raises(AssertionError) as info:
        differential.assert_same(SNIPPET)
    # the outcomes are alike: only the started code objects tell the runs apart
    assert "started" in str(info.value)


def test_interpreted_code_that_escapes_to_native_execution_fails(monkeypatch):
    from quickening import api
    from quickening.interp import escapes

    def escaping(code, namespace):
        # the interpreter runs the module, but `double` is run by CPython itself
        api.run_code(code, namespace)
        double = next(c for _, c in differential.code_tree(code) if c.co_name == "double")
        escapes.watch(double)
        types.FunctionType(double, namespace)(1)
    monkeypatch.setattr(differential, "_interpreter_entry", lambda: escaping)
    with pytest.raises(AssertionError, match="interpreted code ran natively"):
        differential.assert_same(SNIPPET)


PROGRAM = """
import sys
def double(x):
    return 2 * x
print([double(i) for i in range(3)], sys.argv[1:])
"""


def test_a_program_passes_and_starts_what_cpython_started(tmp_path):
    script = tmp_path / "program.py"
    script.write_text(PROGRAM)
    nat = differential.assert_same_program(str(script), "x")
    assert (str(script), "double", 3) in nat.starts


def test_a_program_run_natively_fails(tmp_path, monkeypatch):
    script = tmp_path / "program.py"
    script.write_text(PROGRAM)
    monkeypatch.setattr(differential, "INTERPRETED_COMMAND", [differential.PYTHON])
    with pytest.raises(AssertionError, match="did not report from the interpreter"):
        differential.assert_same_program(str(script), "x")


def _names_r_as(value):
    def predicted(outcome):
        outcome["names"]["r"] = value
        return outcome
    return predicted


def test_a_known_difference_must_be_the_predicted_wrong_outcome():
    # the interpreter gives CPython's outcome here: a prediction of a wrong one fails
    with pytest.raises(AssertionError, match="r"):
        differential.assert_same("r = 1", predicted=_names_r_as("2"))
    with pytest.raises(AssertionError, match="the prediction is the native outcome"):
        differential.assert_same("r = 1", predicted=_names_r_as("1"))
