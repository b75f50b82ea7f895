"""A small program with the sites people ask about: a monomorphic attribute
load, a polymorphic one (five classes through one `o.x`), int and float
arithmetic on the same `+`, a __slots__ class, calls and a generator.

    quickening run --stats examples/shapes.py
"""

import math


class Square:
    def __init__(self, side):
        self.x = side

    def area(self):
        return self.x * self.x


class Circle:
    def __init__(self, radius):
        self.x = radius

    def area(self):
        return math.pi * self.x * self.x


class Tri:
    def __init__(self, base):
        self.x = base

    def area(self):
        return self.x * self.x / 2


class Hexagon:
    def __init__(self, side):
        self.x = side

    def area(self):
        return 3 * math.sqrt(3) / 2 * self.x * self.x


class Line:
    def __init__(self, length):
        self.x = length

    def area(self):
        return 0


class Point:
    __slots__ = ("px", "py")

    def __init__(self, px, py):
        self.px = px
        self.py = py


def size(shape):
    return shape.x            # polymorphic: five classes pass through here


def total(values):
    acc = 0
    for v in values:
        acc = acc + v         # int first, then floats arrive
    return acc


def centroid(points):
    sx = sy = 0.0
    for p in points:
        sx += p.px            # __slots__ attribute
        sy += p.py
    return sx / len(points), sy / len(points)


def squares(n):
    for i in range(n):
        yield i * i


def main():
    kinds = [Square, Circle, Tri, Hexagon, Line]
    shapes = [kinds[i % 5](i % 7 + 1) for i in range(2000)]
    sizes = sum(size(s) for s in shapes)
    areas = round(sum(s.area() for s in shapes), 3)
    ints = total(range(100))
    floats = total([i / 3 for i in range(100)])
    points = [Point(i, 2 * i) for i in range(500)]
    print("sizes", sizes, "areas", areas)
    print("totals", ints, round(floats, 6))
    print("centroid", centroid(points))
    print("squares", sum(squares(1000)))


if __name__ == "__main__":
    main()
