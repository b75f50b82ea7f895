# arithmetic, comparisons, containers, slicing, strings, f-strings
x = 7
y = 3.5
print(x + 2, x - 2, x * 2, x / 2, x // 2, x % 3, x ** 2, -x, +x, ~x)
print(x & 3, x | 8, x ^ 5, x << 2, x >> 1, y * 2, divmod(x, 3))
z = x
z += 1; z -= 2; z *= 3; z //= 2; z %= 7; z **= 2; z <<= 1; z >>= 1; z &= 0xFF; z |= 1; z ^= 2
print(z)
print(1 < 2 < 3, 1 < 2 > 3, x == 7, x != 7, x is None, x is not None, 3 in [1, 2, 3], 4 not in (1,))
s = "hello"
print(s[1], s[-1], s[1:3], s[::-1], s[::2], s.upper(), f"{s!r:>10}|{x:05d}|{y:.2f}|{s!s}|{s!a}")
print(f"{'nested ' + s}", f"{x=}", f"{{literal}}", f"{y:{x}.{2}}")
lst = [1, 2, 3, 4, 5]
lst[1:3] = ["a", "b", "c"]
del lst[0]
lst[0] = "A"
print(lst, lst[1:-1], len(lst))
del lst[1:3]
print(lst)
t = (1, 2, (3, 4))
a, b, (c, d) = t
print(a, b, c, d)
first, *middle, last = range(6)
print(first, middle, last)
*init, = "xyz"
print(init)
d = {"a": 1, "b": 2}
d["c"] = 3
del d["a"]
print(d, {**d, "e": 5}, dict(d, f=6), {1, 2, 2, 3}, {*d, *"q"} == set(d) | {"q"})
print([i * i for i in range(5) if i % 2], {i: i * 2 for i in range(3)}, {i % 3 for i in range(10)})
print(list(i + j for i in range(3) for j in range(2)))
print([*range(3)], (*range(2), 9), [[1, 2], [3]][1][0])
print(not x, not 0, bool(""), bool([0]), x and y, 0 or "default", None or 0)
print(1 if x > 5 else 2, (lambda v, w=2: v * w)(4), (lambda *a, **k: (a, k))(1, z=2))
n = 0
while n < 5:
    n += 1
    if n == 2:
        continue
    if n == 4:
        break
else:
    print("no break")
print(n)
for i in range(3):
    pass
else:
    print("loop else", i)
if (w := x * 2) > 10:
    print("walrus", w)
print(chr(65), ord("A"), abs(-3), round(2.567, 2), sorted("bca"), min(3, 1), max([4, 9]))
print(isinstance(x, int), issubclass(bool, int), type(y).__name__, hex(255), bin(5), oct(8))
b = b"bytes"
print(b[0], b[1:3], b + b"!", bytearray(b"ab") * 2, 3 * [0])
print(1_000_000, 0x1F, 0o17, 0b101, 1e3, 2j * 2j, complex(1, 2).real)
print(str(1 / 3), repr(0.1 + 0.2), int("42"), float("1.5"), "a,b".split(","), "-".join("abc"))
print(sum([1, 2]), any([0, 1]), all([]), list(zip("ab", [1, 2])), list(enumerate("xy", 1)))
print(list(map(str, [1, 2])), list(filter(None, [0, 1, 2])), list(reversed([1, 2, 3])))
print(x.__class__, (1).__add__(2), "%s-%d" % ("a", 3), "{}+{}".format(1, 2))
