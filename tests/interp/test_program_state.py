"""What the interpreter does on its own behalf (fusing, specializing, reading
facts) changes nothing the program can see in the middle of the program: no
module imported, no dictionary or module changed, no object of its own among
the program's (gc.get_objects()), no garbage for the program's collector.
Differential: the same warm loops run by `python` and by `quickening run`."""

import textwrap

from tests.interp.differential import assert_same_program


def test_warm_loops_over_modules_objects_and_globals(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent("""
        import gc, sys
        gc.disable()
        gc.collect()
        modules_at_start = set(sys.modules)

        class Marker:
            pass
        keep = [Marker() for _ in range(3)]

        def over_modules():
            n = 0
            for name in sys.modules:     # (a change of size mid-loop raises)
                n += 1
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
            seen.add((over_modules(), over_globals()))
            if i % 50 == 0:
                print(i, markers(), gc.collect())
        print(len(seen), markers())
        print("imported meanwhile:", sorted(set(sys.modules) - modules_at_start))
        """))
    assert_same_program(str(script))
