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
