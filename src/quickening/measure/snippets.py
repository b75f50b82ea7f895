"""The one-line operations of the `specialize` and `warmup` experiments.

The first eleven are the seed's; the rest show the forms 3.14 and 3.15 added
(BINARY_OP_EXTEND for mixed int/float, subscripts under BINARY_OP, CALL_KW,
GET_ITER and CALL_FUNCTION_EX families on 3.15).

Each snippet is ``setup`` (module-level code run once) and ``stmt`` (one
line).  A child process runs the setup, wraps the line in a function
(``def _qk_site(): return STMT``) and calls it; the *focus* is the first
instruction of the named base opcode(s) — the operation the snippet is about.
Other sites of the function (e.g. the LOAD_GLOBAL that fetches ``o``) are
recorded too.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Snippet:
    key: str
    label: str
    setup: str
    stmt: str
    focus: tuple      # candidate base opnames, first present wins (versions differ)
    also: tuple = ()  # (role, candidate bases) of other sites worth showing

    def as_dict(self) -> dict:
        return {"key": self.key, "label": self.label, "setup": self.setup,
                "stmt": self.stmt, "focus": list(self.focus), "also": [[r, list(b)] for r, b in self.also]}


SNIPPETS = [
    Snippet("int_add", "int add", "a = 1\nb = 2", "a + b", ("BINARY_OP",)),
    Snippet("float_add", "float add", "a = 1.5\nb = 2.25", "a + b", ("BINARY_OP",)),
    Snippet("str_concat", "str concat", "a = 'ab'\nb = 'cd'", "a + b", ("BINARY_OP",)),
    Snippet("list_index", "list index", "s = [1, 2, 3]\ni = 1", "s[i]",
            ("BINARY_SUBSCR", "BINARY_OP")),
    Snippet("dict_index", "dict index", "d = {'k': 1}\nk = 'k'", "d[k]",
            ("BINARY_SUBSCR", "BINARY_OP")),
    Snippet("instance_attr", "attribute on an instance",
            "class C:\n    def __init__(self):\n        self.x = 1\no = C()", "o.x",
            ("LOAD_ATTR",)),
    Snippet("slots_attr", "attribute on a __slots__ instance",
            "class S:\n    __slots__ = ('x',)\n    def __init__(self):\n        self.x = 1\n"
            "o = S()", "o.x", ("LOAD_ATTR",)),
    Snippet("module_attr", "module attribute", "import math", "math.pi", ("LOAD_ATTR",)),
    Snippet("global_builtin", "global builtin", "s = [1, 2, 3]", "len(s)", ("LOAD_GLOBAL",),
            (("the call", ("CALL",)), ("its PRECALL (3.11)", ("PRECALL",)))),
    Snippet("method_call", "method call",
            "class C:\n    def m(self):\n        return 1\no = C()", "o.m()",
            ("CALL",), (("the method load", ("LOAD_METHOD", "LOAD_ATTR")),
                         ("its PRECALL (3.11)", ("PRECALL",)))),
    Snippet("py_call", "call of a Python function", "def g(x):\n    return x", "g(1)",
            ("CALL",), (("its PRECALL (3.11)", ("PRECALL",)),)),
    # forms of 3.14 and 3.15
    Snippet("mixed_add", "int + float", "a = 1\nb = 2.5", "a + b", ("BINARY_OP",)),
    Snippet("list_first", "list item at a constant index", "xs = [1, 2, 3]", "xs[0]",
            ("BINARY_SUBSCR", "BINARY_OP")),
    Snippet("list_iter", "iterate over a list", "xs = [1, 2, 3]", "[x for x in xs]",
            ("GET_ITER",), (("the loop", ("FOR_ITER",)),)),
    Snippet("kw_call", "keyword call", "def g(x):\n    return x", "g(x=1)",
            ("CALL_KW", "CALL")),
    Snippet("star_call", "call with *args", "def g(x):\n    return x\nargs = (1,)", "g(*args)",
            ("CALL_FUNCTION_EX",)),
]

#: The seed's eleven: each one specializes on every CPython from 3.11 on.
SEED_KEYS = ("int_add", "float_add", "str_concat", "list_index", "dict_index",
             "instance_attr", "slots_attr", "module_attr", "global_builtin",
             "method_call", "py_call")

BY_KEY = {s.key: s for s in SNIPPETS}
