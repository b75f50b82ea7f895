"""Structural pattern matching: MATCH_MAPPING, MATCH_SEQUENCE, MATCH_KEYS, MATCH_CLASS."""

from quickening.interp.ops.registry import handles

_TPFLAGS_SEQUENCE = 1 << 5
_TPFLAGS_MAPPING = 1 << 6
_TPFLAGS_MATCH_SELF = 1 << 22
_MISSING = object()


@handles("MATCH_MAPPING")
def match_mapping(f, stack, arg, nxt):
    stack.append(bool(type(stack[-1]).__flags__ & _TPFLAGS_MAPPING))
    return nxt


@handles("MATCH_SEQUENCE")
def match_sequence(f, stack, arg, nxt):
    stack.append(bool(type(stack[-1]).__flags__ & _TPFLAGS_SEQUENCE))
    return nxt


@handles("MATCH_KEYS")
def match_keys(f, stack, arg, nxt):
    keys = stack[-1]
    subject = stack[-2]
    if not keys:
        stack.append(())
        return nxt
    get = subject.get
    seen = set()
    values = []
    dummy = _MISSING
    for key in keys:
        if key in seen:
            raise ValueError(f"mapping pattern checks duplicate key ({key!r})")
        seen.add(key)
        value = get(key, dummy)
        if value is dummy:
            stack.append(None)
            return nxt
        values.append(value)
    stack.append(tuple(values))
    return nxt


def _match_class_attr(subject, cls, attrname, seen):
    if attrname in seen:
        raise TypeError(f"{cls.__name__}() got multiple sub-patterns for attribute {attrname!r}")
    seen.add(attrname)
    try:
        return getattr(subject, attrname)
    except AttributeError:
        return _MISSING


def match_class(subject, cls, nargs, kwnames):
    if not isinstance(cls, type):
        raise TypeError("called match pattern must be a class")
    if not isinstance(subject, cls):
        return None
    seen = set()
    attrs = []
    if nargs:
        match_self = False
        try:
            match_args = cls.__match_args__
        except AttributeError:
            match_args = _MISSING
        if match_args is _MISSING:
            match_self = bool(cls.__flags__ & _TPFLAGS_MATCH_SELF)
            allowed = 1 if match_self else 0
            match_args = ()
        else:
            if type(match_args) is not tuple:
                raise TypeError(f"{cls.__name__}.__match_args__ must be a tuple "
                                f"(got {type(match_args).__name__})")
            allowed = len(match_args)
        if nargs > allowed:
            plural = "" if allowed == 1 else "s"
            raise TypeError(f"{cls.__name__}() accepts {allowed} positional sub-pattern{plural} "
                            f"({nargs} given)")
        if match_self:
            attrs.append(subject)
        else:
            for i in range(nargs):
                attrname = match_args[i]
                if type(attrname) is not str:
                    raise TypeError(f"__match_args__ elements must be strings "
                                    f"(got {type(attrname).__name__})")
                value = _match_class_attr(subject, cls, attrname, seen)
                if value is _MISSING:
                    return None
                attrs.append(value)
    for attrname in kwnames:
        value = _match_class_attr(subject, cls, attrname, seen)
        if value is _MISSING:
            return None
        attrs.append(value)
    return tuple(attrs)


@handles("MATCH_CLASS")
def match_class_op(f, stack, arg, nxt):
    kwnames = stack.pop()
    cls = stack.pop()
    subject = stack.pop()
    stack.append(match_class(subject, cls, arg, kwnames))
    return nxt
