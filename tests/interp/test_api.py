"""The Python API and the import hook, compared with native execution."""

import os
import subprocess
import sys
import textwrap

from tests.interp.differential import PYTHON, run_program


def _both(script_body, tmp_path, files=None, interp_args=()):
    for name, text in (files or {}).items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    main = tmp_path / "main.py"
    main.write_text(textwrap.dedent(script_body))
    nat = run_program([PYTHON, str(main)], cwd=tmp_path)
    interp = run_program([PYTHON, "-m", "quickening", "run", *interp_args, str(main)], cwd=tmp_path)
    return nat, interp


def test_api_call_runs_body_in_interpreter_with_same_result():
    code = textwrap.dedent("""
        from quickening import api
        from quickening.interp import sitestate
        def work(n, *, scale=2):
            return sum(i * scale for i in range(n))
        print(work(10, scale=3), api.call(work, 10, scale=3))
        print(sitestate.info_of(work.__code__) is not None)
        ns = {}
        api.run_code(compile("def g(x):\\n    return [x] * 2\\nr = g(4)", "<api>", "exec"), ns)
        print(ns["r"], type(ns["g"]).__name__)
    """)
    out = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split()[0] == lines[0].split()[1]
    assert lines[1] == "True"
    assert lines[2] == "[4, 4] function"


def test_api_run_path_and_run_module(tmp_path):
    (tmp_path / "modx.py").write_text("import sys\nRESULT = (__name__, sys.argv[1:])\nprint('modx ran')\n")
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        from quickening import api
        g = api.run_path({str(tmp_path / 'modx.py')!r}, run_name="not_main", argv=["modx.py", "a"])
        print(g["RESULT"])
        g = api.run_module("modx", argv=["modx", "b"])
        print(g["RESULT"])
    """)
    out = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["modx ran", "('not_main', ['a'])", "modx ran", "('__main__', ['b'])"]


def test_interpret_patterns_select_modules(tmp_path):
    pkg = tmp_path / "lib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "util.py").write_text("def f():\n    return 42\n")
    body = """
        import sys
        sys.path.insert(0, {lib!r})
        import util, json
        from quickening.interp import sitestate
        print(util.f(), sitestate.info_of(util.f) is not None,
              sitestate.info_of(json.dumps) is not None)
    """.format(lib=str(pkg))
    prog = tmp_path / "prog"   # the library lives outside the program's directory
    prog.mkdir()
    main = prog / "main.py"
    main.write_text(textwrap.dedent(body))
    plain = run_program([PYTHON, "-m", "quickening", "run", str(main)], cwd=prog)
    chosen = run_program([PYTHON, "-m", "quickening", "run", "--interpret", "util", str(main)], cwd=prog)
    everything = run_program([PYTHON, "-m", "quickening", "run", "--interpret-all", str(main)], cwd=prog)
    assert plain.stdout.split() == ["42", "False", "False"], plain.stderr
    assert chosen.stdout.split() == ["42", "True", "False"], chosen.stderr
    assert everything.stdout.split() == ["42", "True", "True"], everything.stderr


def test_interpret_all_gives_native_output(tmp_path):
    nat, interp = _both("""
        import json, textwrap, collections
        print(json.dumps({"a": [1, 2, {"b": None}]}, indent=1, sort_keys=True))
        print(textwrap.fill("word " * 30, width=40))
        print(collections.Counter("mississippi").most_common())
    """, tmp_path, interp_args=("--interpret-all",))
    assert (interp.stdout, interp.stderr, interp.returncode) == (nat.stdout, nat.stderr, nat.returncode)


def test_escapes_are_zero_for_callbacks_from_native_code(tmp_path):
    nat, interp = _both("""
        import functools, unittest, io
        class K:
            def __init__(self, v): self.v = v
            def __eq__(self, o): return self.v == o.v
            def __hash__(self): return hash(self.v)
            def __lt__(self, o): return self.v < o.v
            def __iter__(self): return iter([self.v])
            def __getitem__(self, i): return self.v + i
            def __enter__(self): return self
            def __exit__(self, *a): return False
            @property
            def double(self): return self.v * 2
        ks = [K(3), K(1), K(2)]
        print(sorted(ks)[0].v, len({K(1), K(1)}), list(map(lambda k: k.double, ks)), K(5)[1])
        with K(1) as k:
            print(list(k), functools.reduce(lambda a, b: a + b.v, ks, 0))
        class T(unittest.TestCase):
            def test_x(self):
                self.assertEqual(K(1), K(1))
        r = unittest.TextTestRunner(stream=io.StringIO()).run(unittest.defaultTestLoader.loadTestsFromTestCase(T))
        print(r.wasSuccessful())
    """, tmp_path, interp_args=("--stats",))
    assert interp.stdout == nat.stdout
    assert "escapes (interpreted code that ran natively): 0" in interp.stderr
