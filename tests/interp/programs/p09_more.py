# deletions of every kind, annotation scopes in classes, small corners
class Obj:
    pass


o = Obj()
o.attr = 1
del o.attr
print(hasattr(o, "attr"))


def deleting_cells():
    value = 1

    def reader():
        return value
    del value
    try:
        reader()
    except NameError as exc:
        print(exc)


deleting_cells()
temp_global = 1


def drop_global():
    global temp_global
    del temp_global


drop_global()
print("temp_global" in globals())
try:
    drop_global()
except NameError as exc:
    print(exc)


class Outer:
    Inner = int
    type Alias = Inner
    type Pair[T] = tuple[T, Inner]

    def method[T](self, x: T) -> Inner:
        return x


print(Outer.Alias.__value__, Outer.Pair.__value__, Outer().method(3))
for i in range(2):
    for j in "ab":
        pass
print(i, j)
print(*(x for x in range(3)), sep=",")
