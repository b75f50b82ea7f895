"""Attributes: LOAD_ATTR, STORE_ATTR, DELETE_ATTR, LOAD_SUPER_ATTR."""

from quickening.interp.ops.registry import NULL, handles, name, traced_on
from quickening.interp.ops import registry as _registry

# (assigned, not imported: CPython 3.13 compiles a method call on a name an import
# binds without its method form, which the host cannot specialize -- test_layers.py)
INTERCEPTS = _registry.INTERCEPTS


def _attr(info, oparg, pc, nxt):
    return (info.names[oparg >> 1], oparg & 1)


@handles("LOAD_ATTR", decode=_attr)
def load_attr(f, stack, arg, nxt):
    attr = getattr(stack[-1], arg[0])
    if arg[1]:
        # method-call form: (attr, NULL) calls attr with no implicit self
        stack[-1] = attr
        stack.append(NULL)
    else:
        stack[-1] = attr
    return nxt


@handles("STORE_ATTR", decode=name)
def store_attr(f, stack, arg, nxt):
    owner = stack.pop()
    setattr(owner, arg, stack.pop())
    if f.trace is not None:
        return traced_on(f, nxt)    # (`sys._getframe().f_trace = fn` sets this frame's)
    return nxt


@handles("DELETE_ATTR", decode=name)
def delete_attr(f, stack, arg, nxt):
    delattr(stack.pop(), arg)
    return nxt


def _super_attr(info, oparg, pc, nxt):
    return (info.names[oparg >> 2], oparg & 1, oparg & 2)


@handles("LOAD_SUPER_ATTR", decode=_super_attr)
def load_super_attr(f, stack, arg, nxt):
    self_ = stack.pop()
    cls = stack.pop()
    global_super = stack.pop()
    attrname, method, two_args = arg
    if global_super is super and isinstance(cls, type):
        proxy = super(cls, self_)
    elif two_args:
        proxy = global_super(cls, self_)
    else:
        special = INTERCEPTS.get(id(global_super))
        proxy = special(f, global_super, (), None) if special else global_super()
    stack.append(getattr(proxy, attrname))
    if method:
        stack.append(NULL)
    return nxt
