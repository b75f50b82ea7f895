"""A type-version token (interp/typewatch.py) answers what reading the type's tag
answers, also when the token is asked for while the type is being modified:
CPython calls the watchers before it resets the tag, and a callback runs Python
code, where another thread may take the GIL and ask for a token."""
import ctypes

from quickening.interp import facts, typewatch

_api = ctypes.pythonapi
_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.py_object)


def _fresh_class():
    class C:
        def method(self):
            return 1
    C().method()                      # (a lookup gives the class a valid tag)
    return C


def _tag_holds(t, version):
    return facts.type_version(t) == version


def test_a_token_asked_for_during_a_modification_is_false_after_it():
    """A second watcher, called after the interpreter's one (watchers are called
    in the order they were added) while the old tag still reads valid, asks for
    a token of that old version, as another thread could."""
    C = _fresh_class()
    version = facts.type_version(C)
    first = typewatch.token(C, version)     # (starts the interpreter's watcher)
    assert first[0] is True and _tag_holds(C, version)
    asked = []

    def second_watcher(t):
        if t is C:
            asked.append((facts.type_version(t), typewatch.token(t, version)))
        return 0

    callback = _CALLBACK(second_watcher)
    _api.PyType_AddWatcher.argtypes = [_CALLBACK]
    _api.PyType_AddWatcher.restype = ctypes.c_int
    watcher = _api.PyType_AddWatcher(callback)
    assert watcher >= 0
    try:
        _api.PyType_Watch.argtypes = [ctypes.c_int, ctypes.py_object]
        _api.PyType_Watch(watcher, C)
        C.method = lambda self: 2           # the modification
    finally:
        _api.PyType_ClearWatcher.argtypes = [ctypes.c_int]
        _api.PyType_ClearWatcher(watcher)
    (tag_during, during), = asked
    assert tag_during == version            # (the old tag still read valid then)
    C().method()
    # what reading the tag says now, the tokens say
    assert (first[0], during[0]) == (_tag_holds(C, version),) * 2 == (False, False)
    # and a token of the new version is true until the next change
    new = typewatch.token(C, facts.type_version(C))
    assert new[0] is True
    C.method = lambda self: 3
    assert new[0] is False


def test_tokens_follow_the_tag_through_repeated_modifications():
    C = _fresh_class()
    for i in range(20):
        version = facts.type_version(C)
        token = typewatch.token(C, version)
        assert token[0] == _tag_holds(C, version) == True   # noqa: E712
        setattr(C, f"attr{i % 3}", i)
        assert token[0] == _tag_holds(C, version) == False  # noqa: E712
        assert typewatch.token(C, version)[0] is False      # (an ended version)
        C().method()
