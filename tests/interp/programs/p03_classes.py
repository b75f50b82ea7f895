# classes, inheritance, super, properties, dunder methods reached through C slots, metaclasses
import pickle


class Base:
    kind = "base"

    def __init__(self, x):
        self.x = x

    def describe(self):
        return f"{self.kind}:{self.x}"

    def __repr__(self):
        return f"{type(self).__name__}({self.x!r})"

    def __eq__(self, other):
        return isinstance(other, Base) and self.x == other.x

    def __hash__(self):
        return hash(self.x)

    def __lt__(self, other):
        return self.x < other.x


class Child(Base):
    kind = "child"

    def __init__(self, x, y):
        super().__init__(x)
        self.y = y

    def describe(self):
        return "child/" + super().describe()

    @property
    def total(self):
        return self.x + self.y

    @total.setter
    def total(self, value):
        self.y = value - self.x

    @classmethod
    def make(cls, v):
        return cls(v, v)

    @staticmethod
    def helper(v):
        return v * 10


c = Child(1, 2)
print(c, c.describe(), c.total, Child.make(3), Child.helper(4))
c.total = 10
print(c.y, sorted([Base(3), Base(1), Base(2)]), {Base(1), Base(1)}, Base(1) == Base(1))


class Vec:
    __slots__ = ("a", "b")

    def __init__(self, a, b):
        self.a, self.b = a, b

    def __add__(self, o):
        return Vec(self.a + o.a, self.b + o.b)

    def __iadd__(self, o):
        self.a += o.a
        return self

    def __mul__(self, k):
        return Vec(self.a * k, self.b * k)

    __rmul__ = __mul__

    def __neg__(self):
        return Vec(-self.a, -self.b)

    def __getitem__(self, i):
        return (self.a, self.b)[i]

    def __len__(self):
        return 2

    def __iter__(self):
        yield self.a
        yield self.b

    def __bool__(self):
        return bool(self.a or self.b)

    def __contains__(self, v):
        return v in (self.a, self.b)

    def __call__(self, k):
        return self.a * k

    def __repr__(self):
        return f"Vec({self.a}, {self.b})"

    def __enter__(self):
        print("enter")
        return self

    def __exit__(self, *exc):
        print("exit", exc[0])
        return False


v = Vec(1, 2) + Vec(3, 4)
v += Vec(1, 1)
print(v, 2 * v, -v, v[0], list(v), len(v), bool(Vec(0, 0)), 3 in v, v(3), sorted(v, reverse=True))
with Vec(5, 6) as w:
    print(w.a)
try:
    w.c = 1
except AttributeError as exc:
    print("AttributeError:", exc)


class Meta(type):
    def __new__(mcls, name, bases, ns, **kw):
        ns["tag"] = kw.get("tag", "none")
        return super().__new__(mcls, name, bases, ns)

    def __call__(cls, *args):
        obj = super().__call__(*args)
        obj.made_by_meta = True
        return obj


class Tagged(metaclass=Meta, tag="T"):
    def __init__(self, v):
        self.v = v


t = Tagged(3)
print(Tagged.tag, t.v, t.made_by_meta, type(Tagged).__name__)


class Registry:
    subclasses = []

    def __init_subclass__(cls, **kw):
        super().__init_subclass__()
        Registry.subclasses.append((cls.__name__, kw))


class R1(Registry, flavor="x"):
    pass


print(Registry.subclasses)


class WithClassCell:
    def who(self):
        return __class__.__name__


print(WithClassCell().who())


class Desc:
    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, objtype=None):
        return f"desc {self.name} of {objtype.__name__}"


class UsesDesc:
    field = Desc()


print(UsesDesc().field, UsesDesc.field)


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __eq__(self, other):
        return (self.x, self.y) == (other.x, other.y)


p = pickle.loads(pickle.dumps(Point(1, 2)))
print(p == Point(1, 2), type(p) is Point)


class Getattr:
    def __getattr__(self, name):
        return name.upper()


print(Getattr().anything)
print(Child.__mro__, Child.__qualname__, Child.describe.__qualname__)


class Ann:
    a: int
    b: str = "x"


print(Ann.__annotations__, Ann.b)


class Counter:
    def __init__(self):
        self.n = 0

    def __iter__(self):
        return self

    def __next__(self):
        self.n += 1
        if self.n > 3:
            raise StopIteration
        return self.n


print(list(Counter()), sum(Counter()), max(Counter()))
print(dict.fromkeys(Counter()), sorted(Counter(), key=lambda v: -v))
