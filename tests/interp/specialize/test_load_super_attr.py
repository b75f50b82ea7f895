"""LOAD_SUPER_ATTR: both members, both failure kinds, deopt on a rebound `super`."""

import pytest

from tests.interp.specialize.attr_cases import assert_same_family

BASE = """
class Base:
    K = 'k'
    def __init__(self):
        self.v = 1
    def m(self, x):
        return ('Base.m', x)
    @classmethod
    def cm(cls):
        return ('Base.cm', cls.__name__)
    @property
    def p(self):
        return 'Base.p'
"""

# name -> (body of Derived.go(self), final form of the super site)
CASES = {
    "attr_zero_arg": ("return super().K", "LOAD_SUPER_ATTR_ATTR"),
    "attr_property": ("return super().p", "LOAD_SUPER_ATTR_ATTR"),
    "attr_two_arg": ("return super(Derived, self).K", "LOAD_SUPER_ATTR_ATTR"),
    "method_zero_arg": ("return super().m(1)", "LOAD_SUPER_ATTR_METHOD"),
    "method_two_arg": ("return super(Derived, self).m(2)", "LOAD_SUPER_ATTR_METHOD"),
    "method_slot_wrapper": ("return super().__init__()", "LOAD_SUPER_ATTR_METHOD"),
    "method_builtin": ("return super().__repr__()[:5]", "LOAD_SUPER_ATTR_METHOD"),
    "method_classmethod": ("return super().cm()", "LOAD_SUPER_ATTR_METHOD"),
    "attr_of_super_object": ("return super().__thisclass__.__name__", "LOAD_SUPER_ATTR_ATTR"),
    "bad_class": ("return super(1, self).K", "LOAD_SUPER_ATTR"),
    "shadowed": ("return super().K", "LOAD_SUPER_ATTR"),
}


def case(body, name, n=70, mutation="pass", mutate_at=-1):
    shadow = ("import builtins\n"
              "def _fake_super(*a):\n    return builtins.super(Derived, OBJ)\n"
              "globals()['super'] = _fake_super\n"
              if name == "shadowed" else "")
    return f"""
{BASE}
{shadow}
class Derived(Base):
    def go(self):
        {body}
OBJ = Derived()
go = Derived.go
WATCH = ["go"]
RESULTS = []
def drive(record):
    for i in range({n}):
        if i == {mutate_at}:
            {mutation}
        try:
            RESULTS.append(repr(OBJ.go()))
        except TypeError as e:
            RESULTS.append('TypeError')
        if i in (0, 1, 2, 3, 4, 5, 11, 12, 20, 21, 26, 27, 57, 58, 69, {n - 1}):
            record()
"""


@pytest.mark.parametrize("name", sorted(CASES))
def test_member_or_failure(name):
    body, form = CASES[name]
    trace = assert_same_family(case(body, name), ("LOAD_SUPER_ATTR",))
    assert [s[1] for s in trace[-1]["go"]] == [form]


@pytest.mark.parametrize("name", ["method_zero_arg", "method_slot_wrapper", "method_classmethod"])
def test_method_form_pushes_what_the_call_sees(name):
    # (method, self) versus (bound method, NULL) decides the CALL site's form
    body, _ = CASES[name]
    assert_same_family(case(body, name), ("LOAD_SUPER_ATTR", "CALL", "LOAD_ATTR"))


def test_rebinding_super_deopts():
    body = "return super().m(3)"
    mutation = ("import builtins\n            "
                "globals()['super'] = lambda *a: builtins.super(Derived, OBJ)")
    assert_same_family(case(body, "rebind", n=90, mutation=mutation, mutate_at=20),
                       ("LOAD_SUPER_ATTR",))


def test_method_deleted_from_base_after_specialization():
    assert_same_family(case("return super().m(4)", "delete", n=90,
                            mutation="Base.m = lambda self, x: ('new', x)", mutate_at=20),
                       ("LOAD_SUPER_ATTR",))
