"""Dictionary loop: insert, look up and update integer keys."""

N = 200_000


def workload():
    d = {}
    for i in range(N):
        d[i & 4095] = i
    total = 0
    for i in range(N):
        total += d[i & 4095]
    return total
