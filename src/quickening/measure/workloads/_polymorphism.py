"""The `polymorphism` experiment's workload: one `o.x` site fed 1 to 5 classes.

The classes are declared identically (same source text, so the same shape);
objects are built round-robin over them, so with k classes the site sees a
different class k-1 times in k.  ``make(...)`` returns the function the
harness times; the site lives in this module, and every configuration runs
in its own fresh process, so no two configurations share a site.
"""

CLASS_SOURCE = """
class C{n}:
    def __init__(self):
        self.x = 1
"""


def make_classes(k):
    ns = {}
    for n in range(k):
        exec(CLASS_SOURCE.format(n=n), ns)
    return [ns[f"C{n}"] for n in range(k)]


def loop_attr(objs, passes):
    t = None
    for _ in range(passes):
        for o in objs:
            t = o.x
    return t


def loop_empty(objs, passes):
    t = None
    for _ in range(passes):
        for o in objs:
            t = o
    return t is not None


def get_x(o):
    return o.x


def get_o(o):
    return o


def call_attr(objs, passes):
    t = None
    for _ in range(passes):
        for o in objs:
            t = get_x(o)
    return t


def call_empty(objs, passes):
    t = None
    for _ in range(passes):
        for o in objs:
            t = get_o(o)
    return t is not None


FUNCTIONS = {("loop", True): loop_attr, ("loop", False): loop_empty,
             ("call", True): call_attr, ("call", False): call_empty}


def make(classes, variant, objects=1000, passes=200):
    """classes: 1..5, or 0 for the baseline (same loop, no attribute load)."""
    k = max(1, classes)
    kinds = make_classes(k)
    objs = [kinds[i % k]() for i in range(objects)]
    fn = FUNCTIONS[(variant, classes > 0)]

    def run():
        return fn(objs, passes)
    return run
