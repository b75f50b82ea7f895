"""List walk: index through a list and sum what is found."""

DATA = list(range(1000))


def walk(data):
    total = 0
    n = len(data)
    i = 0
    while i < n:
        total += data[i]
        i += 1
    return total


def workload():
    total = 0
    for _ in range(300):
        total += walk(DATA)
    return total
