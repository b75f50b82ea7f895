import sys


class Thing:
    def method(self, n):
        return helper(n)


def helper(n):
    return [1, 2][n]


print("before", file=sys.stderr)
print("stdout line")
Thing().method(5)
