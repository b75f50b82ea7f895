"""The frames a program sees report the code object CPython's do: a function's
frame its `__code__` (libraries recognise their own frames by code object), in
sys._getframe(), a traceback's tb_frame, a generator's gi_frame, a caller's
f_back; and what is read through that code at the frame's instruction (line,
positions, locals) is the real code's.  Each snippet runs natively and
interpreted (tests/interp/differential.py)."""

import textwrap

import pytest

from tests.interp.differential import assert_same, assert_same_program

SNIPPETS = {
    "getframe_code_is_the_functions": """
import sys
def f():
    return sys._getframe().f_code
def caller():
    return f(), sys._getframe(0).f_code
inner, outer = caller()
r = [inner is f.__code__, outer is caller.__code__, sys._getframe().f_code.co_name]
""",
    "f_back_code_is_the_callers": """
import sys, inspect
def f():
    return sys._getframe(1).f_code, inspect.currentframe().f_back.f_code
def g():
    return f()
a, b = g()
r = [a is g.__code__, b is g.__code__]
""",
    "traceback_frame_codes": """
def inner(d):
    return d["k"]
def outer():
    x = 5
    return inner({})
try:
    outer()
except KeyError as e:
    tb = e.__traceback__.tb_next
r = [tb.tb_frame.f_code is outer.__code__, tb.tb_next.tb_frame.f_code is inner.__code__,
     tb.tb_frame.f_lineno, tb.tb_lineno, tb.tb_frame.f_locals["x"],
     list(tb.tb_frame.f_code.co_positions())[tb.tb_lasti // 2]]
""",
    # a library hiding its own frames by code object (as a template engine does
    # with the functions it marks internal)
    "frames_recognised_by_code": """
internal = set()
def internalcode(fn):
    internal.add(fn.__code__)
    return fn
@internalcode
def render(t):
    return t["missing"]
def user():
    return render({})
try:
    user()
except KeyError as e:
    tb = e.__traceback__
names = []
while tb is not None:
    if tb.tb_frame.f_code not in internal:
        names.append(tb.tb_frame.f_code.co_name)
    tb = tb.tb_next
r = names
""",
    "generator_frame_code": """
import sys
def gen():
    yield sys._getframe().f_code
g = gen()
r = [g.gi_frame.f_code is gen.__code__, next(g) is gen.__code__, g.gi_code is gen.__code__]
""",
    "closure_frame_code_and_locals": """
import sys
def outer():
    a = 1
    def inner():
        b = a + 1
        frame = sys._getframe()
        return frame.f_code, sorted(frame.f_locals), frame.f_lineno
    return inner
inner = outer()
code, names, line = inner()
r = [code is inner.__code__, names, line]
""",
    # a finished frame's variables, read through its code: cell and free variables
    "closure_frames_in_a_traceback": """
def outer():
    a = [1]
    def inner():
        b = a
        raise KeyError(len(b))
    inner()
try:
    outer()
except KeyError as e:
    tb = e.__traceback__.tb_next
r = [tb.tb_frame.f_code is outer.__code__, sorted(tb.tb_frame.f_locals), tb.tb_frame.f_locals["a"],
     tb.tb_next.tb_frame.f_code.co_name, sorted(tb.tb_next.tb_frame.f_locals.items())]
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_frames_report_cpythons_code_object(name):
    assert_same(SNIPPETS[name], filename=f"<{name}>")


# a library the program imports from outside its directory: CPython runs it natively
NATIVE_LIBRARY = '''
import sys

def walk(start):
    names = []
    f = start
    while f is not None:
        names.append((f.f_code.co_name, f.f_lineno))
        f = f.f_back
    return names

def from_getframe():
    return walk(sys._getframe())

def from_getframe_back():
    return walk(sys._getframe(0).f_back)

def from_traceback():
    try:
        raise ValueError
    except ValueError as e:
        return walk(e.__traceback__.tb_frame)

def key_walker(x):
    return walk(sys._getframe())

def call(fn, *args):
    return fn(*args)

def generator():
    yield walk(sys._getframe())
    yield walk(sys._getframe())
'''

PROGRAM_CALLING_IT = '''
import inspect, logging, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import library

logging.basicConfig(format="%(funcName)s:%(lineno)d %(message)s", stream=sys.stdout)
log = logging.getLogger("prog")

def interpreted_walk():
    f = sys._getframe()
    out = []
    while f is not None:
        out.append(f.f_code.co_name)
        f = f.f_back
    return out

def callers():
    print(library.from_getframe())
    print(library.from_getframe_back())
    print(library.from_traceback())
    print(list(map(library.key_walker, [1])))           # native, called by a C function
    print(sorted([2, 1], key=lambda x: len(library.key_walker(x))))
    print(library.call(interpreted_walk))                # interpreted, called by native code
    for names in library.generator():                     # a native generator's frame
        print(names)
    print([(i.function, i.lineno) for i in inspect.stack()])
    log.warning("stacklevel 2 names the caller of callers")
    log.warning("here", stacklevel=1)

def outer():
    callers()
    log.warning("from outer", stacklevel=2)

outer()
'''


def test_native_frames_f_back_is_the_interpreted_caller(tmp_path):
    """f_back of a native frame (a library function the program calls, a callback a
    C function calls) is the frame of the interpreted function that called it, not
    the interpreter's own frames (loop, handlers, enter ...): walks of the stack by
    native code (logging's stacklevel, inspect.stack(), a library walking its
    callers) see the program's frames only, as natively."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "library.py").write_text(NATIVE_LIBRARY)
    (tmp_path / "prog").mkdir()
    script = tmp_path / "prog" / "main.py"
    script.write_text(PROGRAM_CALLING_IT)
    assert_same_program(str(script))


FRAME_CHAINS = '''
import asyncio, functools, sys, threading

def chain(f):
    out = []
    while f is not None:
        out.append((f.f_code.co_name, f.f_lineno))
        f = f.f_back
    return out

def boom():
    raise KeyError("k")

def catcher(*args):
    """Walks from an except block: each traceback entry's frame, out through f_back,
    and the running frame's own chain."""
    try:
        boom()
    except KeyError as e:
        tb = e.__traceback__
        walks = []
        while tb is not None:
            walks.append((tb.tb_lineno, chain(tb.tb_frame)))
            tb = tb.tb_next
        return walks, chain(sys._getframe())

class Slot:
    def __getitem__(self, i):
        return catcher()

def via_exec():
    ns = {"catcher": catcher}
    exec("x = 1\\nr = catcher()", ns)
    return ns["r"]

def via_nested_exec():
    ns = {"catcher": catcher}
    exec("def g():\\n    exec('r = catcher()', globals())\\n    return r\\nres = g()", ns)
    return ns["res"]

def via_eval():
    return eval("catcher()", {"catcher": catcher})

def via_class_body():
    class A:
        r = catcher()
        s = eval("catcher()")
    return A.r, A.s

def via_map():
    return list(map(catcher, [1]))

def via_slot():
    return Slot()[0]

def via_partial():
    return functools.partial(catcher, 1)()

def via_thread():
    out = []
    t = threading.Thread(target=lambda: out.append(catcher()))
    t.start()
    t.join()
    return out

async def acatch():
    await asyncio.sleep(0)
    return catcher()

def via_asyncio():
    return asyncio.run(acatch())

def gcatch():
    yield catcher()

def via_generator():
    return next(gcatch())

for i in range(60):      # (warm: fused runs, specialized calls)
    for fn in (via_exec, via_nested_exec, via_eval, via_class_body, via_map, via_slot,
               via_partial, via_thread, via_asyncio, via_generator):
        walks = fn()
        if i in (0, 59):
            print(fn.__name__, walks)
'''


def test_frame_chains_walked_from_an_except_block(tmp_path):
    """From an except block, tb.tb_frame.f_back... and sys._getframe().f_back...
    give CPython's (co_name, f_lineno) at every step, through exec'd, eval'd and
    class-body code (whose frame objects show their real code; a function's show
    its __code__), native callers, threads, generators and coroutines."""
    script = tmp_path / "prog.py"
    script.write_text(FRAME_CHAINS)
    assert_same_program(str(script))


def test_frame_objects_that_outlive_their_activation_end_on_its_return(tmp_path):
    """A traceback kept after its frames returned: their frame objects report the
    line of the return they ended on, as CPython's (for code with one return
    instruction: which of several ran is not kept -- see tracebacks._only_return)."""
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent('''
        def chain(f):
            out = []
            while f is not None:
                out.append((f.f_code.co_name, f.f_lineno))
                f = f.f_back
            return out

        def catch():
            try:
                raise KeyError
            except KeyError as e:
                tb = e.__traceback__
            return tb

        def in_class():
            class A:
                tb = catch()
                x = 1
            return A

        def keep(n):
            t = catch()
            n += 1
            return t, n

        for i in range(50):
            A = in_class()
            tb, _ = keep(i)
            if i in (0, 49):
                print(chain(A.tb.tb_frame), chain(tb.tb_frame))
        '''))
    assert_same_program(str(script))


# a stack of 300 generators, each delegating to the next (`yield from`): the frame
# chain and tracebacks seen at its bottom, then again after the whole stack was
# resumed from other callers (a generator's frame object is linked to whoever
# resumed it last)
DEEP_GENERATORS = """
import sys

def chain(f):
    out = []
    while f is not None and f.f_globals is globals():
        out.append((f.f_code.co_name, f.f_lineno))
        f = f.f_back
    return out

def entries(tb):
    out = []
    while tb is not None:
        out.append((tb.tb_frame.f_code.co_name, tb.tb_lineno, len(chain(tb.tb_frame))))
        tb = tb.tb_next
    return out

def walk(n):
    if n:
        got = yield from walk(n - 1)
        return got
    while True:
        sent = yield chain(sys._getframe())
        try:
            raise KeyError(sent)
        except KeyError as e:
            yield chain(e.__traceback__.tb_frame)
        if sent == "stop":
            raise ValueError("bottom")

def first(g):
    return next(g)

def second(g, value):
    return g.send(value)

def third(g):
    return [step for step, _ in zip(g, range(2))]

g = walk(300)
r = [first(g), first(g), second(g, 1), second(g, 2), third(g),
     list(map(lambda x: g.send(x), [3, 4]))]
try:
    second(g, "stop")
    second(g, "stop")
except ValueError as e:
    tb = e.__traceback__
    r.append(entries(tb)[:3] + entries(tb)[-3:])
    r.append(len(entries(tb)))
"""


def test_deep_generator_stack_frame_chains():
    """At the bottom of 300 nested generators, sys._getframe()'s f_back chain and a
    traceback's frames' are CPython's, after resumptions from different callers too
    (their frame objects are relinked only when resumed: issue 20)."""
    assert_same(DEEP_GENERATORS, filename="<deep_generators>")


# every level of a recursive generator asks for its frame and catches an exception
# on its way down, then the whole stack is resumed a few times, the bottom asking
# for its frame each time
LINKED_LEVELS = """
import sys

def level(n):
    sys._getframe()
    try:
        raise KeyError(n)
    except KeyError:
        pass
    if n:
        yield from level(n - 1)
    else:
        for _ in range(5):
            yield sys._getframe()

for frame in level(DEPTH):
    pass
"""


def _frame_links(monkeypatch, depth):
    from quickening import api
    from quickening.interp import facts
    calls = [0]
    real = facts.set_frame_back

    def counted(frame, back):
        calls[0] += 1
        return real(frame, back)
    monkeypatch.setattr(facts, "set_frame_back", counted)
    code = compile(LINKED_LEVELS.replace("DEPTH", str(depth)), "<linked_levels>", "exec")
    api.run_code(code, {"__name__": "linked_levels"})
    monkeypatch.undo()
    return calls[0]


def test_generator_frame_links_grow_linearly_with_depth(monkeypatch):
    """Frame requests at each level of a deep generator stack link each frame
    object once per activation, not the whole stack per request (issue 20: the
    walk outwards went on through every generator's frame, so N requests on an N
    deep stack made N*N/2 links).  Counted, not timed: doubling the depth must
    about double the links."""
    small = _frame_links(monkeypatch, 100)
    large = _frame_links(monkeypatch, 200)
    assert large < 3 * small, (small, large)


# a generator resumed from native code (its send()) that resumes another inline
# (`yield from`): resume() hands its frame over to run_frame, whose host frame
# sits above resume()'s.  The walks are bounded: a frame seen twice there made
# f_back a cycle (test_generators' check_yield_from_example looped forever).
RESUMED_YIELD_FROM = """
import itertools, sys, traceback

def mine(frames):
    # the snippet's frames (the test harness's lie beyond them), at most 12
    return [f.f_code.co_name for f in itertools.islice(
        itertools.takewhile(lambda f: f.f_globals is globals(), frames), 12)]

def backs(f):
    while f is not None:
        yield f
        f = f.f_back

def depths():
    n = 2
    while True:
        yield sys._getframe(n)
        n += 1

def seen(where):
    f = sys._getframe(1)
    r.append((where, mine(backs(f)), mine(depths()),
              mine(fr for fr, _ in traceback.walk_stack(f))))

def inner():
    seen("inner")
    try:
        yield
    except Exception:
        pass
    seen("inner resumed")

def outer():
    seen("outer")
    yield from inner()
    seen("outer resumed")
    yield

def call_send(gen):
    gen.send(None)

def call_throw(gen):
    gen.throw(RuntimeError)

def call_next(gen):
    next(gen)

r = []
for call in (call_send, call_throw, call_next):
    gen = outer()
    gen.send(None)
    call(gen)
    seen("after " + call.__name__)
    gen.close()
"""


def test_generator_resumed_natively_delegating_frame_chains():
    """A generator resumed by its send()/throw()/next() from a caller, then
    resuming its `yield from` inline: f_back chains, sys._getframe(n) and
    traceback.walk_stack at both levels are CPython's (issue 20)."""
    assert_same(RESUMED_YIELD_FROM, filename="<resumed_yield_from>")
