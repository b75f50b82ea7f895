"""LOAD_GLOBAL: MODULE, BUILTIN, keys versions (adding a global misses, rebinding does not)."""

from tests.interp.specialize.harness import assert_same_sites


def test_module_and_builtin():
    assert_same_sites("""
G = 1
def f():
    return G + len([1])
WATCH = ["f"]
def drive(record):
    for i in range(5):
        assert f() == 2
        record()
""")


def test_rebinding_does_not_miss_adding_misses_until_53rd():
    assert_same_sites("""
G = 1
def f():
    return G
def g():
    return len(())
WATCH = ["f", "g"]
def drive(record):
    for i in range(3):
        f(); g()
    record()
    global G
    for i in range(10):
        G = i
        assert f() == i
        record()
    globals()['NEW'] = 1              # a new key: the keys version changes
    for i in range(60):
        assert f() == 9
        assert g() == 0
        record()
""")


def test_deleting_and_shadowing_a_builtin():
    assert_same_sites("""
def f():
    return len('ab')
WATCH = ["f"]
def drive(record):
    for i in range(3):
        assert f() == 2
    record()
    globals()['len'] = lambda x: 'mine'   # shadows the builtin in the globals
    for i in range(60):
        assert f() == 'mine'
        record()
    del globals()['len']
    for i in range(60):
        assert f() == 2
        record()
""")


def test_builtins_change_is_seen():
    assert_same_sites("""
import builtins
def f():
    return my_builtin
WATCH = ["f"]
def drive(record):
    builtins.my_builtin = 1
    try:
        for i in range(3):
            assert f() == 1
        record()
        builtins.my_builtin = 2
        assert f() == 2
        record()
        del builtins.my_builtin
        for i in range(5):
            try:
                f()
            except NameError:
                pass
            else:
                raise AssertionError('expected NameError')
            record()
    finally:
        if hasattr(builtins, 'my_builtin'):
            del builtins.my_builtin
""")


def test_undefined_name_fails():
    assert_same_sites("""
def f():
    try:
        return undefined_name
    except NameError:
        return None
WATCH = ["f"]
def drive(record):
    for i in range(30):
        assert f() is None
        record()
""")


def test_fresh_module_dict_gets_a_version():
    assert_same_sites("""
src = '''
X = 5
def h():
    return X
'''
ns = {}
exec(src, ns)
h = ns['h']
WATCH = ["h"]
def drive(record):
    for i in range(5):
        assert h() == 5
        record()
""")


def test_deleting_and_readding_a_global():
    assert_same_sites("""
G = 1
def f():
    try:
        return G
    except NameError:
        return 'gone'
WATCH = ["f"]
def drive(record):
    global G
    for i in range(3):
        assert f() == 1
    record()
    del G
    for i in range(60):
        assert f() == 'gone'
        record()
    G = 2
    for i in range(60):
        assert f() == 2
        record()
""")


def test_globals_an_instance_dict_whose_keys_another_instance_changes():
    """Globals that are an instance's __dict__ (split: its keys shared with the other
    instances, its values not in their entries).  LOAD_GLOBAL_MODULE misses on every
    execution there (CPython's reads the value from the entries); LOAD_GLOBAL_BUILTIN
    does not; and another instance adding an attribute changes the keys version the
    sites were specialized for, though this dict itself did not change."""
    assert_same_sites("""
class NS:
    def __init__(self, g):
        self.G = g
        self.__builtins__ = __builtins__
a, b = NS(1), NS(2)
exec("def f():\\n    return G\\ndef g():\\n    return len(())\\n", vars(a))
f, g = vars(a)["f"], vars(a)["g"]
WATCH = ["f", "g"]
def drive(record):
    for i in range(40):
        assert f() == 1
        assert g() == 0
    record()
    b.H = 3
    for i in range(60):
        assert f() == 1
        assert g() == 0
        record()
""")
