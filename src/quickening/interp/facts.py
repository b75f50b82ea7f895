"""Facts about objects that Python does not expose, read from memory.

CPython's specializer decides and guards on things like a type's version
tag, whether an instance's inline values are valid, a dict's keys version or
a function's version.  They are read here through memoryviews over the
process's address space (built once; an index is an address), which is
several times cheaper than a ctypes object per read.  Nothing here writes
to an object or triggers an action that would change it, except the few
functions named `assign_*`, which do exactly what CPython's specializer does
at the same moment (give a type or a dict's keys a version).

The offsets are those of CPython 3.13 on 64-bit builds; `verify()` checks
them against live objects at import and specialization is switched off if
they do not hold.
"""

import array
import ctypes
import sys

_WINDOW = (ctypes.c_ubyte * (1 << 47)).from_address(0)
MEM8 = memoryview(_WINDOW).cast("B")
MEM32 = MEM8.cast("I")
MEM64 = MEM8.cast("Q")


def bytes_from(offset, _views={}):
    """A byte view over the address space starting `offset` bytes in: its index
    is an object's address (id) and it reads the byte at that offset in the
    object, one addition cheaper than MEM8[id(o) + offset].  (One per offset.)"""
    view = _views.get(offset)
    if view is None:
        view = _views[offset] = MEM8[offset:]
    return view

def words_from(offset, size=8, _views={}):
    """A view of `size`-byte words (8 or 4) over the address space `offset` bytes on
    (a multiple of size, negative for the pre-header): its index is an object's
    address over size (id(o) >> 3, id(o) >> 2), and it reads the word at that offset
    in the object -- one operation on big ints (the shift) instead of two, with the
    addition.  (A negative offset starts the view at the top of the address space:
    the index wraps round to the object's own address.)"""
    view = _views.get((offset, size))
    if view is None:
        window = (ctypes.c_ubyte * (1 << 47)).from_address(offset % (1 << 64))
        view = memoryview(window).cast("B").cast("Q" if size == 8 else "I")
        _views[offset, size] = view
    return view


PTR = 8
# PyTypeObject
TYPE_VERSION_TAG = 384
# PyHeapTypeObject.ht_cached_keys (shared keys of instances)
HEAPTYPE_CACHED_KEYS = None  # found by verify()
# PyDictObject (its _ma_watcher_tag: watcher bits, and a stamp from a counter of the
# whole interpreter given anew at each change of the dict)
DICT_TAG = 24
DICT_KEYS = 32
DICT_VALUES = 40
# PyDictKeysObject
KEYS_LOG2_SIZE = 8
KEYS_LOG2_INDEX_BYTES = 9
KEYS_KIND = 10
KEYS_VERSION = 12
KEYS_NENTRIES = 24
KEYS_INDICES = 32
# PyFunctionObject
FUNC_VERSION = 136
# PyGenObject (and coroutines, async generators).gi_frame_state (int8_t, after the
# header, weakreflist, name, qualname, exc_state, origin_or_finalizer and three
# chars) and its values
GEN_FRAME_STATE = 67
FRAME_CREATED, FRAME_SUSPENDED, FRAME_SUSPENDED_YIELD_FROM = 0xFD, 0xFE, 0xFF   # (-3, -2, -1)
FRAME_EXECUTING = 0
# PyFrameObject.f_lineno (int, after ob_refcnt, ob_type, f_back, f_frame, f_trace):
# frame.f_lineno reports it when it is not 0
FRAME_LINENO = 40
# PyFrameObject.f_back (a strong reference, or NULL: then the back frame is computed
# from the executing frame's `previous`) and f_frame (the _PyInterpreterFrame it shows)
FRAME_BACK = 16
FRAME_FRAME = 24
# _PyInterpreterFrame: f_executable (the code it runs: a strong reference), f_locals
# (a strong reference), instr_ptr (f_lasti and, when
# PyFrameObject.f_lineno is 0, f_lineno are read from it), stacktop (how many of
# localsplus are owned), localsplus (fast locals, then the value stack)
IFRAME_EXECUTABLE = 0
IFRAME_LOCALS = 40
IFRAME_INSTR_PTR = 56
IFRAME_STACKTOP = 64
IFRAME_LOCALSPLUS = 72
# offset of co_code_adaptive in PyCodeObject (instr_ptr points into it)
CODE_ADAPTIVE = 200
# PyFrameObject._f_frame_data: the frame a frame object owns (once its generator is
# gone, as a stand-in's is: tracebacks.frame_object), so its instr_ptr is at a fixed
# offset from the frame object
FRAME_OWNED_DATA = 64
OWNED_INSTR_PTR = FRAME_OWNED_DATA + IFRAME_INSTR_PTR
# PyGetSetDescrObject.d_getset -> PyGetSetDef {name, get, set, doc, closure}
GETSET_DEF = 40
# PyCodeObject.co_version (what MAKE_FUNCTION gives a new function)
CODE_VERSION = 92
# PyTypeObject slots
TYPE_ALLOC = 304
TYPE_NEW = 312
TYPE_VECTORCALL = 400
# PyCFunctionObject.m_ml and PyMethodDescrObject.d_method -> PyMethodDef;
# PyMethodDef.ml_meth / ml_flags
CFUNC_ML = 16
DESCR_METHOD = 40
ML_METH = 8
ML_FLAGS = 16
# calling conventions (methodobject.h)
METH_VARARGS = 0x0001
METH_KEYWORDS = 0x0002
METH_NOARGS = 0x0004
METH_O = 0x0008
METH_CLASS = 0x0010
METH_STATIC = 0x0020
METH_COEXIST = 0x0040
METH_FASTCALL = 0x0080
METH_METHOD = 0x0200
METH_CONVENTION_MASK = (METH_VARARGS | METH_FASTCALL | METH_NOARGS | METH_O
                        | METH_KEYWORDS | METH_METHOD)
# managed dict pointer, before the object header
MANAGED_DICT = -3 * PTR

# type flags (3.13)
TPFLAGS_INLINE_VALUES = 1 << 2
TPFLAGS_MANAGED_WEAKREF = 1 << 3
TPFLAGS_MANAGED_DICT = 1 << 4
TPFLAGS_SEQUENCE = 1 << 5
TPFLAGS_MAPPING = 1 << 6
TPFLAGS_IMMUTABLETYPE = 1 << 8
TPFLAGS_HEAPTYPE = 1 << 9
TPFLAGS_METHOD_DESCRIPTOR = 1 << 17
TPFLAGS_VALID_VERSION_TAG = 1 << 19

_assign_type_version = ctypes.pythonapi.PyUnstable_Type_AssignVersionTag
_assign_type_version.argtypes = [ctypes.py_object]
_assign_type_version.restype = ctypes.c_int


def set_frame_lineno(frame, line):
    """Make a frame object report `line` as its f_lineno."""
    MEM32[(id(frame) + FRAME_LINENO) >> 2] = line


# own function objects (ctypes.pythonapi.X is one object shared with whoever sets
# its argtypes: handled.py passes Py_IncRef objects, these take addresses)
_incref = ctypes.PYFUNCTYPE(None, ctypes.c_void_p)(("Py_IncRef", ctypes.pythonapi))
_decref = ctypes.PYFUNCTYPE(None, ctypes.c_void_p)(("Py_DecRef", ctypes.pythonapi))


# CPython 3.12+ on 64 bits: an object is immortal when the low 32 bits of its
# refcount, as a signed int, are negative (Py_INCREF and Py_DECREF leave it alone);
# any other's count fits there, so it can be changed in memory (GIL held) but for
# the decrement to 0, which must deallocate (Py_DecRef)
IMMORTAL_LOW = 0x80000000
IMMORTAL_REFCNT = 0xFFFFFFFF     # (_Py_IMMORTAL_REFCNT: what an object made immortal holds)


def _set_reference(addr, new):
    """Store a strong reference to the object at address new (0: NULL) in the pointer
    at addr, releasing the one it held.  True if it changed."""
    old = MEM64[addr >> 3]
    if old == new:
        return False
    if new:
        _incref(new)
    MEM64[addr >> 3] = new
    if old:
        _decref(old)    # (last: it may run arbitrary code)
    return True


def frame_back_address(frame):
    """Address of the object in frame.f_back's field (0: NULL)."""
    return MEM64[(id(frame) + FRAME_BACK) >> 3]


def set_frame_back(frame, back):
    """Make `back` (a frame object, or None) what frame.f_back reports: the field
    holds a strong reference, as after CPython links a finished frame to its caller
    (frame must be one whose _PyInterpreterFrame has no `previous`: not executing)."""
    at = (id(frame) + FRAME_BACK) >> 3
    new = 0 if back is None else id(back)
    old = MEM64[at]
    if old == new:
        return False
    if new:
        # Py_INCREF of a frame object (never immortal): its refcount's low word
        MEM32[new >> 2] += 1
    MEM64[at] = new
    if old:
        _decref(old)
    return True


def _iframe(frame):
    return MEM64[(id(frame) + FRAME_FRAME) >> 3]


def frame_lasti_units(frame):
    """The code unit instr_ptr points at."""
    return (MEM64[(_iframe(frame) + IFRAME_INSTR_PTR) >> 3] - id(frame.f_code) - CODE_ADAPTIVE) >> 1


def set_frame_lasti(frame, lasti):
    """Point the frame at code unit lasti of its code: its f_lasti is then 2*lasti and
    (with PyFrameObject.f_lineno 0) its f_lineno the line of that instruction."""
    MEM64[(_iframe(frame) + IFRAME_INSTR_PTR) >> 3] = id(frame.f_code) + CODE_ADAPTIVE + 2 * lasti


def set_frame_fast(frame, index, value, bound=True):
    """Store value (or, not bound, NULL) in fast local `index` of a frame that does not
    run (a never-started generator's, owned by its frame object).  True if it changed."""
    f = _iframe(frame)
    if MEM32[(f + IFRAME_STACKTOP) >> 2] <= index:
        # frame.clear() dropped everything (stacktop 0): the slots are NULL; own them again
        MEM32[(f + IFRAME_STACKTOP) >> 2] = len(frame.f_code.co_varnames)
    return _set_reference(f + IFRAME_LOCALSPLUS + 8 * index, id(value) if bound else 0)


def place_frame(frame, lasti):
    """set_frame_lasti unless the frame is there already; True if it moved."""
    at = (MEM64[(id(frame) + FRAME_FRAME) >> 3] + IFRAME_INSTR_PTR) >> 3
    want = id(frame.f_code) + CODE_ADAPTIVE + 2 * lasti
    if MEM64[at] == want:
        return False
    MEM64[at] = want
    return True


def place_owned_frame(frame, code_base, lasti):
    """place_frame for a frame object owning its frame, whose code's co_code_adaptive
    is at address code_base (a stand-in: see tracebacks.place)."""
    at = (id(frame) + OWNED_INSTR_PTR) >> 3
    want = code_base + 2 * lasti
    if MEM64[at] == want:
        return False
    MEM64[at] = want
    return True


def owned_code_swap(old, new):
    """What set_owned_frame_code needs to make frame objects made from code `old`
    report code `new` instead: new's refcount word (None: it is immortal) and its
    address.  `old` is made immortal: the caller keeps it for good, and then the
    frames made from it need not give their references to it back (each operation
    on an address makes a two-digit int, and this runs for every frame made)."""
    MEM64[id(old) >> 3] = IMMORTAL_REFCNT
    return (id(new) >> 2 if MEM32[id(new) >> 2] < IMMORTAL_LOW else None), id(new)


def set_owned_frame_code(frame, swap):
    """Make a frame object owning a frame of code `old`, not started (a stand-in:
    tracebacks.frame_object), report code `new` as its f_code (swap:
    owned_code_swap(old, new)), whose fast locals must be laid out as the frame's.
    Its f_lasti means nothing until it is placed (place_owned_frame)."""
    count_word, address = swap
    if count_word is not None:
        MEM32[count_word] += 1      # (Py_INCREF in memory)
    MEM64[(id(frame) >> 3) + _OWNED_EXECUTABLE_WORD] = address


_OWNED_EXECUTABLE_WORD = (FRAME_OWNED_DATA + IFRAME_EXECUTABLE) >> 3


def set_frame_fast_all(frame, addresses):
    """set_frame_fast for fast locals 0.. len(addresses)-1 at once: addresses are the
    objects' (0: unbound), which the caller keeps alive.  True if any changed."""
    f = MEM64[(id(frame) + FRAME_FRAME) >> 3]
    if MEM32[(f + IFRAME_STACKTOP) >> 2] < len(addresses):
        # (addresses: every fast local: the frame owns them all again)
        MEM32[(f + IFRAME_STACKTOP) >> 2] = len(addresses)
    base = (f + IFRAME_LOCALSPLUS) >> 3
    released = []
    mem32 = MEM32
    for i, new in enumerate(addresses):
        old = MEM64[base + i]
        if old != new:
            if new:
                # Py_INCREF in memory (REFCOUNTS_IN_MEMORY), not for an immortal object
                count = mem32[new >> 2]
                if count < IMMORTAL_LOW:
                    mem32[new >> 2] = count + 1
            MEM64[base + i] = new
            released.append(old)
    for old in released:
        if old:
            # (after the writes: freeing an object may run arbitrary code)
            count = mem32[old >> 2]
            if 1 < count < IMMORTAL_LOW:
                mem32[old >> 2] = count - 1
            elif count < IMMORTAL_LOW:
                _decref(old)
    return bool(released)


def frame_fast_address(frame, index):
    return MEM64[(_iframe(frame) + IFRAME_LOCALSPLUS + 8 * index) >> 3]


def set_frame_locals_mapping(frame, mapping):
    """The mapping a non-optimized frame's f_locals reports (its _PyInterpreterFrame's f_locals)."""
    _set_reference(_iframe(frame) + IFRAME_LOCALS, id(mapping))


def getset_def(descr):
    """Address of a getset descriptor's PyGetSetDef."""
    return MEM64[(id(descr) + GETSET_DEF) >> 3]


def type_version(t):
    """tp_version_tag (0 when the type has no valid version)."""
    return MEM32[(id(t) + TYPE_VERSION_TAG) >> 2]


def assign_type_version(t):
    """The type's version, assigning one as the specializer does; 0 if out of versions."""
    v = MEM32[(id(t) + TYPE_VERSION_TAG) >> 2]
    if v == 0:
        _assign_type_version(t)
        v = MEM32[(id(t) + TYPE_VERSION_TAG) >> 2]
    return v


# type of an object the interpreter hands out in place of a native one -> the native
# one's type (each registered by the module that defines it: frameview.FrameView)
STAND_INS = {}


def stands_for(t):
    """The CPython type that instances of t stand for: objects the interpreter
    hands out in place of native ones (FrameView for frame objects) are
    specialized on as CPython specializes on the native ones; t itself otherwise."""
    return STAND_INS.get(t, t)


def func_version(fn):
    return MEM32[(id(fn) + FUNC_VERSION) >> 2]


def code_version(code):
    return MEM32[(id(code) + CODE_VERSION) >> 2]


def generator_states():
    """A byte view whose index id(g) is generator-like g's gi_frame_state."""
    return bytes_from(GEN_FRAME_STATE)


def assign_function_version(fn):
    """Give fn its code's version, as MAKE_FUNCTION does (FunctionType() leaves 0).

    Written into func_version directly: _PyFunction_SetVersion also files the
    function in the interpreter's version cache, which only the tier-2
    optimizer reads (off in 3.13 builds; a function missing from it is looked
    up as unknown), and a call through ctypes costs ~700 ns per MAKE_FUNCTION."""
    MEM32[(id(fn) + FUNC_VERSION) >> 2] = MEM32[(id(fn.__code__) + CODE_VERSION) >> 2]


# -- C calling conventions: ml_flags of builtin functions and method descriptors ---
def cfunction_def(fn):
    """PyCFunctionObject->m_ml, the address of its PyMethodDef (fn must be a builtin
    function): one per C function, shared by all the bound methods made of it."""
    return MEM64[(id(fn) + CFUNC_ML) >> 3]


def cfunction_flags(fn):
    """PyCFunctionObject->m_ml->ml_flags (fn must be a builtin function)."""
    return MEM32[(MEM64[(id(fn) + CFUNC_ML) >> 3] + ML_FLAGS) >> 2]


def cfunction_has_code(fn):
    """PyCFunctionObject->m_ml->ml_meth is not NULL."""
    return MEM64[(MEM64[(id(fn) + CFUNC_ML) >> 3] + ML_METH) >> 3] != 0


def method_descr_flags(descr):
    """PyMethodDescrObject->d_method->ml_flags (descr must be a method descriptor)."""
    return MEM32[(MEM64[(id(descr) + DESCR_METHOD) >> 3] + ML_FLAGS) >> 2]


def type_has_vectorcall(t):
    return MEM64[(id(t) + TYPE_VECTORCALL) >> 3] != 0


def type_new_is_object_new(t):
    """tp_new == PyBaseObject_Type.tp_new."""
    return MEM64[(id(t) + TYPE_NEW) >> 3] == MEM64[(id(object) + TYPE_NEW) >> 3]


_GENERIC_ALLOC = ctypes.cast(ctypes.pythonapi.PyType_GenericAlloc, ctypes.c_void_p).value


def type_alloc_is_generic(t):
    """tp_alloc == PyType_GenericAlloc."""
    return MEM64[(id(t) + TYPE_ALLOC) >> 3] == _GENERIC_ALLOC


def dict_keys_address(d):
    return MEM64[(id(d) + DICT_KEYS) >> 3]


def dict_keys_version(d):
    return MEM32[(dict_keys_address(d) + KEYS_VERSION) >> 2]


def dict_is_split(d):
    return MEM64[(id(d) + DICT_VALUES) >> 3] != 0


def keys_kind(keys_addr):
    return MEM8[keys_addr + KEYS_KIND]


def keys_entries(keys_addr):
    """The key objects' addresses of a (unicode) keys table, in entry order (0 for deleted)."""
    log2_index_bytes = MEM8[keys_addr + KEYS_LOG2_INDEX_BYTES]
    nentries = MEM64[(keys_addr + KEYS_NENTRIES) >> 3]
    start = keys_addr + KEYS_INDICES + (1 << log2_index_bytes)
    entry_size = 16 if MEM8[keys_addr + KEYS_KIND] != 0 else 24
    key_offset = 0 if entry_size == 16 else 8
    return [MEM64[(start + i * entry_size + key_offset) >> 3] for i in range(nentries)]


def managed_dict(obj):
    """Address of an instance's materialized __dict__, or 0."""
    return MEM64[(id(obj) + MANAGED_DICT) >> 3]


def inline_values_address(obj):
    return id(obj) + type(obj).__basicsize__


def inline_values_valid(obj):
    """3.13: _PyObject_InlineValues(obj)->valid."""
    return MEM8[id(obj) + type(obj).__basicsize__ + 3] != 0


def inline_value_present(obj, index):
    return MEM64[(id(obj) + type(obj).__basicsize__ + 8 + 8 * index) >> 3] != 0


def shared_keys_address(t):
    """ht_cached_keys of a heap type with inline values (0 if none)."""
    if HEAPTYPE_CACHED_KEYS is None:
        return 0
    return MEM64[(id(t) + HEAPTYPE_CACHED_KEYS) >> 3]


def shared_keys_index(t, name):
    """Index of name in the type's shared keys, or -1."""
    keys = shared_keys_address(t)
    if not keys:
        return -1
    target = id(name)
    for i, addr in enumerate(keys_entries(keys)):
        if addr == target:
            return i
    return -1


def verify():
    """Check the offsets on live objects; return a reason string if they are wrong."""
    global HEAPTYPE_CACHED_KEYS
    if sys.version_info[:2] != (3, 13) or ctypes.sizeof(ctypes.c_void_p) != 8:
        return "facts are known for 64-bit CPython 3.13 only"

    class Probe:
        def __init__(self):
            self.alpha_attr = 1
            self.beta_attr = 2
    Probe()
    v1 = assign_type_version(Probe)
    Probe.extra = 1
    v2 = type_version(Probe)
    v3 = assign_type_version(Probe)
    if not (v1 and v2 == 0 and v3 and v3 != v1):
        return "type version tag offset"

    def fn():
        pass
    if func_version(fn) == 0 or func_version(fn) != code_version(fn.__code__):
        return "function version offset"
    import builtins
    import types
    fresh = types.FunctionType(fn.__code__, {})
    assign_function_version(fresh)
    if func_version(fresh) != func_version(fn):
        return "function version assignment"
    if (cfunction_flags(builtins.len) != METH_O
            or cfunction_flags(builtins.isinstance) != METH_FASTCALL
            or cfunction_flags(builtins.globals) != METH_NOARGS
            or method_descr_flags(list.append) != METH_O
            or method_descr_flags(list.copy) != METH_NOARGS
            or not cfunction_has_code(builtins.len)):
        return "method flags layout"
    if (not type_has_vectorcall(int) or type_has_vectorcall(Probe)
            or not type_new_is_object_new(Probe) or type_new_is_object_new(int)
            or not type_alloc_is_generic(Probe)):
        return "type slot offsets"
    d = {"a": 1}
    keys = dict_keys_address(d)
    if keys_entries(keys) != [id("a")]:
        return "dict keys layout"
    # ht_cached_keys: a pointer in the heap type whose keys table holds the attribute names
    want = {id("alpha_attr"), id("beta_attr")}
    base = type.__basicsize__
    for off in range(base - 8 * 40, base, 8):
        addr = MEM64[(id(Probe) + off) >> 3]
        if addr < 4096 or addr >= (1 << 47):
            continue
        try:
            if MEM8[addr + KEYS_LOG2_SIZE] > 16 or MEM8[addr + KEYS_KIND] != 2:
                continue
            if want <= set(keys_entries(addr)):
                HEAPTYPE_CACHED_KEYS = off
                break
        except (IndexError, ValueError):
            continue
    if HEAPTYPE_CACHED_KEYS is None:
        return "shared keys offset"
    obj = Probe()
    if not inline_values_valid(obj) or managed_dict(obj) != 0:
        return "inline values layout"
    tag = MEM64[(id(d) + DICT_TAG) >> 3]
    d["a"] = 2
    if tag == 0 or MEM64[(id(d) + DICT_TAG) >> 3] == tag or MEM64[(id(d) + DICT_VALUES) >> 3]:
        return "dict tag offset"
    obj.__dict__
    if (managed_dict(obj) == 0 or words_from(MANAGED_DICT)[id(obj) >> 3] != managed_dict(obj)
            or words_from(DICT_KEYS)[id(d) >> 3] != keys
            or words_from(TYPE_VERSION_TAG, 4)[id(Probe) >> 2] != type_version(Probe)):
        return "words read from an object's address"

    def gen():
        yield
    frame = gen().gi_frame
    set_frame_lineno(frame, 4321)
    if frame.f_lineno != 4321:
        return "frame f_lineno offset"
    problem = _verify_frame_fields() or _verify_generator_state()
    if problem:
        return problem
    return None


def _verify_generator_state():
    states = generator_states()

    def gen(seen):
        seen.append(states[id(made)])
        yield 1
        yield from iter((2,))

    seen = []
    made = gen(seen)
    created = states[id(made)]
    next(made)
    suspended = states[id(made)]
    next(made)
    delegating = states[id(made)]
    made.close()
    if (created, seen[0], suspended, delegating) != (
            FRAME_CREATED, FRAME_EXECUTING, FRAME_SUSPENDED, FRAME_SUSPENDED_YIELD_FROM):
        return "generator frame state offset"
    return None


def _verify_frame_fields():
    import opcode
    import types
    if types.CodeType.__basicsize__ != CODE_ADAPTIVE:
        return "code co_code_adaptive offset"

    def gen(a, b):
        yield a
    made = gen(10 ** 20, 2)
    frame = made.gi_frame
    del made     # the frame object owns the frame now
    if _iframe(frame) != id(frame) + FRAME_OWNED_DATA:
        return "frame owned data offset"
    other = sys._getframe()
    big = object()
    before = sys.getrefcount(other)
    if frame.f_back is not None or frame_back_address(frame) != 0:
        return "frame f_back offset"
    set_frame_back(frame, other)
    if frame.f_back is not other or sys.getrefcount(other) != before + 1:
        return "frame f_back offset"
    set_frame_back(frame, None)
    if frame.f_back is not None or sys.getrefcount(other) != before:
        return "frame f_back offset"
    if frame_fast_address(frame, 1) != id(2) or MEM32[(_iframe(frame) + IFRAME_STACKTOP) >> 2] != 2:
        return "frame localsplus offset"
    refs = sys.getrefcount(big)
    set_frame_fast(frame, 1, big)
    if frame.f_locals.get("b") is not big or sys.getrefcount(big) != refs + 1:
        return "frame localsplus offset"
    set_frame_fast(frame, 1, None)
    if frame.f_locals.get("b", big) is not None:
        return "frame localsplus offset"
    set_frame_fast(frame, 1, None, bound=False)
    if "b" in frame.f_locals or sys.getrefcount(big) != refs:
        return "frame localsplus offset"
    if not set_frame_fast_all(frame, [id(big), 0]) or frame.f_locals != {"a": big}:
        return "frame localsplus offset"
    set_frame_fast_all(frame, [0, 0])
    if frame.f_locals or sys.getrefcount(big) != refs:
        return "frame localsplus offset"
    if MEM32[id(None) >> 2] < IMMORTAL_LOW or MEM32[id(big) >> 2] >= IMMORTAL_LOW:
        return "immortal refcount"
    start = frame.f_lasti // 2
    if not place_frame(frame, start + 1) or place_frame(frame, start + 1):
        return "frame instr_ptr offset"
    if frame.f_lasti != 2 * (start + 1) or frame_lasti_units(frame) != start + 1:
        return "frame instr_ptr offset"
    code_base = id(frame.f_code) + CODE_ADAPTIVE
    if (not place_owned_frame(frame, code_base, start) or place_owned_frame(frame, code_base, start)
            or frame.f_lasti != 2 * start):
        return "frame instr_ptr offset"
    if MEM64[(_iframe(frame) + IFRAME_LOCALS) >> 3] != 0:
        return "frame f_locals offset"
    # a non-optimized frame (as a stand-in for module code is): f_locals is its namespace
    module = compile("pass\n", "<probe>", "exec")
    body = bytearray(module.co_code)
    body[0:4] = bytes([opcode.opmap["RETURN_GENERATOR"], 0, opcode.opmap["POP_TOP"], 0])
    namespace, other_namespace = {}, {}
    made = types.FunctionType(module.replace(co_code=bytes(body), co_flags=module.co_flags | 0x20,
                                             co_exceptiontable=b""), namespace)()
    unoptimized = made.gi_frame
    del made
    if MEM64[(_iframe(unoptimized) + IFRAME_LOCALS) >> 3] != id(namespace):
        return "frame f_locals offset"
    set_frame_locals_mapping(unoptimized, other_namespace)
    if unoptimized.f_locals is not other_namespace:
        return "frame f_locals offset"
    # PyDescr_COMMON (head, d_type, d_name, d_qualname), then d_getset
    descr = types.FrameType.__dict__["f_lineno"]
    if (MEM64[(id(descr) + 16) >> 3] != id(types.FrameType)
            or MEM64[(id(descr) + 24) >> 3] != id(descr.__name__) or GETSET_DEF != 40):
        return "getset descriptor layout"
    gs = getset_def(descr)
    try:
        if ctypes.string_at(MEM64[gs >> 3]) != b"f_lineno" or not MEM64[(gs + 8) >> 3]:
            return "getset descriptor layout"
    except (IndexError, ValueError, SystemError):
        return "getset descriptor layout"
    code = frame.f_code
    lines = {off // 2: line for off, _, line in code.co_lines()}
    if frame.f_lineno != lines.get(start + 1, frame.f_lineno):
        return "frame instr_ptr offset"
    return None


PROBLEM = verify()


# -- the thread's recursion counter ------------------------------------------------
# PyThreadState.py_recursion_remaining and py_recursion_limit (3.13): the Python
# frames this thread may still push, and its limit.
TSTATE_RECURSION_REMAINING = 44
TSTATE_RECURSION_LIMIT = 48
_thread_state_address = ctypes.pythonapi.PyThreadState_Get
_thread_state_address.restype = ctypes.c_void_p
_thread_state_address.argtypes = ()


def recursion_counter():
    """The calling thread's (py_recursion_remaining, py_recursion_limit,
    c_recursion_remaining) as a signed memoryview (writable), or None where the
    layout is not the one checked here."""
    if PROBLEM is not None:
        return None
    address = _thread_state_address() + TSTATE_RECURSION_REMAINING
    view = MEM8[address:address + 8].cast("i")
    if view[1] != sys.getrecursionlimit():
        return None

    def one_deeper():
        return view[0]
    if one_deeper() != view[0] - 1:
        return None
    return MEM8[address:address + 12].cast("i")


# -- attribute access: type slots, member descriptors, keys versions ---------------
# (used by the LOAD_ATTR / STORE_ATTR / LOAD_SUPER_ATTR families)
TYPE_GETATTRO = 144
TYPE_SETATTRO = 152
TYPE_DESCR_GET = 272
TYPE_DESCR_SET = 280
TYPE_DICTOFFSET = 288
MEMBER_DEF = 40          # PyMemberDescrObject.d_member -> PyMemberDef {name, type, offset, flags}
MODULE_DICT = 16         # PyModuleObject.md_dict
T_OBJECT = 6             # _Py_T_OBJECT
T_OBJECT_EX = 16         # Py_T_OBJECT_EX
READONLY = 1             # Py_READONLY
AUDIT_READ = 2           # Py_AUDIT_READ

GENERIC_GETATTR = ctypes.cast(ctypes.pythonapi.PyObject_GenericGetAttr, ctypes.c_void_p).value
GENERIC_SETATTR = ctypes.cast(ctypes.pythonapi.PyObject_GenericSetAttr, ctypes.c_void_p).value

# _PyType_LookupRef (3.13), not _PyType_Lookup: the address comes with a reference of
# its own.  A borrowed one may be freed before it is made an object here: between
# the two, bytecode runs, another thread may take the GIL and replace the value in
# the type's dict (test_opcache's races: `C.__getattribute__ = ...`), and the
# object made would be freed memory.
_type_lookup_ref = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.py_object)(
    ("_PyType_LookupRef", ctypes.pythonapi))
# the object at an address, with a reference of its own (cheaper than ctypes.cast)
_new_ref = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p)(("Py_NewRef", ctypes.pythonapi))


def type_lookup(t, name, absent=None):
    """_PyType_Lookup: the MRO lookup without descriptors (it assigns a version, as
    CPython's own lookups do); `absent` when absent (pass one that is not None where
    an attribute whose value is None matters)."""
    addr = _type_lookup_ref(t, name)
    if not addr:
        return absent
    value = _new_ref(addr)
    _decref(addr)       # (the lookup's reference: `value` holds its own)
    return value


def type_getattro(t):
    """tp_getattro as an address (compare with GENERIC_GETATTR)."""
    return MEM64[(id(t) + TYPE_GETATTRO) >> 3]


def type_setattro(t):
    return MEM64[(id(t) + TYPE_SETATTRO) >> 3]


def type_has_descr_get(t):
    return MEM64[(id(t) + TYPE_DESCR_GET) >> 3] != 0


def type_has_descr_set(t):
    return MEM64[(id(t) + TYPE_DESCR_SET) >> 3] != 0


def type_dictoffset(t):
    v = MEM64[(id(t) + TYPE_DICTOFFSET) >> 3]
    return v - (1 << 64) if v >= 1 << 63 else v


def member_def(descr):
    """(type, offset, flags) of a member descriptor's PyMemberDef."""
    d = MEM64[(id(descr) + MEMBER_DEF) >> 3]
    return MEM32[(d + 8) >> 2], MEM64[(d + 16) >> 3], MEM32[(d + 24) >> 2]


def module_dict_address(m):
    return MEM64[(id(m) + MODULE_DICT) >> 3]


def keys_entry_address(keys_addr, index):
    """Address of entry `index` of a keys table and the offset of me_key in it."""
    start = keys_addr + KEYS_INDICES + (1 << MEM8[keys_addr + KEYS_LOG2_INDEX_BYTES])
    if MEM8[keys_addr + KEYS_KIND] != 0:
        return start + 16 * index, 0
    return start + 24 * index, 8


def keys_lookup_index(keys_addr, name):
    """Index of the entry whose key is `name` (identity first, then equality), or -1."""
    target = id(name)
    entries = keys_entries(keys_addr)
    for i, addr in enumerate(entries):
        if addr == target:
            return i
    for i, addr in enumerate(entries):
        if addr and type(name) is str:
            key = ctypes.cast(addr, ctypes.py_object).value
            if type(key) is str and key == name:
                return i
    return -1


_next_keys_version = []


def _find_next_keys_version():
    """Address of interp->dict_state.next_keys_version, found by letting CPython
    assign keys versions natively (a LOAD_GLOBAL specializing on fresh globals)
    and watching which word of the interpreter state follows them."""
    import array
    get_interp = ctypes.pythonapi.PyInterpreterState_Get
    get_interp.restype = ctypes.c_void_p
    interp = get_interp()

    def native_assignment():
        # fresh code objects each time: code that ran while sys.settrace was
        # active may stay instrumented, and instrumented sites do not specialize
        g = {"qk_probe_global": 1}
        exec("def f():\n    return qk_probe_global\nf()\nf()\n", g)
        version = dict_keys_version(g)
        g.clear()     # (f and its globals: a cycle the program's gc would find)
        return version

    hi = None
    with open("/proc/self/maps") as fh:
        for line in fh:
            fields = line.split()
            a, b = (int(x, 16) for x in fields[0].split("-"))
            if a <= interp < b:
                hi = b
            elif hi is not None and a == hi and fields[1].startswith("rw"):
                hi = b
    if hi is None:
        return 0
    size = min(hi - interp, 1 << 24) & ~3
    base = interp >> 2
    # the interpreter state's first 128 KiB first (the scan is in Python: ~50 ns a
    # word), then the rest of the mapping
    for lo, end in ((0, min(size, 1 << 17)), (1 << 17, size)):
        if lo >= end:
            break
        # the counter is just above the version handed out last (other code may have
        # taken a few more meanwhile), and it grows from one assignment to the next
        v = native_assignment()
        if not v:
            return 0
        words = array.array("I", MEM8[interp + lo:interp + end].tobytes())
        first = lo >> 2
        candidates = {first + i: w for i, w in enumerate(words) if v < w <= v + 64}
        for _ in range(4):
            v = native_assignment()
            if not v:
                return 0
            # right after a native assignment the counter is exactly one above the
            # version handed out (other counters, e.g. code versions, move differently)
            candidates = {i: MEM32[base + i] for i, w in candidates.items()
                          if w < MEM32[base + i] == v + 1}
        if len(candidates) == 1:
            return interp + 4 * next(iter(candidates))
    return 0


def assign_keys_version(keys_addr):
    """_PyDictKeys_GetVersionForCurrentState: the keys' version, giving them the
    interpreter's next one if they have none; 0 when out of versions."""
    v = MEM32[(keys_addr + KEYS_VERSION) >> 2]
    if v:
        return v
    if not _next_keys_version:
        where = _find_next_keys_version()
        if not where:
            return 0            # not found (tried again at the next attempt)
        _next_keys_version.append(where)
    where = _next_keys_version[0]
    v = MEM32[where >> 2]
    if v == 0:
        return 0
    MEM32[where >> 2] = (v + 1) & 0xFFFFFFFF
    MEM32[(keys_addr + KEYS_VERSION) >> 2] = v
    return v


# -- the built-in getters of generators, called directly -------------------------------
# generators.py replaces the generator types' gi_frame, gi_yieldfrom ... descriptors
# (as frameview.py does the frame type's) so that a program sees its interpreted
# frame; the interpreter itself (FOR_ITER_GEN, SEND_GEN, GET_AWAITABLE) reads the
# native state of the driver.  It calls the original C getter through a method
# descriptor (METH_NOARGS: the getter is called as getter(obj, NULL), and these
# getters ignore their closure), which is cheaper than the attribute read was.
class _MethodDef(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("meth", ctypes.c_void_p), ("flags", ctypes.c_int),
                ("doc", ctypes.c_void_p)]


_new_method_descr = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.py_object, ctypes.c_void_p)(
    ("PyDescr_NewMethod", ctypes.pythonapi))
_GETTER_DEFS = []     # the PyMethodDefs of the method descriptors, kept alive


def _original_getters():
    import types
    names = {types.GeneratorType: ("gi_frame", "gi_yieldfrom", "gi_running", "gi_suspended",
                                   "gi_code"),
             types.CoroutineType: ("cr_frame", "cr_await", "cr_running", "cr_suspended",
                                   "cr_code"),
             types.AsyncGeneratorType: ("ag_frame", "ag_await", "ag_suspended", "ag_code"),
             types.FrameType: ("f_locals", "f_back", "f_lasti")}
    out = {}
    for type_, attrs in names.items():
        for name in attrs:
            descr = type_.__dict__[name]
            call = descr.__get__           # (the slow way, if the layout is not known)
            if PROBLEM is None:
                gdef = getset_def(descr)
                get, closure = MEM64[(gdef + PTR) >> 3], MEM64[(gdef + 4 * PTR) >> 3]
                if get and not closure:
                    mdef = _MethodDef(name.encode(), get, METH_NOARGS, None)
                    _GETTER_DEFS.append(mdef)
                    call = _new_method_descr(type_, ctypes.addressof(mdef))
            out[name] = call
    return out


# name -> f(obj): what the built-in descriptor `name` of obj's type gives (generator,
# coroutine and async generator attributes; a frame's f_locals, f_back and f_lasti:
# the interpreter walks the host stack with these, frameview replaces the attributes)
NATIVE_GETTERS = _original_getters()
