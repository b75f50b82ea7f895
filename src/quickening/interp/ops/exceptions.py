"""Raising and handling: RAISE_VARARGS, RERAISE, PUSH_EXC_INFO, except/except*, with."""

from quickening.interp import frameview, handled
from quickening.interp.ops.registry import NULL, handles, tp_name


@handles("RAISE_VARARGS")
def raise_varargs(f, stack, arg, nxt):
    if arg == 0:
        exc = handled.current()
        if exc is None:
            raise RuntimeError("No active exception to reraise")
        # a bare `raise` re-raises without a new traceback entry for this frame,
        # and (like CPython's RERAISE) leaves the exception's __context__ alone
        f.no_tb = True
        handled.raise_unchanged([exc])
    if arg == 1:
        exc = stack.pop()
        raise exc
    cause = stack.pop()
    exc = stack.pop()
    raise exc from cause


@handles("RERAISE")
def reraise(f, stack, arg, nxt):
    exc = stack.pop()
    if arg:
        f.entry_lasti = stack[-arg]
    f.no_tb = True
    handled.raise_unchanged([exc])  # a re-raise does not set __context__


@handles("PUSH_EXC_INFO")
def push_exc_info(f, stack, arg, nxt):
    exc = stack[-1]
    if isinstance(exc, BaseException):
        frameview.release_own_entry(f, exc)
    if f.gen is not None:
        # CPython saves the innermost slot: a generator's own exception state,
        # empty (None) unless the generator is already handling one
        exc_stack = f.exc_stack
        if exc_stack is None:
            exc_stack = f.exc_stack = []
        stack[-1] = exc_stack[-1] if exc_stack else None
        exc_stack.append(exc)
    else:
        stack[-1] = handled.current()
    stack.append(exc)
    handled.set_handled(exc)
    return nxt


@handles("POP_EXCEPT")
def pop_except(f, stack, arg, nxt):
    handled.set_handled(stack.pop())
    if f.exc_stack:
        f.exc_stack.pop()
    return nxt


_NOT_BASE_EXCEPTION = "catching classes that do not inherit from BaseException is not allowed"


def _check_except_type(match_type):
    if isinstance(match_type, tuple):
        for t in match_type:
            if not (isinstance(t, type) and issubclass(t, BaseException)):
                raise TypeError(_NOT_BASE_EXCEPTION)
    elif not (isinstance(match_type, type) and issubclass(match_type, BaseException)):
        raise TypeError(_NOT_BASE_EXCEPTION)


def exception_matches(exc, match_type):
    """PyErr_GivenExceptionMatches: plain subtype checks, no __subclasscheck__."""
    mro = type(exc).__mro__ if isinstance(exc, BaseException) else getattr(exc, "__mro__", ())
    if isinstance(match_type, tuple):
        return any(exception_matches(exc, t) for t in match_type)
    return match_type in mro


@handles("CHECK_EXC_MATCH")
def check_exc_match(f, stack, arg, nxt):
    match_type = stack.pop()
    _check_except_type(match_type)
    stack.append(exception_matches(stack[-1], match_type))
    return nxt


@handles("CHECK_EG_MATCH")
def check_eg_match(f, stack, arg, nxt):
    match_type = stack.pop()
    exc = stack.pop()
    _check_except_type(match_type)
    types_ = match_type if isinstance(match_type, tuple) else (match_type,)
    if any(issubclass(t, BaseExceptionGroup) for t in types_):
        raise TypeError("catching ExceptionGroup with except* is not allowed. "
                        "Use except instead.")
    if exc is None:
        match, rest = None, None
    elif exception_matches(exc, match_type):
        if isinstance(exc, BaseExceptionGroup):
            match = exc
        else:
            match = BaseExceptionGroup("", (exc,))
        rest = None
    elif isinstance(exc, BaseExceptionGroup):
        match, rest = exc.split(match_type)
    else:
        match, rest = None, exc
    stack.append(rest)
    stack.append(match)
    if match is not None:
        handled.set_handled(match)
        if f.exc_stack:
            # a generator's own exception state holds it too (restored when it resumes)
            f.exc_stack[-1] = match
    return nxt


@handles("LOAD_ASSERTION_ERROR")
def load_assertion_error(f, stack, arg, nxt):
    stack.append(AssertionError)
    return nxt


# -- with ------------------------------------------------------------------------
def lookup_special(obj, attrname):
    """_PyObject_LookupSpecial: find on the type's MRO and bind; NULL if absent."""
    t = type(obj)
    for klass in t.__mro__:
        d = klass.__dict__
        if attrname in d:
            attr = d[attrname]
            get = getattr(type(attr), "__get__", None)
            return get(attr, obj, t) if get is not None else attr
    return NULL


def enter_context(f, stack, nxt, enter_name, exit_name, protocol):
    """BEFORE_WITH / BEFORE_ASYNC_WITH: (mgr -- exit, enter())."""
    mgr = stack[-1]
    enter = lookup_special(mgr, enter_name)
    if enter is NULL:
        raise TypeError(f"'{tp_name(type(mgr))}' object does not support the {protocol}")
    exit_ = lookup_special(mgr, exit_name)
    if exit_ is NULL:
        raise TypeError(f"'{tp_name(type(mgr))}' object does not support the {protocol} "
                        f"(missed {exit_name} method)")
    stack[-1] = exit_
    f.pc = nxt
    stack.append(enter())
    return nxt


@handles("BEFORE_WITH")
def before_with(f, stack, arg, nxt):
    return enter_context(f, stack, nxt, "__enter__", "__exit__", "context manager protocol")


@handles("WITH_EXCEPT_START")
def with_except_start(f, stack, arg, nxt):
    exc = stack[-1]
    exit_ = stack[-4]
    f.pc = nxt
    stack.append(exit_(type(exc), exc, exc.__traceback__))
    return nxt


# -- except* -------------------------------------------------------------------------
def _same_metadata(a, b):
    return (getattr(a, "__notes__", None) is getattr(b, "__notes__", None)
            and a.__traceback__ is b.__traceback__
            and a.__cause__ is b.__cause__
            and a.__context__ is b.__context__)


def _leaf_ids(exc, into):
    if isinstance(exc, BaseExceptionGroup):
        for sub in exc.exceptions:
            _leaf_ids(sub, into)
    else:
        into.add(id(exc))


def prep_reraise_star(orig, excs):
    """What leaves a try/except* block: new exceptions and the unhandled rest."""
    if not excs:
        return None
    if not isinstance(orig, BaseExceptionGroup):
        return excs[0]
    raised, reraised = [], []
    for e in excs:
        if e is None:
            continue
        (reraised if _same_metadata(e, orig) else raised).append(e)
    reraised_eg = None
    if reraised:
        ids = set()
        for e in reraised:
            _leaf_ids(e, ids)
        reraised_eg = orig.split(lambda leaf: id(leaf) in ids)[0]
    if not raised:
        return reraised_eg
    if reraised_eg is not None:
        raised.append(reraised_eg)
    if len(raised) == 1:
        return raised[0]
    return BaseExceptionGroup("", raised)
