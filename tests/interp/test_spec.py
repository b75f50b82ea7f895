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


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 4), st.lists(st.tuples(st.integers(0, 3), _CHANGES), max_size=6),
       st.integers(0, 3), st.integers(0, 3))
def test_type_version_cheap_and_general_lowerings_answer_alike(n, changes, cached, probe):
    """TYPE_VERSION read from the type object (general) and through a watched token
    (cheap) answer alike for any object, after any sequence of class changes."""
    base, classes = _classes(n)
    cls = classes[cached % n]
    version = facts.assign_type_version(cls)
    keep = []
    for which, change in changes:
        target = classes[which % n]
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
