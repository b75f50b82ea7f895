"""The depth at which RecursionError is raised, as natively, for recursion that
goes through native code (a C slot calling __repr__, a native next() resuming a
generator, a class body run by __build_class__ ...) as well as for plain Python
recursion: the program's frames are what counts, not the interpreter's own host
frames.  Differential: the same program run by `python` and by `quickening run`."""

import textwrap

from tests.interp.differential import assert_same_program

_SHAPES = """
    import functools, sys, threading

    def deepest(recurse):
        # how many levels the recursion reached, and what stopped it
        levels = [0]
        def level():
            levels[0] += 1
        try:
            recurse(level)
        except RecursionError as exc:
            return levels[0], str(exc)
        return levels[0], None

    def plain(level):
        def down():
            level(); down()
        down()

    def through_repr(level):
        class A:
            def __repr__(self):
                level(); return repr(self)
        repr(A())

    def through_str(level):
        class A:
            def __str__(self):
                level(); return str(self)
        str(A())

    def through_property(level):
        class A:
            @property
            def p(self):
                level(); return self.p
        A().p

    def through_getattr(level):
        class A:
            def __getattr__(self, name):
                level(); return getattr(self, name)
        A().missing

    def through_yield_from(level):
        def gen():
            level()
            yield from gen()
        next(gen())

    def through_native_next(level):
        def gen():
            level(); yield next(gen())
        next(gen())

    def through_for_over_a_generator(level):
        def gen():
            level()
            for x in gen():
                yield x
        list(gen())

    def through_eq(level):
        class A:
            def __eq__(self, other):
                level(); return self == other
        A() == 1

    def through_a_native_key(level):
        def key(x):
            level(); return sorted([1], key=key)
        sorted([1], key=key)

    def through_map(level):
        def f(x):
            level(); return list(map(f, [x]))
        f(1)

    def through_class_bodies(level):
        def f():
            level()
            class A:
                f()
        f()

    def through_lru_cache(level):
        @functools.lru_cache(None)
        def f(n):
            level(); return f(n + 1)
        f(0)

    SHAPES = (plain, through_repr, through_str, through_property, through_getattr,
              through_yield_from, through_native_next, through_for_over_a_generator,
              through_eq, through_a_native_key, through_map, through_class_bodies,
              through_lru_cache)
    """


def _same(tmp_path, source):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(_SHAPES) + textwrap.dedent(source))
    assert_same_program(str(script))


def test_depth_reached_at_the_default_limit(tmp_path):
    _same(tmp_path, """
        for shape in SHAPES:
            print(shape.__name__, *deepest(shape))
        """)


def test_depth_reached_at_a_limit_the_program_sets(tmp_path):
    _same(tmp_path, """
        for limit in (150, 1200):
            sys.setrecursionlimit(limit)
            for shape in SHAPES:
                print(limit, shape.__name__, *deepest(shape))
        """)


def test_depth_reached_in_a_thread(tmp_path):
    _same(tmp_path, """
        def run():
            for shape in SHAPES:
                print("thread", shape.__name__, *deepest(shape))
        thread = threading.Thread(target=run)
        thread.start()
        thread.join()
        """)


def test_recursion_through_native_code_then_plain_recursion(tmp_path):
    """A program that recursed deep through native code and returned goes on with
    the room it had: the interpreter took back what it gave the host."""
    _same(tmp_path, """
        for round_ in range(3):
            print(round_, *deepest(through_repr), *deepest(plain), *deepest(through_native_next))
        """)
