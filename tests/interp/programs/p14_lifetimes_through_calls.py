"""When arguments die: a callee that deletes its parameter frees the object there and
then, as in CPython (a call, a keyword call, a method, a property, __getitem__,
__init__), however the call is made and run."""
class Noisy:
    def __init__(self, n): self.n = n
    def __del__(self): print("deleted", self.n)
def consume(o, k=1):
    del o
    print("after del", k)
def consume_kw(o, *, k):
    del o
    print("after del kw", k)
class M:
    def eat(self, o, k=2):
        del o
        print("after del m", k)
m = M()
for i in range(3):
    consume(Noisy(i))
    consume(Noisy(i), k=5)
    consume_kw(Noisy(i), k=3)
    m.eat(Noisy(i))
    f = m.eat
    f(Noisy(i), 7)
    consume(*[Noisy(i)])
class Box:
    def __init__(self, n): self.n = n
    def __del__(self): print("deleted box", self.n)
    @property
    def prop(self):
        del self
        print("after del prop")
        return 1
    def __getitem__(self, k):
        del self, k
        print("after del getitem")
        return 2
def use(b):
    return b.prop
def use_item(b):
    return b[Noisy(-1)]
for i in range(4):
    use(Box(i))
    use_item(Box(i))
class Tmp:
    def __init__(self, o):
        del o
        print("after del init")
for i in range(4):
    Tmp(Noisy(10 + i))
