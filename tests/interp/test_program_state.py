"""What the interpreter does on its own behalf (fusing, specializing, reading
facts) changes nothing the program can see in the middle of the program: no
module imported, no dictionary or module changed, no object of its own among
the program's (gc.get_objects()), no garbage for the program's collector, no
entry in the caches of modules it uses (linecache, re).
Differential: the same warm loops run by `python` and by `quickening run`."""

import textwrap

from tests.interp.differential import assert_same_program


def test_warm_loops_over_modules_objects_and_globals(tmp_path):
    """Also the caches of modules the interpreter itself uses when it generates code
    (linecache for the generated source, re for editing it), builtins, a class's
    dict and the import system's cache, each iterated while the loop is warm."""
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent("""
        import builtins, gc, linecache, re, sys
        gc.disable()
        gc.collect()
        modules_at_start = set(sys.modules)
        lines_at_start = dict(linecache.cache)
        patterns_at_start = list(re._cache)


        class Marker:
            def __init__(self, x):
                self.x = x

            def get(self):
                return self.x


        keep = [Marker(i) for i in range(3)]


        def over(mapping):
            n = 0
            for name in mapping:     # (a change of size mid-loop raises)
                n += keep[n % 3].get() + len(name) % 2
            return n


        def over_globals():
            n = 0
            for name, value in globals().items():
                n += 1
            return n


        def markers():
            found = 0
            for obj in gc.get_objects():
                if type(obj) is Marker:
                    found += 1
            return found


        seen = set()
        for i in range(400):
            seen.add((over(sys.modules), over_globals(), over(linecache.cache), over(re._cache),
                      over(vars(builtins)), over(vars(Marker)), over(sys.path_importer_cache)))
            if i % 50 == 0:
                print(i, markers(), gc.collect())
        print(len(seen), markers())
        print("imported meanwhile:", sorted(set(sys.modules) - modules_at_start))
        print("linecache meanwhile:", linecache.cache == lines_at_start,
              sorted(set(linecache.cache) ^ set(lines_at_start)))
        print("re's cache meanwhile:", list(re._cache) == patterns_at_start)
        """))
    assert_same_program(str(script))


def test_an_audit_hook_sees_the_programs_events_only(tmp_path):
    """The interpreter's own work (fusing: compile and exec; frame walks:
    sys._getframe; its ctypes look-ups) raises audit events; a hook the program
    adds sees only those of the program's operations (exec, eval, compile, open,
    sys._getframe ...), as natively -- and an interpreted hook returns (running it
    raised events that called it again, without end).  Every event counts, the
    builtins.id and object.__getattr__ of the instruction handlers' own id() and
    __code__ reads too (tests/interp/test_audit_hooks.py has more)."""
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent("""
        import collections, os, sys, tempfile
        events = collections.Counter()
        def hook(event, args):
            events[event] += 1
        sys.addaudithook(hook)

        class Point:
            def __init__(self, x):
                self.x = x
            def norm(self):
                return self.x * self.x

        def work(n):
            t = 0
            for i in range(n):
                t += Point(i).norm() + len([i])
            return t

        for _ in range(300):
            work(20)
        print("warm loops:", sorted(events.items()))
        code = compile("1 + 1", "<x>", "eval")
        print(eval(code), sys._getframe().f_code.co_name)
        exec("y = 2")
        path = os.path.join(tempfile.gettempdir(), "quickening-audit-probe")
        with open(path, "w") as fh:
            fh.write("x")
        os.remove(path)
        def gen():
            yield sys._getframe(0).f_back.f_code.co_name
        print(next(gen()))
        print("with the program's own operations:", sorted(events.items()))
        """))
    assert_same_program(str(script))
