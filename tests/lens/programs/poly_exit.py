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
    kinds = [A, B, C, D]
    # a fixed pseudo-random order: each re-specialization (at the 53rd miss)
    # lands on some class or other, not always the same one of a cycle
    seed, objs = 12345, []
    for _ in range(997):
        seed = (seed * 1103515245 + 12345) % 2 ** 31
        objs.append(kinds[(seed >> 16) % 4]())
    total = 0
    # under `quickening watch`, run until its agent has taken 15 samples (a
    # loaded machine samples less often); the output does not depend on it
    agent = getattr(sys.modules.get("_quickening_lens_agent"), "AGENT", None)
    deadline = time.perf_counter() + 20
    passes = 0
    while passes < 200 or (agent is not None and agent.nsamples < 15
                           and time.perf_counter() < deadline):
        for o in objs:
            total += get(o)
        passes += 1
    print("read:", line)
    print("sum per pass:", total // passes)
    print("to stderr", file=sys.stderr)
    sys.exit(5)


main()
