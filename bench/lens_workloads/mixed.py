"""Lens bench workload: ints, floats, strings, dicts, closures, generators
and exceptions, so many families are exercised."""


def counter():
    n = 0

    def bump(k):
        nonlocal n
        n += k
        return n
    return bump


def words(n):
    for i in range(n):
        yield "w%d" % (i % 97)


def parse(s):
    try:
        return int(s)
    except ValueError:
        return -1


def main():
    bump = counter()
    freq = {}
    total = 0
    for rep in range(120):
        for w in words(5000):
            freq[w] = freq.get(w, 0) + 1
        for i in range(5000):
            total += bump(i & 7) % 13
            total += parse("x" if i % 50 == 0 else "12")
        x = 0.0
        for i in range(5000):
            x = x * 0.5 + i / 3.0
        total += int(x)
        s = []
        for k in sorted(freq):
            s.append(k.upper())
        total += len("".join(s))
    print(total, len(freq))


main()
