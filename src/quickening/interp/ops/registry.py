"""The handler table: one slot per opcode number.

`handles("NAME", decode=fn)` registers a handler and optionally a decoder
that turns the raw oparg into what the handler wants (a constant, a name, a
jump target ...) once, when the code object is decoded.
"""

from quickening.interp import generated, host

HANDLERS = [None] * 256
DECODERS = [None] * 256
# id(builtin) -> handler(frame, func, args, kwargs) answering calls of builtins that
# look at their caller's frame (registered by runtime.py; the CALL handlers read it)
INTERCEPTS = {}
# the method definitions (PyMethodDef addresses) of the intercepted builtins
INTERCEPTED_DEFS = set()

# Negative return values from a handler: the loop must switch frames.
SWITCH = -1      # frame.callee holds the frame to enter
RETURN = -2      # frame.retval holds the value to return to the caller
YIELD = -3       # frame.retval holds the value to yield
RESUME = -5      # frame.callee was entered on the host stack (loop.enter) and stopped:
                 # carry on in it where it stopped (-4 marks a frame finished by an exception)
TRACE = -6       # the frame may be traced now (code it called set its trace function):
                 # go on at frame.pc through the loop, which traces it


def traced_on(f, nxt):
    """A handler's end where the frame may just have been given a trace function (by
    its own code, or code it called): the loop goes on at nxt, tracing it."""
    f.pc = nxt
    return TRACE


def handles(*names, decode=None):
    def register(fn):
        for name in names:
            op = host.OPMAP[name]
            HANDLERS[op] = fn
            DECODERS[op] = decode
        return fn
    return register


def statement_handlers(scope, table):
    """Handlers that are a few statements on the stack: {NAME: "statement; ..."} makes,
    in the module whose globals are scope, `def name(f, stack, arg, nxt)` (name: NAME in
    lower case) running the statements, then going on to the next instruction unless
    the last one returns; each registered as `handles(NAME)` registers it.  The same
    functions a `def` of each would be (no call added per instruction), from one
    table a reader takes in at a glance; linecache finds their source (generated.py)."""
    lines = []
    for opname, statements in table.items():
        body = statements.split("; ")
        if not body[-1].startswith("return "):
            body.append("return nxt")
        lines += [f"def {opname.lower()}(f, stack, arg, nxt):"] + ["    " + s for s in body] + [""]
    source = "\n".join(lines)
    # (run in a copy of the module's globals: in them linecache would find the
    # module's own source under the handlers' file name)
    code = generated.compile_registered("handlers", source, scope["__name__"])
    namespace = generated.namespace(code, scope)
    exec(code, namespace)
    for opname in table:
        handler = scope[opname.lower()] = namespace[opname.lower()]
        handles(opname)(handler)


# common decoders ------------------------------------------------------------
def const(info, oparg, pc, nxt):
    return info.code.co_consts[oparg]


def name(info, oparg, pc, nxt):
    return info.names[oparg]


def forward(info, oparg, pc, nxt):
    return nxt + oparg


def backward(info, oparg, pc, nxt):
    return nxt - oparg


def localname(info, oparg, pc, nxt):
    return info.localsplus[oparg]


class _Null:
    """The C NULL that some stack slots hold (a missing `self`, an unbound local)."""
    __slots__ = ()

    def __repr__(self):
        return "<NULL>"

    def __reduce__(self):
        return "NULL"


NULL = _Null()


import ctypes as _ctypes

# NULL is not one of the program's objects: untracked, gc.get_objects() does not
# list it (an instance of a class is tracked), so a program iterating over them
# cannot meet it -- a `for` loop over the list would stop there (FOR_ITER takes
# NULL for the end), a variable holding it would read as unbound.  (It holds no
# references: the collector has nothing to find in it.)
_gc_untrack = _ctypes.pythonapi.PyObject_GC_UnTrack
_gc_untrack.argtypes = [_ctypes.py_object]
_gc_untrack.restype = None
_gc_untrack(NULL)

_sequence_check = _ctypes.pythonapi.PySequence_Check
_sequence_check.argtypes = [_ctypes.py_object]
_sequence_check.restype = _ctypes.c_int


def star_iterable(obj):
    """What `*obj` accepts before trying: a type with tp_iter, or a sequence (sq_item)."""
    return hasattr(type(obj), "__iter__") or _sequence_check(obj) == 1


def tp_name(t):
    """A type's tp_name (the C string CPython's error messages print: "sys.flags",
    "typing.TypeVar"; a class statement's type has just its name)."""
    name = _ctypes.c_char_p.from_address(id(t) + 24).value   # PyTypeObject.tp_name
    return name.decode("utf-8", "replace") if name else t.__name__
