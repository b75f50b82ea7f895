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

import ctypes
import sys

_WINDOW = (ctypes.c_ubyte * (1 << 47)).from_address(0)
MEM8 = memoryview(_WINDOW).cast("B")
MEM32 = MEM8.cast("I")
MEM64 = MEM8.cast("Q")

PTR = 8
# PyTypeObject
TYPE_VERSION_TAG = 384
# PyHeapTypeObject.ht_cached_keys (shared keys of instances)
HEAPTYPE_CACHED_KEYS = None  # found by verify()
# PyDictObject
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
# PyFrameObject.f_lineno (int, after ob_refcnt, ob_type, f_back, f_frame, f_trace):
# frame.f_lineno reports it when it is not 0
FRAME_LINENO = 40
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


_STAND_INS = {}


def stands_for(t):
    """The CPython type that instances of t stand for: objects the interpreter
    hands out in place of native ones (FrameView for frame objects) are
    specialized on as CPython specializes on the native ones; t itself otherwise."""
    if not _STAND_INS:
        import types
        from quickening.interp.frameview import FrameView
        _STAND_INS[FrameView] = types.FrameType
    return _STAND_INS.get(t, t)


def func_version(fn):
    return MEM32[(id(fn) + FUNC_VERSION) >> 2]


_set_function_version = ctypes.pythonapi._PyFunction_SetVersion
_set_function_version.argtypes = [ctypes.py_object, ctypes.c_uint32]
_set_function_version.restype = None


def code_version(code):
    return MEM32[(id(code) + CODE_VERSION) >> 2]


def assign_function_version(fn):
    """Give fn its code's version, as MAKE_FUNCTION does (FunctionType() leaves 0)."""
    _set_function_version(fn, MEM32[(id(fn.__code__) + CODE_VERSION) >> 2])


# -- C calling conventions: ml_flags of builtin functions and method descriptors ---
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

    def gen():
        yield
    frame = gen().gi_frame
    set_frame_lineno(frame, 4321)
    if frame.f_lineno != 4321:
        return "frame f_lineno offset"
    return None


PROBLEM = verify()


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

_type_lookup = ctypes.pythonapi._PyType_Lookup
_type_lookup.argtypes = [ctypes.py_object, ctypes.py_object]
_type_lookup.restype = ctypes.c_void_p
_py_object = ctypes.py_object


def type_lookup(t, name):
    """_PyType_Lookup: the MRO lookup without descriptors (it assigns a version, as
    CPython's own lookups do); None when absent."""
    addr = _type_lookup(t, name)
    if not addr:
        return None
    return ctypes.cast(addr, _py_object).value


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
        return dict_keys_version(g)

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
    # the counter is just above the version handed out last (other code may have
    # taken a few more meanwhile), and it grows from one assignment to the next
    v = native_assignment()
    if not v:
        return 0
    words = array.array("I", MEM8[interp:interp + size].tobytes())
    candidates = {i: w for i, w in enumerate(words) if v < w <= v + 64}
    base = interp >> 2
    for _ in range(4):
        v = native_assignment()
        if not v:
            return 0
        # right after a native assignment the counter is exactly one above the
        # version handed out (other counters, e.g. code versions, move differently)
        candidates = {i: MEM32[base + i] for i, w in candidates.items()
                      if w < MEM32[base + i] == v + 1}
    return interp + 4 * next(iter(candidates)) if len(candidates) == 1 else 0


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
