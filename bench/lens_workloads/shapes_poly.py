"""Lens bench workload: attribute loads and method calls on a polymorphic
mix of shapes (one site sees five classes), plus a monomorphic loop."""
import math


class Square:
    def __init__(self, s):
        self.side = s
        self.kind = 0

    def area(self):
        return self.side * self.side


class Rect:
    def __init__(self, w, h):
        self.side = w
        self.h = h
        self.kind = 1

    def area(self):
        return self.side * self.h


class Circle:
    def __init__(self, r):
        self.side = r
        self.kind = 2

    def area(self):
        return math.pi * self.side * self.side


class Tri:
    def __init__(self, b, h):
        self.side = b
        self.h = h
        self.kind = 3

    def area(self):
        return 0.5 * self.side * self.h


class Hexa:
    def __init__(self, s):
        self.side = s
        self.kind = 4

    def area(self):
        return 2.598076211353316 * self.side * self.side


def total(shapes):
    t = 0.0
    for s in shapes:
        t += s.area() + s.side
    return t


def mono(points):
    acc = 0
    for p in points:
        acc += p.side
    return acc


def main():
    shapes = []
    for i in range(1000):
        k = i % 5
        shapes.append([Square(i), Rect(i, 2), Circle(i), Tri(i, 3), Hexa(i)][k])
    squares = [Square(i) for i in range(1000)]
    t = 0.0
    for _ in range(1500):
        t += total(shapes)
        t += mono(squares)
    print(round(t, 3))


main()
