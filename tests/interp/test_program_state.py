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
