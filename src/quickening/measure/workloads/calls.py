"""Small Python function and method calls in a loop."""


class Acc:
    def __init__(self):
        self.n = 0

    def add(self, v):
        self.n += v


def twice(x):
    return x + x


def workload():
    acc = Acc()
    for i in range(150_000):
        acc.add(twice(i & 255))
    return acc.n
