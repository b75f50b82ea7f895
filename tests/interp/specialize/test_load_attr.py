"""LOAD_ATTR: each of the 12 members, the failure kinds, the published behaviours,
and class mutation after specialization (results and forms as native)."""

import pytest

from tests.interp.specialize.attr_cases import assert_same_family, forms, site_case

PLAIN = """
class A:
    K = 10
    def __init__(self):
        self.x = 1
        self.y = 2
    def m(self):
        return 3
"""

# name -> (setup, expression on o, argument, expected result, final form)
MEMBERS = {
    "instance_value": (PLAIN, "o.x", "A()", "1", "LOAD_ATTR_INSTANCE_VALUE"),
    "instance_value_method_form": (PLAIN + "A.f = None\nclass B(A):\n    pass\n"
                                   "def mk():\n    b = B(); b.g = len; return b\n",
                                   "o.g('ab')", "mk()", "2", "LOAD_ATTR_INSTANCE_VALUE"),
    "module": ("import types\nmod = types.ModuleType('mod')\nmod.v = 5\n", "o.v", "mod", "5",
               "LOAD_ATTR_MODULE"),
    "module_method_form": ("import types\nmod = types.ModuleType('mod')\nmod.f = abs\n",
                           "o.f(-2)", "mod", "2", "LOAD_ATTR_MODULE"),
    "with_hint_many_attributes": (
        "class M:\n    def __init__(self):\n" + "".join(f"        self.a{i} = {i}\n" for i in range(40)),
        "o.a35", "M()", "35", "LOAD_ATTR_WITH_HINT"),
    "with_hint_assigned_dict": (PLAIN + "def mk():\n    a = A(); a.__dict__ = {'x': 7}; return a\n",
                                "o.x", "mk()", "7", "LOAD_ATTR_WITH_HINT"),
    "slot": ("class S:\n    __slots__ = ('a', 'b')\n    def __init__(self):\n        self.a = 1\n"
             "        self.b = 2\n", "o.b", "S()", "2", "LOAD_ATTR_SLOT"),
    "dunder_class": (PLAIN, "o.__class__", "A()", "A", "LOAD_ATTR_SLOT"),
    "class_value": (PLAIN, "o.K", "A", "10", "LOAD_ATTR_CLASS"),
    "class_function": (PLAIN, "o.m", "A", "A.m", "LOAD_ATTR_CLASS"),
    "class_method_form": (PLAIN, "o.m(A())", "A", "3", "LOAD_ATTR_CLASS"),
    "builtin_class_method_descr": ("", "o.upper", "str", "str.upper", "LOAD_ATTR_CLASS"),
    "property": ("class P:\n    def __init__(self):\n        self._v = 4\n    @property\n"
                 "    def v(self):\n        return self._v * 2\n", "o.v", "P()", "8",
                 "LOAD_ATTR_PROPERTY"),
    "getattribute_overridden": (
        "class G:\n    def __getattribute__(self, name):\n        return name + '!'\n",
        "o.abc", "G()", "'abc!'", "LOAD_ATTR_GETATTRIBUTE_OVERRIDDEN"),
    "getattribute_with_super": (
        "class G:\n    def __init__(self):\n        self.v = 1\n"
        "    def __getattribute__(self, name):\n        return super().__getattribute__(name) + 1\n",
        "o.v", "G()", "2", "LOAD_ATTR_GETATTRIBUTE_OVERRIDDEN"),
    "method_with_values": (PLAIN, "o.m()", "A()", "3", "LOAD_ATTR_METHOD_WITH_VALUES"),
    "method_no_dict_slots": ("class S:\n    __slots__ = ()\n    def m(self):\n        return 6\n",
                             "o.m()", "S()", "6", "LOAD_ATTR_METHOD_NO_DICT"),
    "method_no_dict_builtin": ("", "o.upper()", "'ab'", "'AB'", "LOAD_ATTR_METHOD_NO_DICT"),
    "method_lazy_dict": ("class L(list):\n    pass\n", "o.copy()", "L([1])", "[1]",
                         "LOAD_ATTR_METHOD_LAZY_DICT"),
    "nondescriptor_with_values": (PLAIN, "o.K", "A()", "10", "LOAD_ATTR_NONDESCRIPTOR_WITH_VALUES"),
    "nondescriptor_no_dict": ("class S:\n    __slots__ = ()\n    K = 9\n", "o.K", "S()", "9",
                              "LOAD_ATTR_NONDESCRIPTOR_NO_DICT"),
}


@pytest.mark.parametrize("name", sorted(MEMBERS))
def test_member(name):
    setup, expr, arg, result, form = MEMBERS[name]
    trace = assert_same_family(site_case(setup, expr, arg, check=result), ("LOAD_ATTR",))
    assert forms(trace)[0] == form


# name -> (setup, expression, argument): every one fails natively and here alike
FAILURES = {
    "method_without_call": (PLAIN, "o.m", "A()"),
    "class_value_in_method_form": ("class C:\n    f = len\n", "o.f('ab')", "C()"),
    "classmethod": ("class C:\n    @classmethod\n    def f(cls):\n        return 1\n", "o.f()", "C()"),
    "staticmethod": ("class C:\n    @staticmethod\n    def f():\n        return 1\n", "o.f", "C()"),
    "builtin_classmethod": ("", "o.fromkeys", "{}"),
    "property_with_getattr": ("class C:\n    def __getattr__(self, n):\n        return 0\n"
                              "    @property\n    def p(self):\n        return 1\n", "o.p", "C()"),
    "getattribute_and_getattr": ("class C:\n    def __getattribute__(self, n):\n        return 1\n"
                                 "    def __getattr__(self, n):\n        return 0\n", "o.p", "C()"),
    "getattribute_in_method_form": ("class C:\n    def __getattribute__(self, n):\n"
                                    "        return len\n", "o.p('a')", "C()"),
    "getattribute_wrong_args": ("class C:\n    def __getattribute__(self, n, extra=0):\n"
                                "        return 1\n", "o.p", "C()"),
    "property_not_python": ("import operator\nclass C:\n    y = 5\n    p = property(operator.attrgetter('y'))\n",
                            "o.p", "C()"),
    "property_in_method_form": ("class C:\n    @property\n    def p(self):\n        return len\n",
                                "o.p('ab')", "C()"),
    "property_star_args": ("class C:\n    @property\n    def p(*args):\n        return 1\n", "o.p", "C()"),
    "property_no_getter": ("class C:\n    p = property(None, lambda s, v: None)\n", "o.p", "C()"),
    "mutable_descriptor": ("class D:\n    def __get__(self, o, t):\n        return 1\n"
                           "class C:\n    d = D()\n", "o.d", "C()"),
    "module_getattr": ("import types\nmod = types.ModuleType('mod')\nmod.__getattr__ = lambda n: 1\n"
                       "mod.v = 2\n", "o.v", "mod"),
    "module_missing": ("import types\nmod = types.ModuleType('mod')\n", "o.v", "mod"),
    "metaclass": ("class Meta(type):\n    pass\nclass C(metaclass=Meta):\n    v = 1\n", "o.v", "C"),
    "metaclass_attribute": ("class C:\n    pass\n", "o.__name__", "C"),
    "class_property": ("class C:\n    @property\n    def p(self):\n        return 1\n", "o.p", "C"),
    "class_classmethod": ("class C:\n    @classmethod\n    def f(cls):\n        return 1\n", "o.f", "C"),
    "class_absent": ("class C:\n    pass\n", "o.nothing", "C"),
    "class_getattribute": ("class C:\n    v = 1\n    def __getattribute__(self, n):\n        return 1\n",
                           "o.v", "C"),
    "not_in_keys": ("class C:\n    def __init__(self):\n        self.a = 1\n"
                    "    def __getattr__(self, n):\n        return 0\n", "o.zz", "C()"),
    "not_managed_dict": ("", "o.real", "1"),
    "non_object_slot": ("", "o.real", "1j"),
    "class_attr_descriptor": ("class C:\n    f = staticmethod(len)\n", "o.f", "C()"),
    "shadowed": ("class C:\n    def m(self):\n        return 1\n"
                 "c = C(); c.m = lambda: 2\n", "o.m()", "C()"),
    "nondescriptor_dict_not_inline": ("class L(list):\n    K = 1\n", "o.K", "L()"),
    "method_lazy_dict_materialized": ("class L(list):\n    pass\ndef mk():\n    l = L(); l.a = 1\n"
                                      "    return l\n", "o.copy()", "mk()"),
    "instance_missing": (PLAIN, "o.zz", "A()"),
    "overridden_builtin_getattro": ("import types\nclass M(types.ModuleType):\n    pass\n"
                                    "m = M('m'); m.v = 1\n", "o.v", "m"),
    "super_object": ("class C:\n    def m(self):\n        return 1\nclass D(C):\n    pass\n",
                     "o.m", "super(D, D())"),
}


@pytest.mark.parametrize("name", sorted(FAILURES))
def test_failure(name):
    setup, expr, arg = FAILURES[name]
    trace = assert_same_family(site_case(setup, expr, arg), ("LOAD_ATTR",))
    assert forms(trace)[0] == "LOAD_ATTR"


def test_five_classes_round_robin_keep_instance_value_and_retarget_every_53_misses():
    trace = assert_same_family("""
classes = []
for k in range(5):
    class C:
        def __init__(self):
            self.x = 1
    C.__qualname__ = f"C{k}"
    classes.append(C)
objs = [c() for c in classes]
def site(o):
    return o.x
WATCH = ["site"]
def drive(record):
    for i in range(600):
        assert site(objs[i % 5]) == 1
        if i % 7 == 0 or i > 500:
            record()
""", ("LOAD_ATTR",))
    seen = {c["site"][0][3] for c in trace}
    assert {c["site"][0][1] for c in trace[1:]} == {"LOAD_ATTR_INSTANCE_VALUE"}
    assert len(seen - {None}) == 5


def test_misses_count_down_and_respecialize_on_53rd():
    assert_same_family("""
class A:
    def __init__(self):
        self.x = 1
class B:
    def __init__(self):
        self.x = 2
a, b = A(), B()
def site(o):
    return o.x
WATCH = ["site"]
def drive(record):
    for i in range(3):
        site(a)
    record()
    for i in range(30):
        site(b)
        record()
    for i in range(100):
        site(a)
    record()
    for i in range(60):
        assert site(b) == 2
        record()
""", ("LOAD_ATTR",))


MUTATIONS = {
    # (setup, mutation run after 20 executions, expression, argument)
    "add_class_attribute": (PLAIN, "A.z = 5", "o.x", "a"),
    "add_property_shadowing_instance": (PLAIN, "A.x = property(lambda self: 'prop')", "o.x", "a"),
    "delete_method": (PLAIN + "class B(A):\n    def m(self):\n        return 'B'\n",
                      "del B.m", "o.m()", "b"),
    "replace_method": (PLAIN, "A.m = lambda self: 'new'", "o.m()", "a"),
    "rebind_class_constant": (PLAIN, "A.K = 11", "o.K", "a"),
    "shadow_class_constant_on_instance": (PLAIN, "a.K = 'inst'", "o.K", "a"),
    "shadow_method_on_instance": (PLAIN, "a.m = lambda: 'inst'", "o.m()", "a"),
    "class_assignment": (PLAIN + "class B:\n    def __init__(self):\n        self.x = 'B'\n"
                                 "    def m(self):\n        return 'Bm'\n",
                         "a.__class__ = B", "(o.x, o.m())", "a"),
    "materialize_dict": (PLAIN, "a.__dict__", "(o.x, o.m(), o.K)", "a"),
    "replace_dict": (PLAIN, "a.__dict__ = {'x': 'd', 'm': lambda: 'dm', 'K': 'dk'}",
                     "(o.x, o.m(), o.K)", "a"),
    "delete_instance_attribute": (PLAIN, "del a.x", "getattr(o, 'x', 'gone')", "a"),
    "module_add_and_delete": ("import types\nmod = types.ModuleType('mod')\nmod.v = 1\na = mod\n",
                              "mod.w = 2; del mod.v; mod.v = 3", "o.v", "a"),
    "class_attribute_change": (PLAIN, "A.K = 'k2'; A.m = staticmethod(lambda s: 's')",
                               "(A.K, A.m(a))", "a"),
    "slot_deleted": ("class S:\n    __slots__ = ('a',)\n    def __init__(self):\n        self.a = 1\n"
                     "a = S()\n", "del a.a", "getattr(o, 'a', 'gone')", "a"),
    "property_getter_code_changed": (
        "class P:\n    @property\n    def v(self):\n        return 1\n"
        "def other(self):\n    return 2\na = P()\n",
        "P.v.fget.__code__ = other.__code__", "o.v", "a"),
    "getattribute_added_later": (PLAIN, "A.__getattribute__ = lambda self, n: 'ga'", "o.x", "a"),
}


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_class_mutation_after_specialization(name):
    setup, mutation, expr, arg = MUTATIONS[name]
    source = f"""
{setup}
if 'a' not in globals():
    a = A()
if 'b' not in globals() and 'B' in globals():
    b = B()
def site(o):
    return {expr}
WATCH = ["site"]
RESULTS = []
def drive(record):
    for i in range(80):
        if i == 20:
            {mutation}
        RESULTS.append(repr(site({arg})))
        if i in (0, 1, 2, 19, 20, 21, 22, 40, 71, 72, 73, 79):
            record()
"""
    assert_same_family(source, ("LOAD_ATTR",))


def test_generic_method_form_pushes_method_and_self_like_cpython():
    # misses run the base instruction (_PyObject_GetMethod): the CALL after it
    # sees (function, self) or (bound method, NULL) exactly as natively
    assert_same_family("""
class A:
    def m(self):
        return 'A'
class B:
    def m(self):
        return 'B'
class H:
    def __getattr__(self, n):
        return lambda: 'H'
    def m(self):
        return 'Hm'
class I:
    def __init__(self):
        self.m = lambda: 'I'
class L(list):
    pass
objs = [A(), B(), H(), I(), [], L(), 'x', A]
def site(o):
    if isinstance(o, type):
        return o.mro()[0].__name__
    return o.m() if not isinstance(o, (list, str)) else o.__len__()
def site2(o):
    return o.__init__()
WATCH = ["site", "site2"]
RESULTS = []
def drive(record):
    for i in range(400):
        o = objs[i % len(objs)]
        RESULTS.append(site(o))
        if not isinstance(o, type):
            site2(o)
        if i % 10 == 0:
            record()
""", ("LOAD_ATTR", "CALL"))


def test_getattr_hook_class_attribute_present():
    trace = assert_same_family(site_case(
        "class C:\n    def __init__(self):\n        self.a = 1\n"
        "    def __getattr__(self, n):\n        return 'missing'\n"
        "objs = [C(), C()]\ndel objs[1].a\n", "o.a", "objs[i % 2 if i > 30 else 0]"),
        ("LOAD_ATTR",))
    assert forms(trace)[0] == "LOAD_ATTR_INSTANCE_VALUE"


def test_slot_emptied_and_instance_attribute_deleted_miss():
    assert_same_family(site_case(
        PLAIN + "class S:\n    __slots__ = ('a',)\n"
        "objs = [S(), S()]\nobjs[0].a = 1\n", "getattr(o, 'a', None)", "objs[i % 2 if i > 30 else 0]"),
        ("LOAD_ATTR",))
    assert_same_family(site_case(
        PLAIN + "objs = [A(), A()]\ndel objs[1].x\n", "getattr(o, 'x', None)",
        "objs[i % 2 if i > 30 else 0]"), ("LOAD_ATTR",))


def test_list_subclass_instance_attribute_and_exceptions_and_functions():
    for setup, expr, arg in [
        ("class L(list):\n    pass\nl = L(); l.a = 1\n", "o.a", "l"),
        ("class E(Exception):\n    pass\ne = E(1); e.a = 2\n", "(o.a, o.args)", "e"),
        ("def f():\n    pass\nf.a = 1\n", "(o.a, o.__name__)", "f"),
    ]:
        assert_same_family(site_case(setup, expr, arg), ("LOAD_ATTR",))


BUILTIN_SUBCLASSES = {
    "str_subclass_method": ("class S(str):\n    pass\n", "o.upper()", "S('ab')"),
    "str_subclass_attribute": ("class S(str):\n    pass\ns = S('ab'); s.a = 1\n", "o.a", "s"),
    "int_subclass_method": ("class I(int):\n    def m(self):\n        return 1\n", "o.m()", "I(3)"),
    "tuple_subclass_method": ("class T(tuple):\n    def m(self):\n        return 1\n", "o.m()", "T((1,))"),
    "dict_subclass_method": ("class D(dict):\n    pass\n", "o.keys()", "D(a=1)"),
    "dict_subclass_constant": ("class D(dict):\n    K = 1\n", "o.K", "D()"),
    "exception_method": ("class E(Exception):\n    def m(self):\n        return 1\n", "o.m()", "E()"),
    "exception_args": ("", "o.args", "ValueError(1)"),
    "slots_with_dict": ("class S:\n    __slots__ = ('a', '__dict__')\n    def m(self):\n"
                        "        return 1\ns = S(); s.a = 1; s.b = 2\n", "(o.a, o.b, o.m())", "s"),
    "namedtuple_field": ("import collections\nP = collections.namedtuple('P', 'x y')\n", "o.y", "P(1, 2)"),
    "function_method_form": ("def f():\n    return 1\n", "o.__call__()", "f"),
}


@pytest.mark.parametrize("name", sorted(BUILTIN_SUBCLASSES))
def test_builtin_subclasses_and_objects(name):
    setup, expr, arg = BUILTIN_SUBCLASSES[name]
    assert_same_family(site_case(setup, expr, arg), ("LOAD_ATTR",))
