"""A program with a polymorphic attribute site that reads stdin, writes to
stdout and stderr, and ends with its own exit status (5)."""
import sys
import time


class A:
    def __init__(self):
        self.x = 1


class B:
    def __init__(self):
        self.x = 2


class C:
    def __init__(self):
        self.x = 3


class D:
    def __init__(self):
        self.x = 4


def get(o):
    return o.x


def main():
    line = sys.stdin.readline().strip()
    objs = [A(), B(), C(), D()]
    total = 0
    deadline = time.perf_counter() + 0.15
    passes = 0
    while time.perf_counter() < deadline or passes < 50000:
        for o in objs:
            total += get(o)
        passes += 1
    print("read:", line)
    print("sum per pass:", total // passes)
    print("to stderr", file=sys.stderr)
    sys.exit(5)


main()
