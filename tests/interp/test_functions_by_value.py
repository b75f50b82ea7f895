"""A pickler that copies functions by value (as cloudpickle does: the code object
field by field, the closure's values) round-trips the program's functions as
natively: the function loaded computes what the original does.  (An interpreted
function's __code__ is its trampoline, whose constants hold the interpreter's
CodeInfo: pickled as its tables, memory views over the whole process among them,
it failed -- MemoryError in attrs' cloudpickle test -- or loaded broken.)
Differential: the program prints the same under `python` and `quickening run`."""

import textwrap

from tests.interp.differential import assert_same_program

PROGRAM = '''
import io, pickle, types

CODE_FIELDS = ("co_argcount", "co_posonlyargcount", "co_kwonlyargcount", "co_nlocals",
               "co_stacksize", "co_flags", "co_code", "co_consts", "co_names", "co_varnames",
               "co_filename", "co_name", "co_qualname", "co_firstlineno", "co_linetable",
               "co_exceptiontable", "co_freevars", "co_cellvars")

def remake_code(*fields):
    return types.CodeType(*fields)

def remake_function(code, name, defaults, kwdefaults, cell_values):
    closure = tuple(types.CellType(v) for v in cell_values) or None
    fn = types.FunctionType(code, globals(), name, defaults, closure)
    fn.__kwdefaults__ = kwdefaults
    return fn

class ByValue(pickle.Pickler):
    """Functions of this module and code objects by value."""
    def reducer_override(self, obj):
        if type(obj) is types.CodeType:
            return remake_code, tuple(getattr(obj, f) for f in CODE_FIELDS)
        if (type(obj) is types.FunctionType and obj.__module__ == __name__
                and obj not in (remake_code, remake_function)):
            cells = tuple(c.cell_contents for c in obj.__closure__ or ())
            return remake_function, (obj.__code__, obj.__name__, obj.__defaults__,
                                     obj.__kwdefaults__, cells)
        return NotImplemented

def round_trip(obj):
    out = io.BytesIO()
    ByValue(out).dump(obj)
    return pickle.loads(out.getvalue())

def make_adder(k):
    def add(x, y=2, *, z=0):
        return x + y + z + k
    return add

def squares(n):
    for i in range(n):
        yield i * i

def recursive(n):
    return 1 if n <= 1 else n * recursive(n - 1)

for fn, args in ((make_adder(3), (1,)), (make_adder(5), (1, 1)), (squares, (4,)),
                 (recursive, (6,)), (lambda s: s.upper(), ("abc",))):
    for _ in range(100):    # (run first: specialized, fused)
        list(fn(*args)) if fn is squares else fn(*args)
    copy = round_trip(fn)
    result = copy(*args)
    print(fn.__name__, list(result) if type(result) is types.GeneratorType else result,
          copy.__defaults__, copy.__code__.co_name, copy.__code__.co_varnames)
'''


def test_functions_copied_by_value_work_when_loaded(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(PROGRAM))
    nat = assert_same_program(str(script))
    assert nat.stdout.count("\n") == 5 and "recursive 720" in nat.stdout
