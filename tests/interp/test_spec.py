"""The specification's vocabulary (interp/spec.py): guards mean one thing in each of
their lowerings, and a declared member's derived handler and fused shape agree."""

from hypothesis import given, settings, strategies as st

from quickening.interp import facts, spec
from quickening.interp.families import binary_op, store_subscr, unpack_sequence

# What may happen to a class between specialization and a later guard: nothing, a
# class attribute set or deleted, a method added, its base modified, another class
# made in between (tags are handed out from one counter).
_CHANGES = st.sampled_from(["none", "set_attr", "del_attr", "add_method", "modify_base",
                            "new_class"])


def _classes(n):
    base = type("Base", (), {"shared": 0})
    return base, [type(f"C{i}", (base,), {"k": i}) for i in range(n)]


def _change(base, classes, changes):
    """Apply (which class, change) pairs; the classes made in between, kept alive."""
    keep = []
    for which, change in changes:
        target = classes[which % len(classes)]
        if change == "set_attr":
            target.k = which
        elif change == "del_attr" and "k" in target.__dict__:
            del target.k
        elif change == "add_method":
            target.m = lambda self: which
        elif change == "modify_base":
            base.shared = which
        elif change == "new_class":
            keep.append(type("Other", (), {}))
        facts.assign_type_version(target)      # (a lookup gives a modified class a new tag)
    return keep


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 4), st.lists(st.tuples(st.integers(0, 3), _CHANGES), max_size=6),
       st.integers(0, 3), st.integers(0, 3))
def test_type_version_cheap_and_general_lowerings_answer_alike(n, changes, cached, probe):
    """TYPE_VERSION read from the type object (general) and through a watched token
    (cheap) answer alike for any object, after any sequence of class changes."""
    base, classes = _classes(n)
    cls = classes[cached % n]
    version = facts.assign_type_version(cls)
    keep = _change(base, classes, changes)
    obj = classes[probe % n]()
    general = spec.TYPE_VERSION.holds(x=obj, version=version)
    cheap = spec.TYPE_VERSION.holds_cheaply(x=obj, version=version, cls=cls)
    assert general == cheap
    del keep


def _run(handler, stack):
    """Run a member's handler on a stack; 'miss' when its guard fails."""
    class Site:
        misses = 0
    site = Site()
    handler.__globals__["base"] = lambda f, stack, site, nxt: "miss"
    try:
        result = handler(None, stack, site, 7)
    finally:
        handler.__globals__["base"] = handler.member.family.base_handler
    return result


def _fused(shape, operands, facts_=()):
    """Evaluate a member's fused shape on operands: its results, or 'miss'."""
    names = {f"c{i}": f"_c{i}" for i in range(len(facts_))}
    ops = [f"_o{i}" for i in range(len(operands))]
    namespace = {f"_o{i}": v for i, v in enumerate(operands)}
    namespace.update({f"_c{i}": v for i, v in enumerate(facts_)})
    if not eval(shape.guard.format(*ops, **names), namespace):
        return "miss"
    try:
        for effect in shape.effects:
            exec(effect.format(*ops, **names), namespace)
        return [eval(r.format(*ops, **names), namespace) for r in shape.results]
    except BaseException as exc:
        if shape.fallible and type(exc).__name__ == shape.fallible:
            return "miss"
        raise


_VALUES = st.one_of(st.integers(-2**31, 2**31), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=3),
                    st.booleans(), st.none())


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([binary_op.ADD_INT, binary_op.SUBTRACT_FLOAT, binary_op.ADD_UNICODE,
                        binary_op.MULTIPLY_INT]), _VALUES, _VALUES)
def test_a_members_handler_and_fused_shape_agree(member, left, right):
    oparg = next(o for o in range(26) if member.serves(o))
    stack = [left, right]
    result = _run(member.handler(oparg), stack)
    fused = _fused(member.handler(oparg).fuse_as(oparg), [left, right])
    if result == "miss":
        assert fused == "miss"
    else:
        assert fused == stack[-1:]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(), max_size=4), st.one_of(st.integers(-3, 5), st.booleans()),
       st.integers())
def test_store_subscr_list_ints_check_left_to_the_store_misses_alike(items, index, value):
    """STORE_SUBSCR_LIST_INT's range check is left to the store in fused runs (an
    IndexError is the miss): both lowerings miss on the same operands."""
    member = store_subscr.LIST_INT
    by_handler = list(items)
    result = _run(member.handler(0), [value, by_handler, index])
    by_shape = list(items)
    fused = _fused(member.handler(0).fuse_as(0), [value, by_shape, index])
    assert (result == "miss") == (fused == "miss")
    assert by_handler == by_shape


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.tuples(), st.tuples(st.integers()), st.tuples(st.integers(), st.text()),
                 st.lists(st.integers(), max_size=3)), st.integers(0, 3))
def test_unpack_sequence_members_agree(seq, oparg):
    for member in (unpack_sequence.TWO_TUPLE, unpack_sequence.TUPLE, unpack_sequence.LIST):
        if not member.serves(oparg):
            continue
        stack = [seq]
        result = _run(member.handler(oparg), stack)
        fused = _fused(member.handler(oparg).fuse_as(oparg), [seq])
        if result == "miss":
            assert fused == "miss"
        else:
            assert fused == stack


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 4), st.lists(st.tuples(st.integers(0, 3), _CHANGES), max_size=6),
       st.integers(0, 3), st.sampled_from(["class", "instance", "other"]))
def test_class_version_cheap_and_general_lowerings_answer_alike(n, changes, cached, probe):
    """LOAD_ATTR_CLASS's CLASS_VERSION: the class's tag read from memory (general)
    and the class seen plus its watched token (cheap) agree, for the class itself,
    an instance of it or another class, after any class changes."""
    from quickening.interp.families import load_attr
    base, classes = _classes(n)
    cls = classes[cached % n]
    version = facts.assign_type_version(cls)
    keep = _change(base, classes, changes)
    x = {"class": cls, "instance": cls(), "other": classes[(cached + 1) % n]}[probe]
    general = load_attr.CLASS_VERSION.holds(x=x, version=version)
    cheap = load_attr.CLASS_VERSION.holds_cheaply(x=x, version=version, cls=cls)
    assert bool(general) == bool(cheap)
    del keep


_FUNCTION_CHANGES = st.sampled_from(["none", "code", "defaults", "kwdefaults", "annotations"])


@settings(max_examples=100, deadline=None)
@given(st.lists(_FUNCTION_CHANGES, max_size=3), st.sampled_from(["seen", "other", "builtin"]))
def test_function_version_cheap_and_general_lowerings_answer_alike(changes, probe):
    """FUNCTION_VERSION: the version read by the object's address (general) and through
    the view of the function seen at specialization, else by address (cheap), agree
    after changes that reset a function's version."""
    def seen(a, b=1):
        return a + b

    def other(a, b=1):
        return a - b
    version = facts.assign_function_version(seen)
    facts.assign_function_version(other)
    for change in changes:
        if change == "code":
            seen.__code__ = other.__code__
        elif change == "defaults":
            seen.__defaults__ = (2,)
        elif change == "kwdefaults":
            seen.__kwdefaults__ = {}
        elif change == "annotations":
            seen.__annotations__ = {"a": int}
    fn = {"seen": seen, "other": other, "builtin": len}[probe]
    general = spec.FUNCTION_VERSION.holds(fn=fn, func_version=version)
    cheap = spec.FUNCTION_VERSION.holds_cheaply(fn=fn, func_version=version, seen=seen)
    assert bool(general) == bool(cheap)


_OBJECT_CHANGES = st.sampled_from(["set", "new_name", "del", "dict", "vars_update", "many"])


@settings(max_examples=150, deadline=None)
@given(st.lists(_OBJECT_CHANGES, max_size=5))
def test_store_attr_no_dict_guard_cheap_and_general_answer_alike(changes):
    """STORE_ATTR_INSTANCE_VALUE's NO_DICT_VALUES_VALID: 'no dict and inline values
    valid' (general) and 'no dict' (cheap) agree on objects whose dict is made,
    whose attributes are added, deleted, or overflow the inline values."""
    from quickening.interp.families import store_attr

    class Point:
        def __init__(self):
            self.x, self.y = 1, 2
    Point()                       # (the shared keys learn x and y)
    o = Point()
    for i, change in enumerate(changes):
        if change == "set":
            o.x = i
        elif change == "new_name":
            setattr(o, f"n{i}", i)
        elif change == "del" and hasattr(o, "x"):
            del o.x
        elif change == "dict":
            o.__dict__
        elif change == "vars_update":
            vars(o).update(z=i)
        elif change == "many":
            for j in range(40):
                setattr(o, f"m{j}", j)
    valid_offset = Point.__basicsize__ + 3
    general = store_attr.NO_DICT_VALUES_VALID.holds(x=o, valid_offset=valid_offset)
    cheap = store_attr.NO_DICT_VALUES_VALID.holds_cheaply(x=o, valid_offset=valid_offset)
    assert bool(general) == bool(cheap)
