X = type("X", (), {})
print(X)
class M(type):
    def __new__(m, n, b, ns):
        return super().__new__(m, n, b, ns)
Y = M("Y", (), {})
print(Y, X.__module__)
class G:
    def __iter__(self): return self
    def __next__(self): return 1
    def throw(self, *a): print("throw", [type(x).__name__ for x in a]); raise StopIteration(5)
def d():
    r = yield from G()
    print("r", r)
g = d(); next(g)
try:
    g.throw(ValueError("v"))
except StopIteration:
    pass
class NS:
    def __getitem__(self, k): raise KeyError(k)
try:
    exec("print(undefined_q)", {}, NS())
except NameError as e:
    print(repr(e), repr(e.__context__))
class Mp:
    def keys(self): return [1]
    def __getitem__(self, k): return 2
def fn(**kw): pass
try:
    fn(**Mp())
except TypeError as e:
    print(e)
