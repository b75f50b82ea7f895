"""A small program for `quickening watch` to look at.

    quickening watch examples/lens_tour.py
    quickening watch --html /tmp/lens examples/lens_tour.py   # then open /tmp/lens/index.html

It computes areas of shapes and a few statistics.  Some of its sites are
easy for CPython's specializer, some are not:

* `shape.area()` and `s.side` in `total_area` see five classes in turn: the
  site stays "specialized" by name but re-targets again and again;
* `scale` is first called with ints, then with floats;
* `Point` uses __slots__;
* `Reading` is a namedtuple, whose fields CPython does not specialize;
* `mean` divides, and `/` has no specialized form.
"""
from collections import namedtuple
import math


class Square:
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side * self.side


class Circle:
    def __init__(self, r):
        self.side = r

    def area(self):
        return math.pi * self.side * self.side


class Triangle:
    def __init__(self, side):
        self.side = side

    def area(self):
        return 0.4330127018922193 * self.side * self.side


class Hexagon:
    def __init__(self, side):
        self.side = side

    def area(self):
        return 2.598076211353316 * self.side * self.side


class Rectangle:
    def __init__(self, side, other):
        self.side = side
        self.other = other

    def area(self):
        return self.side * self.other


class Point:
    __slots__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y


Reading = namedtuple("Reading", "value weight")


def total_area(shapes):
    total = 0.0
    for s in shapes:
        total += s.area() + s.side
    return total


def scale(a, k):
    return a * k


def centroid(points):
    sx = sy = 0.0
    for p in points:
        sx += p.x
        sy += p.y
    return sx / len(points), sy / len(points)


def weighted(readings):
    acc = 0.0
    for r in readings:
        acc += r.value * r.weight
    return acc


def mean(values):
    return sum(values) / len(values)


def main():
    kinds = [Square, Circle, Triangle, Hexagon, lambda n: Rectangle(n, 2)]
    shapes = [kinds[i % 5](i % 17 + 1) for i in range(500)]
    points = [Point(i, 2 * i) for i in range(500)]
    readings = [Reading(i, 0.5) for i in range(500)]
    results = []
    for step in range(400):
        results.append(total_area(shapes))
        results.append(centroid(points)[0])
        results.append(weighted(readings))
        results.append(scale(step, 3) if step < 200 else scale(step * 0.5, 1.5))
        results.append(mean(results[-4:]))
    print("checksum %.3f" % sum(results))


if __name__ == "__main__":
    main()
