"""When the program's objects are freed under the interpreter: at the moment
CPython frees them (their last reference gone), not at the next garbage
collection.  Differential: the same program run by `python` and by
`quickening run`, whose output records the order of every __del__."""

import textwrap

from tests.interp.differential import assert_same_program


def _same(tmp_path, source):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(source))
    assert_same_program(str(script))


def test_frame_taken_by_a_callee_does_not_keep_the_callers_locals(tmp_path):
    """sys._getframe(1), inspect.currentframe().f_back and traceback.extract_stack()
    in a callee: natively the caller's locals are freed when it returns."""
    _same(tmp_path, """
        import gc, inspect, sys, traceback
        gc.disable()        # (a collection would hide a cycle)
        gc.collect()        # (what start-up left)

        class Noisy:
            def __init__(self, name):
                self.name = name
            def __del__(self):
                print("freed", self.name)

        def by_getframe():
            sys._getframe(1)
        def by_f_back():
            return inspect.currentframe().f_back.f_lineno
        def by_extract_stack():
            traceback.extract_stack()
        def by_walk_outwards():
            f = sys._getframe()
            while f is not None:
                f = f.f_back
        def by_stack():
            inspect.stack()

        def caller(callee, name):
            local = Noisy(name)
            callee()
            print("returning from", name)

        for callee in (by_getframe, by_f_back, by_extract_stack, by_walk_outwards, by_stack):
            caller(callee, callee.__name__)
            print("returned from", callee.__name__)

        def nested(name):
            def inner():
                return sys._getframe(1).f_locals["local"].name
            local = Noisy(name)
            print("inner saw", inner())
        nested("nested")
        print("after nested")
        print("garbage left:", gc.collect())
        """)


def test_frame_object_kept_by_the_program_keeps_what_natively_it_keeps(tmp_path):
    """A frame object the program holds keeps its activation's variables, as natively;
    dropping it frees them."""
    _same(tmp_path, """
        import gc, sys
        gc.disable()
        gc.collect()

        class Noisy:
            def __init__(self, name):
                self.name = name
            def __del__(self):
                print("freed", self.name)

        def take():
            return sys._getframe(1)
        def caller():
            local = Noisy("kept")
            return take()
        frame = caller()
        print("holding the frame", frame.f_code.co_name)
        del frame
        print("dropped the frame")
        print("garbage left:", gc.collect())
        """)


def test_a_finished_generator_leaves_no_garbage(tmp_path):
    """A generator run to its end, closed, broken out of or raising -- through a
    native caller, a for loop or yield from -- is freed at its last reference, and
    leaves nothing for the collector (natively a generator and its frame are no
    cycle)."""
    _same(tmp_path, """
        import gc
        gc.disable()
        gc.collect()

        class Noisy:
            def __del__(self):
                print("  freed")

        def gen():
            n = Noisy()
            try:
                yield 1
                yield 2
            finally:
                print("  finally")

        g = gen(); list(g); del g
        print("exhausted natively:", gc.collect())
        g = gen(); next(g); del g
        print("suspended, then dropped:", gc.collect())
        for x in gen():
            pass
        print("for loop:", gc.collect())
        for x in gen():
            break
        print("for loop, break:", gc.collect())

        def raising():
            yield 1
            raise ValueError
        try:
            for x in raising():
                pass
        except ValueError:
            pass
        print("for loop, raising:", gc.collect())

        def outer():
            yield from gen()
        print(list(outer()), "yield from:", gc.collect())
        """)


def test_a_generator_dropped_before_it_starts_frees_its_arguments_at_once(tmp_path):
    """An unstarted generator, coroutine or async generator the program drops:
    natively freed by its reference count, with what its frame holds (the frame
    is no cycle with the generator until it starts); reading or clearing its frame
    first changes nothing of that."""
    _same(tmp_path, """
        import gc, warnings, weakref
        warnings.simplefilter("ignore", RuntimeWarning)
        gc.disable()
        gc.collect()

        class Noisy:
            def __init__(self, name):
                self.name = name
            def __del__(self):
                print("freed", self.name)

        def numbers(token):
            yield token.name
            yield 2

        async def job(token):
            return token.name

        async def agen(token):
            yield token.name

        for make in (numbers, job, agen):
            g = make(Noisy(make.__name__ + " unstarted"))
            probe = weakref.ref(g)
            del g
            print(make.__name__, "dropped unstarted; alive:", probe() is not None)

        g = numbers(Noisy("started"))
        print(next(g))
        del g
        print("dropped started")

        def consumer():
            for x in numbers(Noisy("inline loop")):
                print("got", x)
                break
            print("after loop")
        for _ in range(3):
            consumer()
        print("garbage left:", gc.collect())
        g = numbers(Noisy("unstarted, gi_frame read"))
        print(g.gi_frame.f_lineno, g.gi_frame.f_locals["token"].name)
        del g
        print("dropped after gi_frame")
        g = numbers(Noisy("unstarted, frame cleared"))
        g.gi_frame.clear()
        print("cleared", g.gi_frame)
        try:
            next(g)
        except StopIteration:
            print("finished by clear()")
        del g
        c = job(Noisy("coroutine, frame cleared"))
        c.cr_frame.clear()
        print("cleared; frame kept:", c.cr_frame is not None)
        del c
        print("garbage left:", gc.collect())
        """)
