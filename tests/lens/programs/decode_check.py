"""Check quickening.lens.decode against what CPython itself computes, in
whichever interpreter runs this file: live names from dis (adaptive=True),
cache fields from dis's cache_info where it is right (3.11, 3.12), type
versions from _testcapi.type_get_version, LOAD_GLOBAL indices from the
dicts' key order.  Prints a JSON list of mismatches (empty when all agree)."""
import dis
import importlib.util
import json
import sys

import _testcapi

spec = importlib.util.spec_from_file_location("lens_decode", sys.argv[1])
D = importlib.util.module_from_spec(spec)
spec.loader.exec_module(D)


class Plain:
    def __init__(self):
        self.a = 1
        self.b = 2

    def meth(self):
        return self.a


class Slots:
    __slots__ = ("a",)

    def __init__(self):
        self.a = 3


class Sub(list):
    pass


G = 10


def workload(p, s, lst, d, t, text):
    x = p.a + p.b            # LOAD_ATTR_INSTANCE_VALUE, BINARY_OP_ADD_INT
    y = s.a * 2              # LOAD_ATTR_SLOT, MULTIPLY_INT
    p.b = y                  # STORE_ATTR_INSTANCE_VALUE
    s.a = x                  # STORE_ATTR_SLOT
    z = lst[0] + d["k"] + t[1]
    lst[0] = z               # STORE_SUBSCR_LIST_INT
    q, r = t                 # UNPACK_SEQUENCE_TWO_TUPLE
    for i in range(3):       # FOR_ITER_RANGE
        z += i
    if x < y:                # COMPARE_OP_INT
        z -= 1
    n = len(lst) + G         # LOAD_GLOBAL_BUILTIN / MODULE, CALL_LEN
    m = p.meth()             # LOAD_ATTR_METHOD_WITH_VALUES, CALL_..._EXACT_ARGS
    f = 1.5 * 2.0 + 0.5      # constant folded; fine
    u = text + "!"           # ADD_UNICODE
    v = isinstance(p, Plain)
    return x, y, z, n, m, f, u, v, q, r


def gen():
    yield 1
    yield 2


def deleg():
    r = yield from gen()     # SEND (3.15: GET_ITER_SELF)
    return r


def kw(a, b=0):
    return a + b


def newer(d, xs, args):
    """Families 3.14 and 3.15 added or changed."""
    t = 0
    for k in d.items():      # FOR_ITER over a dict view
        t += 1
    for v in iter(xs):       # GET_ITER on an iterator
        t += v
    t += sum(deleg())
    t += kw(*args)           # CALL_FUNCTION_EX (3.15: CALL_EX_PY)
    t += kw(1, b=2)          # CALL_KW (3.14+: CALL_KW_PY)
    t = t + 0.5              # int + float (3.14+: BINARY_OP_EXTEND)
    s = "ab" * 3
    return t, s


# a function with > 256 names, so EXTENDED_ARG precedes some sites
src = "def wide(o):\n    t = 0\n" + "".join(
    "    t += o.attr%d\n" % i for i in range(300)) + "    return t\n"
ns = {}
exec(src, ns)
wide = ns["wide"]


class Wide:
    pass


wobj = Wide()
for i in range(300):
    setattr(wobj, "attr%d" % i, i)

for _ in range(20):
    workload(Plain(), Slots(), [1, 2], {"k": 3}, (4, 5), "s")
    wide(wobj)
    newer({1: 2, 3: 4}, [1, 2], (1, 2))

mismatch = []
tables = D.Tables.current()
classes = [Plain, Slots, Wide, dict]   # dict: d.items() in newer()
versions = {_testcapi.type_get_version(c): c.__qualname__ for c in classes}
builtin_keys = list(__builtins__.__dict__ if hasattr(__builtins__, "__dict__")
                    else __builtins__)
global_keys = list(globals())
checked = {"sites": 0, "cache_info": 0, "type_versions": 0, "globals": 0}

for fn in (workload, wide, Plain.meth, newer, deleg):
    code = fn.__code__
    sites = D.decode_code(code)
    ins = {}
    caches = {}       # offset -> {field: value} as dis shows them
    last = None
    for i in dis.get_instructions(fn, adaptive=True, show_caches=True):
        if i.opname == "CACHE":       # 3.11 / 3.12: one pseudo-instruction per cell
            if last is not None and ": " in i.argrepr:
                name, _, val = i.argrepr.partition(": ")
                caches[last][name] = int(val)
            continue
        ins[i.offset] = i
        last = i.offset
        caches[last] = {}
        for name, size, data in (getattr(i, "cache_info", None) or ()):
            if name == "counter":     # 3.13: only the counter is read right
                caches[last][name] = int.from_bytes(data, "little")
    for s in sites:
        checked["sites"] += 1
        i = ins[s.offset]
        if i.opname != s.opname:
            mismatch.append(["opname", fn.__name__, s.offset, i.opname, s.opname])
        for name, want in caches[s.offset].items():
            checked["cache_info"] += 1
            got = s.counter_raw if name == "counter" else s.fields.get(name)
            if got != want:
                mismatch.append(["field", fn.__name__, s.offset, s.opname,
                                 name, want, got])
        if s.type_version is not None:
            checked["type_versions"] += 1
            if s.type_version not in versions:
                mismatch.append(["type_version", fn.__name__, s.offset, s.opname,
                                 s.type_version, versions])
        if s.opname == "LOAD_GLOBAL_MODULE":
            checked["globals"] += 1
            want = global_keys.index(i.argval)
            if s.fields["index"] != want:
                mismatch.append(["global index", s.offset, want, s.fields])
        if s.opname == "LOAD_GLOBAL_BUILTIN":
            checked["globals"] += 1
            want = builtin_keys.index(i.argval)
            if s.fields["index"] != want:
                mismatch.append(["builtin index", s.offset, want, s.fields])
    if fn is wide:
        if not any(s.oparg > 255 for s in sites):
            mismatch.append(["no EXTENDED_ARG site seen"])

json.dump({"mismatch": mismatch, "checked": checked, "version": list(sys.version_info[:3]),
           "specialized": sorted(set(s.opname for fn in (workload, wide, newer, deleg)
                                     for s in D.decode_code(fn.__code__)))},
          sys.stdout)
