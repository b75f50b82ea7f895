"""The interpreter's own work is invisible to a warm program (issue 20, fault 5).

Fusing, specializing and reading facts happen lazily, in the middle of the
program's loops: they must not import modules (a loop over sys.modules would
see it change size), touch a module's globals, or leave garbage cycles for the
program's gc.  Each loop below runs long enough to be fused.
"""

import gc
import sys

gc.collect()    # (what starting up left)


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def norm(self):
        return self.x * self.x + self.y * self.y


def work(n):
    total = 0
    for i in range(n):
        p = Point(i, i + 1)
        total += p.norm() + len([i]) + (i % 7 == 3)
        total += p.x if p.y > 3 else 0
    return total


def walk_modules():
    walked = 0
    for _ in range(100):
        for name in sys.modules:
            walked += work(2) > 0
    return walked > 0


def walk_globals(namespace):
    walked = 0
    for _ in range(100):
        for name in namespace:
            walked += work(2) > 0
    return walked > 0


def count_points():
    n = 0
    for obj in gc.get_objects():
        if type(obj) is Point:
            n += 1
    return n


def walk_objects():
    kept = [Point(i, 0) for i in range(5)]
    counts = set()
    for _ in range(40):
        work(3)
        counts.add(count_points())
    return sorted(counts), len(kept)


print("a warm loop over sys.modules:", walk_modules())
print("a warm loop over the module's globals:", walk_globals(globals()))
print("a warm loop over gc.get_objects():", walk_objects())
print("garbage the loops left:", gc.collect(), len(gc.garbage))
