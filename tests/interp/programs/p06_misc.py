# pattern matching, imports, globals/locals, exec/eval, annotations, del, comprehensions scoping
import collections
import json
import os.path as osp
from collections import OrderedDict, namedtuple
from math import *  # noqa

print(sqrt(16), pi > 3, osp.join("a", "b"), json.dumps({"a": [1, 2]}), OrderedDict(a=1))
Point = namedtuple("Point", "x y")


def classify(obj):
    match obj:
        case 0 | 1:
            return "small int"
        case int(n) if n < 0:
            return f"negative {n}"
        case [x, y, *rest]:
            return f"seq {x} {y} {rest}"
        case {"kind": "circle", "r": r, **others}:
            return f"circle {r} {others}"
        case Point(x=0, y=yy):
            return f"on y axis at {yy}"
        case Point(xx, yy):
            return f"point {xx},{yy}"
        case str() as s:
            return "string " + s
        case (1, 2):
            return "tuple 12"
        case {"a": 1}:
            return "a1"
        case None:
            return "none"
        case _:
            return "other"


for item in [0, -5, [1, 2, 3, 4], {"kind": "circle", "r": 2, "c": 1}, Point(0, 3), Point(1, 2), "hi", None, 3.5, {"a": 1, "b": 2}]:
    print(classify(item))


class Config:
    __match_args__ = ("name", "level")

    def __init__(self, name, level):
        self.name, self.level = name, level


match Config("x", 3):
    case Config("x", level=3):
        print("config matched")

g_value = 10


def scope_demo():
    local_a = 1
    local_b = [local_a]
    print(sorted(locals().items()), "g_value" in globals(), sorted(vars()), dir())
    return eval("local_a + g_value"), eval("x * 2", {"x": 4})


print(scope_demo())
namespace = {}
exec("def made(x):\n    return x + 1\nresult = made(1)", namespace)
print(namespace["result"], namespace["made"](5))
exec("exec_global = 5")
print(exec_global)  # noqa
print(eval("[i for i in range(3)]"), eval("  1 + 2"))


def annotations_demo(a: int) -> str:
    b: int = 2
    return str(a + b)


x: int = 5
print(__annotations__, annotations_demo(1))
y = 1
del y
try:
    print(y)
except NameError as exc:
    print(exc)
data = {"a": 1}
del data["a"]
print(data)
counts = collections.Counter("abracadabra")
print(counts.most_common(2))
i = "outer"
squares = [i * i for i in range(4)]
print(i, squares)
print([(lambda: j)() for j in range(2)])
print({k: [v for v in range(k)] for k in range(3)})
try:
    from os import does_not_exist
except ImportError as exc:
    print("ImportError:", exc)
import importlib
print(importlib.import_module("string").ascii_lowercase[:3])
print(__name__, __file__.endswith("p06_misc.py"))
type Alias = list[int]
print(Alias.__value__)


def generic[T](x: T) -> T:
    return x


print(generic(3), generic.__type_params__)


class Box[T]:
    def __init__(self, item: T):
        self.item = item


print(Box(1).item, Box.__type_params__)
print(sorted(set("hello")), frozenset([1]) | {2})
print(getattr(Config("a", 1), "name"), hasattr(Config, "nope"))
print(str.join(",", ["a", "b"]), list.__len__([1]))
print(__builtins__ is not None, globals()["g_value"])
global_list = []
for global_list_item in range(2):
    global_list.append(global_list_item)
print(global_list, global_list_item)
