"""Small callees run written into their callers (inlining.py): whatever happens inside
them -- a guard failing, an exception, an operator of the program's own, a trace
function set, the recursion limit, a callee whose code or class changes -- the outcome
and what the program sees of frames and lifetimes are CPython's."""
import sys
import traceback
import weakref


def div(a, b):
    return a / b


def add(a, b):
    return a + b


class P:
    def __init__(self, x):
        self.x = x

    def get(self):
        return self.x


def through(o):
    return o.x


def safe_get(xs, i):
    try:
        return xs[i]
    except IndexError:
        return -1


def run_div():
    out = []
    for i in range(400):
        b = 0 if i in (250, 390) else i % 7 + 1
        try:
            out.append(div(i, b))
        except ZeroDivisionError as e:
            out.append([(fs.name, fs.lineno, fs.line) for fs in traceback.extract_tb(e.__traceback__)])
    return out[245:255] + out[388:]


class Loud:
    def __repr__(self):
        return "Loud()"

    def __add__(self, other):
        f = sys._getframe(1)
        return ("added in", f.f_code.co_name, f.f_lineno, f.f_back.f_code.co_name, f.f_locals)


def run_add():
    out = []
    for i in range(300):
        out.append(add(i, 1))
    for i in range(100):
        out.append(add(i * 0.5, 1.5))
    out.append(add("a", "b"))
    out.append(add(Loud(), 1))
    out.append(add([1], [2]))
    for i in range(100):
        out.append(add(i, 2))
    return out[::37] + out[400:403]


def run_lifetimes():
    freed = []
    for i in range(300):
        o = P(i)
        r = weakref.ref(o)
        v = through(o) + o.get()
        del o
        freed.append((r() is None, v == 2 * i))
    return all(a and b for a, b in freed), len(freed)


def run_trace():
    for i in range(300):
        add(i, i)
    events = []

    def tracer(frame, event, arg):
        if frame.f_code.co_name == "add":
            events.append((event, frame.f_lineno))
        return tracer
    sys.settrace(tracer)
    for i in range(3):
        add(i, i)
    sys.settrace(None)
    for i in range(3):
        add(i, i)
    return events


def leaf(n):
    return n + 1


def deep(n):
    if n == 0:
        return leaf(n)
    return deep(n - 1)


def run_deep():
    for i in range(300):
        deep(3)
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(80)
    results = []
    try:
        for n in range(40, 90):
            try:
                results.append((n, deep(n)))
            except RecursionError as e:
                results.append((n, type(e).__name__))
    finally:
        sys.setrecursionlimit(old)
    return results


class Q:
    def __init__(self):
        self.v = 1

    def val(self):
        return self.v


def run_class_changes():
    q = Q()
    out = []
    for i in range(400):
        out.append(q.val())
        if i == 150:
            Q.v = property(lambda self: 42)
        if i == 250:
            del Q.v
    return out[140:270:5]


def small(a):
    return a * 2


def other(a):
    return a * 3


def run_code_swap():
    out = []
    for i in range(300):
        out.append(small(i))
        if i == 200:
            small.__code__ = other.__code__
    return out[195:210]


def run_handled_inside():
    xs = [1, 2, 3]
    return [safe_get(xs, i % 5) for i in range(300)][:12]


# one code object run as two modules: their functions share code (and version) but
# not globals; a callee uses its caller's globals only where they are its own
MODULE = compile("""
SCALE = 3
def scaled(x):
    return x * SCALE, int
def drive(fns, n):
    out = []
    for i in range(n):
        fn = fns[i % 2]
        out.append(fn(i))
    return out
""", "<module>", "exec")


def run_globals():
    one = {"__name__": "one"}
    two = {"__name__": "two", "__builtins__": {"int": bool}}
    exec(MODULE, one)
    exec(MODULE, two)
    two["SCALE"] = 7
    out = one["drive"]([one["scaled"], one["scaled"]], 300)
    out += one["drive"]([one["scaled"], two["scaled"]], 300)
    one["SCALE"] = 5
    out += one["drive"]([two["scaled"], one["scaled"]], 300)
    return out[290:310] + out[590:610] + out[-10:]


class Pt:
    def __init__(self, x, y):
        self.x = x
        self.y = y * 2


class Returns:
    def __init__(self, v):
        self.v = v
        return v


def run_inits():
    out = []
    for i in range(300):
        p = Pt(i, i + 1)
        out.append(p.y - p.x)
    for i in range(300):
        try:
            out.append(Returns(None if i != 250 else 5).v)
        except TypeError as e:
            out.append(str(e))
    for i in range(300):
        try:
            y = "ab" if i == 280 else None if i == 290 else i
            out.append(Pt(i, y).y)
        except TypeError as e:
            out.append([(fs.name, fs.line) for fs in traceback.extract_tb(e.__traceback__)])
    return out[::29] + out[548:552] + out[878:882] + out[888:892]


class Base:
    def __init__(self):
        self.v = 1

    def value(self):
        return self.v

    def set(self, x):
        self.w = x


class Plain1(Base):
    pass


class Plain2(Base):
    pass


class Plain3(Base):
    pass


class Prop(Base):
    def __init__(self):
        pass

    @property
    def v(self):
        return ("v seen from", sys._getframe(1).f_code.co_name)

    def __setattr__(self, name, value):
        print("setattr from", sys._getframe(1).f_code.co_name, name, value)


def run_polymorphic():
    # the sites of value() and set() keep re-targeting between the plain classes
    # (their misses run in place); Prop's property and __setattr__ are code of the
    # program: there the callee's frame is made first
    plain = [Plain1(), Plain2(), Plain3()]
    out = []
    for i in range(900):
        o = plain[i % 3] if i < 700 or i % 5 else Prop()
        out.append(o.value())
        o.set(i)
    return out[695:720], [p.w for p in plain]


def gen_calls(n):
    for i in range(n):
        yield add(i, i) + through(P(i))


print(run_div())
print(run_add())
print(run_lifetimes())
print(run_trace())
print(run_deep())
print(run_class_changes())
print(run_code_swap())
print(run_handled_inside())
print(run_globals())
print(run_inits())
print(run_polymorphic())
print(sum(gen_calls(300)))
