"""A hot loop whose callee is written into its run (docs/fusion.md).

    quickening dis --generated weight --generated total examples/fusion_tour.py
"""


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y


def weight(p):
    return p.x + p.y


def total(points):
    acc = 0.0
    for p in points:
        acc = acc + weight(p)
    return acc


points = [Point(float(i), 2.0) for i in range(100)]
for _ in range(100):
    t = total(points)
print(t)
