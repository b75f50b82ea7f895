"""A hand operation's body, pasted and specialized for a site (interp/hand_bodies.py).

The specialized body must do what the body does, for every value with the
answers it was specialized for: checked by running both on generated values.
"""

from hypothesis import given, settings, strategies as st

from quickening.interp import hand_bodies
from quickening.interp.families import call


class _Site:
    def __init__(self, oparg):
        self.oparg = oparg


# operations over facts a, b, c and the site, shaped as CALL's are: tests of a
# fact alone, negated, in and/or chains, against None; elif chains; a test
# whose answer is not known (x); returns in the middle; oparg arithmetic
def _op_tests(site, x, a, b, c):
    base = x - site.oparg - 2
    if not a:
        return ("not a", base)
    if b and c is not None and not x:
        return ("b, c, not x", base + 1)
    elif b or c is None:
        out = [base]
        if c is not None and (x or a):
            out.append(c)
        return ("b or no c", out)
    return ("else", base - 1 if c else base + 1)


def _op_nested(site, x, a, b, c):
    total = 0
    for i in range(site.oparg):
        total += i if a else -i
    try:
        if a is None or b:
            total += 1 if c else 2
        else:
            total += 3 if x > 0 and not c else 4
    finally:
        total *= 2
    return total if b is not None else -total


OPERATIONS = [_op_tests, _op_nested]
# the names the ifs it can leave out test (_op_nested's are inside a for, a try and
# conditional expressions, which are pasted as they are)
TESTED = {_op_tests: {"x", "a", "b", "c"}, _op_nested: set()}
VALUES = st.sampled_from([None, 0, 1, 2, True, False, (), (1,), "", "s"])


def _made(lines):
    source = "def op(site, x, a, b, c):\n" + "".join(f"    {line}\n" for line in lines)
    namespace = {}
    exec(compile(source, "<specialized>", "exec"), namespace)
    return namespace["op"]


@settings(max_examples=300, deadline=None)
@given(op=st.sampled_from(OPERATIONS), oparg=st.integers(0, 3), x=st.integers(-2, 2),
       a=VALUES, b=VALUES, c=VALUES)
def test_a_specialized_body_does_what_the_body_does(op, oparg, x, a, b, c):
    body = hand_bodies.body_lines(op, ("x", "a", "b", "c"))
    assert body is not None and body.tests == TESTED[op]
    values = {"a": a, "b": b, "c": c, "x": x}
    answers = {name: body.answer(name, values[name]) for name in body.tests}
    specialized = _made(body.specialized(answers, oparg))
    assert specialized(_Site(oparg), x, a, b, c) == op(_Site(oparg), x, a, b, c)


@given(oparg=st.integers(0, 3), x=st.integers(-2, 2), a=VALUES, b=VALUES, c=VALUES)
def test_a_body_answered_in_part_keeps_the_other_tests(oparg, x, a, b, c):
    body = hand_bodies.body_lines(_op_tests, ("x", "a", "b", "c"))
    specialized = _made(body.specialized({"b": body.answer("b", b)}))
    assert specialized(_Site(oparg), x, a, b, c) == _op_tests(_Site(oparg), x, a, b, c)


def test_a_specialized_body_tests_no_answered_fact():
    body = hand_bodies.body_lines(_op_tests, ("x", "a", "b", "c"))
    lines = body.specialized({name: body.answer(name, 1) for name in "abc"}, 2)
    text = "\n".join(lines)
    for name in "abc":
        assert f"if {name}" not in text and f"not {name}" not in text
    assert "site.oparg" not in text and "x - 2 - 2" in text


def test_a_call_sites_handler_is_specialized_for_its_facts():
    """CALL_PY_GENERAL's handler at a site of a simple function without cells:
    neither `enterable`, `simple` nor `has_free` is tested there."""
    member = call.PY_GENERAL
    assert set(member._tested) >= {"enterable", "simple", "has_free"}
    # (the member's handler source, as generated for a site with these facts)
    facts = {"enterable": True, "simple": True, "has_free": False, "tail": ()}
    answers = tuple(member._body.answer(name, facts[name]) for name in member._tested)
    lines = member._pasted(1, answers)
    text = "\n".join(lines)
    assert "enterable" not in text and "simple" not in text and "has_free" not in text
    assert "site.oparg" not in text


def test_sites_differing_only_in_what_no_test_asks_share_a_handler():
    """`tail` is only asked whether it is None: an empty tail and a longer one give
    the same answer (one handler), None another."""
    body = call.PY_GENERAL._body
    assert body.answer("tail", ()) == body.answer("tail", (1, 2))
    assert body.answer("tail", None) != body.answer("tail", ())
    assert body.said("tail", body.answer("tail", ())) == "tail is not None"
