"""STORE_ATTR: its 3 members, the failure kinds, mutation after specialization."""

import pytest

from tests.interp.specialize.attr_cases import assert_same_family


def store_case(setup, target, value="i", n=70, mutation="pass", mutate_at=-1, result="None"):
    return f"""
{setup}
def site(o, v):
    o.{target} = v
WATCH = ["site"]
RESULTS = []
def drive(record):
    for i in range({n}):
        if i == {mutate_at}:
            {mutation}
        o = make()
        try:
            site(o, {value})
        except (AttributeError, TypeError) as e:
            RESULTS.append(type(e).__name__)
        RESULTS.append(repr({result}))
        if i in (0, 1, 2, 3, 4, 5, 11, 12, 26, 27, 30, 31, 57, 58, 69):
            record()
"""


PLAIN = """
class A:
    K = 1
    def __init__(self):
        self.x = 0
    def m(self):
        pass
"""

# name -> (setup defining make(), attribute, result expression, final form)
MEMBERS = {
    "instance_value": (PLAIN + "def make():\n    return A()\n", "x", "o.x", "STORE_ATTR_INSTANCE_VALUE"),
    "instance_value_new_attribute": (PLAIN + "def make():\n    return A()\n", "y", "o.y",
                                     "STORE_ATTR_INSTANCE_VALUE"),
    "with_hint": (PLAIN + "def make():\n    a = A(); a.__dict__ = {'x': 0}; return a\n", "x", "o.x",
                  "STORE_ATTR_WITH_HINT"),
    "with_hint_many": ("class M:\n    def __init__(self):\n"
                       + "".join(f"        self.a{i} = {i}\n" for i in range(40))
                       + "def make():\n    return M()\n", "a33", "o.a33", "STORE_ATTR_WITH_HINT"),
    "slot": ("class S:\n    __slots__ = ('a', 'b')\ndef make():\n    return S()\n", "b", "o.b",
             "STORE_ATTR_SLOT"),
    "slot_shared_object": ("class S:\n    __slots__ = ('a',)\ns = S()\ndef make():\n    return s\n",
                           "a", "o.a", "STORE_ATTR_SLOT"),
}


@pytest.mark.parametrize("name", sorted(MEMBERS))
def test_member(name):
    setup, target, result, form = MEMBERS[name]
    trace = assert_same_family(store_case(setup, target, result=result), ("STORE_ATTR",))
    assert trace[-1]["site"][0][1] == form


FAILURES = {
    "module": ("import types\nm = types.ModuleType('m')\ndef make():\n    return m\n", "v"),
    "class_object": ("class C:\n    pass\ndef make():\n    return C\n", "v"),
    "setattr_overridden": ("class C:\n    def __setattr__(self, n, v):\n        object.__setattr__(self, n, v)\n"
                           "def make():\n    return C()\n", "v"),
    "property": ("class C:\n    @property\n    def p(self):\n        return 1\n    @p.setter\n"
                 "    def p(self, v):\n        pass\ndef make():\n    return C()\n", "p"),
    "method": (PLAIN + "def make():\n    return A()\n", "m"),
    "class_attribute": (PLAIN + "def make():\n    return A()\n", "K"),
    "dunder_class": (PLAIN + "class B:\n    pass\ndef make():\n    return A()\n", "__class__"),
    "other_data_descriptor": (PLAIN + "def make():\n    return A()\n", "__dict__"),
    "not_in_keys": ("class F:\n    def __init__(self):\n"
                    + "".join(f"        self.a{i} = {i}\n" for i in range(30))
                    + "def make():\n    return F()\n", "extra"),
    "not_managed_dict": ("def make():\n    return lambda: 0\n", "attr"),
    "mutable_descriptor": ("class D:\n    def __set__(self, o, v):\n        pass\n"
                           "    def __get__(self, o, t):\n        return 1\n"
                           "class C:\n    d = D()\ndef make():\n    return C()\n", "d"),
    "read_only_slot": ("def make():\n    return 1j\n", "real"),
    "materialized_dict_misses": (PLAIN + "def make():\n    a = A(); a.__dict__; return a\n", "zz"),
}


@pytest.mark.parametrize("name", sorted(FAILURES))
def test_failure(name):
    setup, target = FAILURES[name]
    value = "B" if name == "dunder_class" else "i"
    assert_same_family(store_case(setup, target, value=value), ("STORE_ATTR",))


MUTATIONS = {
    "add_property": (PLAIN + "def make():\n    return A()\n", "x",
                     "A.x = property(lambda s: 'p', lambda s, v: None)", "o.x"),
    "add_setattr": (PLAIN + "def make():\n    return A()\n", "x",
                    "A.__setattr__ = lambda s, n, v: object.__setattr__(s, n, -v)", "o.x"),
    "materialized_dict": (PLAIN + "a = A()\ndef make():\n    return a\n", "x", "a.__dict__",
                          "(o.x, sorted(o.__dict__))"),
    "replaced_dict": (PLAIN + "a = A()\ndef make():\n    return a\n", "x", "a.__dict__ = {'q': 1}",
                      "(o.x, sorted(o.__dict__))"),
    "class_assignment": (PLAIN + "class B:\n    def __init__(self):\n        self.x = 'b'\n"
                         "a = A()\ndef make():\n    return a\n", "x", "a.__class__ = B",
                         "(type(o).__name__, o.x)"),
    "slot_class_gets_property": ("class S:\n    __slots__ = ('a',)\ndef make():\n    return S()\n", "a",
                                 "S.a = property(lambda s: 'p', lambda s, v: None)", "o.a"),
}


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_mutation_after_specialization(name):
    setup, target, mutation, result = MUTATIONS[name]
    assert_same_family(store_case(setup, target, n=90, mutation=mutation, mutate_at=20, result=result),
                       ("STORE_ATTR",))
