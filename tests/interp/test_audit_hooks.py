"""A program's audit hook receives exactly the events CPython raises for the
program's own operations, interpreted as natively: none of the interpreter's own
(its id() of callables and types, its reads of `__code__` / `f_code`, its stores
of `__defaults__` making a function, the stubs and frame walks it makes), and
every one of the program's, in warm loops (fused runs) too.
Differential: each program logs every event its hook receives (the name, and
the arguments where they are the same in two runs: a str, bytes, None; an int,
an object as its type) and prints the log after each part, and the events after
its exit handlers as they come (the interpreter writes its code cache then);
`python` and `quickening run` print the same."""

import textwrap

import pytest

from tests.interp.differential import assert_same_program

# (the modules the parts use are imported before the hook is added: under
# `quickening run` more modules are loaded at start, and importing one raises events)
PRELUDE = """
import asyncio, atexit, collections, dataclasses, dis, functools, inspect, io, os, sys, tempfile
TMP = tempfile.gettempdir()

def fmt(a):
    if a is None or type(a) in (str, bytes, bool):
        return repr(a)
    if type(a) is tuple:
        return "(" + ", ".join(fmt(x) for x in a) + ")"
    return "<" + type(a).__name__ + ">"

log = []
at_exit = []       # (set by the program's last exit handler: what follows is printed)
atexit.register(at_exit.append, True)
def hook(event, args):
    if at_exit:
        # (not builtins.id: the test harness's own exit handler writes its record
        # with json, whose id() calls differ with the record, longer interpreted)
        if event != "builtins.id":
            sys.stdout.write(f"at exit: {event}{fmt(args)}\\n")
    else:
        log.append(event + fmt(args))
sys.addaudithook(hook)

def show(label):
    print(label, sorted(collections.Counter(log).items()))
    del log[:]
"""

PROGRAMS = {
    "plain code": """
        class Base:
            def __init__(self, v):
                self.v = v
            @property
            def double(self):
                return self.v * 2

        class Derived(Base):
            def __init__(self, v):
                super().__init__(v + 1)
            def total(self, *a, k=3, **kw):
                return self.v + sum(a) + k + len(kw)

        class Nothing:
            def __enter__(self):
                return self
            def __exit__(self, *exc):
                return False

        def squares(n):
            for i in range(n):
                yield i * i

        def adder(x):
            def add(y=2, *, z=4):
                return x + y + z
            return add

        def work(n):
            t = 0
            for i in range(n):
                d = Derived(i)
                t += d.double + d.total(1, 2, k=i, q=1) + sum(squares(3)) + adder(i)()
                try:
                    {}[i]
                except KeyError as e:
                    t += len(e.args)
                with Nothing():
                    t += len([j for j in range(3)]) + len({j: j for j in range(2)})
                t += functools.reduce(lambda a, b: a + b, [1, 2, 3])
                t += sorted([3, 1, 2], key=lambda v: -v)[0]
            return t

        print(work(3))
        show("cold:")
        for _ in range(40):
            work(50)
        show("warm:")
        """,
    "attributes": """
        def f(a, b=1, *, c=2):
            return a
        def gen():
            yield 1
        async def coro():
            pass
        class C:
            pass

        def reads(n):
            t = 0
            for i in range(n):
                t += f.__code__.co_argcount + len(f.__defaults__) + len(f.__kwdefaults__)
                t += getattr(f, "__code__").co_nlocals
                g = gen()
                t += g.gi_frame.f_lineno + len(g.gi_code.co_name)
                c = coro()
                t += len(c.cr_code.co_name) + (c.cr_frame is not None)
                c.close()
                try:
                    raise KeyError(i)
                except KeyError as e:
                    t += e.__traceback__.tb_frame.f_code.co_argcount
                t += len(sys._getframe().f_code.co_name)
            return t

        def writes(n):
            for i in range(n):
                f.__defaults__ = (i,)
                f.__kwdefaults__ = {"c": i}
                C.__module__ = "m"
                C.attr = i
                del C.attr
            return f(0) + f.__defaults__[0]

        print(reads(3))
        show("reads:")
        print(reads(400))
        show("reads, warm:")
        print(writes(3))
        show("writes:")
        print(writes(400))
        show("writes, warm:")
        """,
    "id": """
        def ids(n):
            x, y = object(), []
            t = 0
            for i in range(n):
                t += id(x) == id(x)
                t += len(list(map(id, [x, y, i])))
                t += len(sorted([x, y], key=id))
            return t

        print(ids(3))
        show("cold:")
        print(ids(500))
        show("warm:")
        """,
    "compile and exec": """
        @dataclasses.dataclass
        class P:
            x: int
            y: int = 2

        Pair = collections.namedtuple("Pair", "a b")
        print(P(1), Pair(1, 2))
        show("dataclass, namedtuple:")

        def run(n):
            ns = {}
            t = 0
            for i in range(n):
                exec(compile("a = 1 + 2", "<prog>", "exec"), ns)
                t += ns["a"] + eval("a * 2", ns) + eval(compile("3", "<e>", "eval"))
                exec("def h(): return 5\\nb = h()", ns)
                t += ns["b"]
            return t

        print(run(2))
        show("exec, eval:")
        print(run(200))
        show("exec, eval, warm:")
        """,
    "dis and inspect": """
        def f(a, b=1, *, c=2):
            return a + b + c

        class C:
            def m(self):
                return [i for i in range(3)]

        def gen():
            yield 1

        print(inspect.signature(f), inspect.getfullargspec(f).args)
        show("inspect:")
        for target in (f, C, C().m, gen(), f.__code__):
            out = io.StringIO()
            dis.dis(target, file=out)
            print(out.getvalue())
        print([i.opname for i in dis.get_instructions(f)], dis.Bytecode(C.m).dis())
        show("dis:")
        """,
    "open": """
        def files(n):
            path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "probe.txt")
            t = 0
            for i in range(n):
                with open(path, "w") as fh:
                    fh.write("data")
                with open(path, "rb") as fh:
                    t += len(fh.read())
                os.remove(path)
            return t

        print(files(2))
        show("cold:")
        print(files(200))
        show("warm:")
        """,
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_a_hook_sees_the_events_of_the_programs_operations(tmp_path, monkeypatch, name):
    # the code cache written at exit (interp/codecache.py), as when bytecode is written
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    monkeypatch.setenv("QUICKENING_CACHE", str(tmp_path / "cache"))
    script = tmp_path / "prog.py"
    script.write_text(PRELUDE + textwrap.dedent(PROGRAMS[name]))
    assert_same_program(str(script))
