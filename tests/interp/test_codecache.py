"""The code the interpreter generates is kept between runs (interp/codecache.py):
a second run of a program takes it from the file instead of compiling it, with
the same outcome as native; a damaged file, QUICKENING_CODE_CACHE=0 and
PYTHONDONTWRITEBYTECODE behave as the module says."""

import os
import textwrap

from quickening.interp import codecache
from tests.interp.differential import PYTHON, as_programs, run_program

# The program (interpreted; its output is compared with native)...
PROGRAM = textwrap.dedent("""
    class P:
        def __init__(self, x):
            self.x = x
        def twice(self):
            return self.x * 2

    def work(n):
        total = 0
        for i in range(n):
            p = P(i)
            total += p.twice() + len(str(i))
        return total

    print(work(3000), sum(work(50) for _ in range(40)))
""")

# ... run by `quickening run` under a hook counting the interpreter's compiles of
# generated source (the audit event CPython raises for compile()), printed to stderr.
# (The hook is native: registered before the interpreter starts.)
COUNTING = textwrap.dedent("""
    import sys
    generated = []

    def hook(event, args):
        if event == "compile" and "/quickening/interp/<" in str(args[1]):
            generated.append(args[1])

    sys.addaudithook(hook)
    from quickening.cli import main
    sys.argv = ["quickening", "run", *sys.argv[1:]]
    try:
        main()
    finally:
        print(len(generated), file=sys.stderr)
""")


def _env(cache, **more):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["QUICKENING_CACHE"] = str(cache)
    env.pop("QUICKENING_CODE_CACHE", None)
    env.update(more)
    return env


def _run(script, env):
    counting = script.parent / "counting.py"
    counting.write_text(COUNTING)
    proc = run_program([PYTHON, str(counting), str(script)], env=env)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, int(proc.stderr.split()[-1])


def _cache_file(cache):
    return cache / "code" / os.path.basename(codecache._path())


def test_a_second_run_takes_the_generated_code_from_the_file(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    native, _ = as_programs(str(script))
    cache = tmp_path / "cache"
    out1, compiled1 = _run(script, _env(cache))
    assert out1 == native.stdout
    assert compiled1 > 20                  # handlers and fused runs were made
    assert _cache_file(cache).exists()
    out2, compiled2 = _run(script, _env(cache))
    assert out2 == native.stdout
    assert compiled2 < compiled1 // 4, (compiled1, compiled2)


def test_a_damaged_file_is_compiled_around_and_rewritten(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    cache = tmp_path / "cache"
    _run(script, _env(cache))
    path = _cache_file(cache)
    data = path.read_bytes()
    path.write_bytes(data[:len(data) // 2])      # (cut short, as by a crash)
    out, compiled = _run(script, _env(cache))
    assert out == as_programs(str(script))[0].stdout
    assert compiled > 20
    assert codecache._read(str(path)), "the file was not written again whole"


def test_nothing_is_written_when_turned_off_or_under_dont_write_bytecode(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    for name, more in (("off", {"QUICKENING_CODE_CACHE": "0"}),
                       ("dont-write", {"PYTHONDONTWRITEBYTECODE": "1"})):
        cache = tmp_path / name
        _run(script, _env(cache, **more))
        assert not _cache_file(cache).exists(), name


# A child that imports the interpreter, counting the source it parses (ast.parse
# raises the compile event for "<unknown>"), and checks each hand-written body it
# took (from the file or not) against one taken apart now.
BODIES = textwrap.dedent("""
    import gc, sys
    parsed = []
    sys.addaudithook(lambda event, args: parsed.append(1)
                     if event == "compile" and args[1] == "<unknown>" else None)
    import quickening.api
    from quickening.interp import hand_bodies, spec
    members = [m for m in gc.get_objects() if type(m) is spec.Member and m._body is not None]
    count = len(parsed)
    for m in members:
        statements, reads = hand_bodies._taken_apart(m.op.fn, m.op.params)
        assert (m._body._statements, m._body.reads) == (statements, frozenset(reads)), m.name
    print(len(members), count)
""")


def test_hand_written_bodies_are_taken_apart_once(tmp_path):
    script = tmp_path / "bodies.py"
    script.write_text(BODIES)
    env = _env(tmp_path / "cache")
    runs = []
    for _ in range(2):
        proc = run_program([PYTHON, str(script)], env=env)
        assert proc.returncode == 0, proc.stderr
        runs.append(tuple(map(int, proc.stdout.split())))
    (members, parsed_first), (members_again, parsed_second) = runs
    assert members == members_again > 10
    assert parsed_first >= members       # every body was parsed the first time
    assert parsed_second == 0, runs      # and none the second: the file gave them
