"""The traceback a native caller sees of an exception that leaves interpreted code
(a thread's target, a unittest test, a worker of concurrent.futures, a generator
driven by native code) is CPython's: the same entries (file, line, name) and the
same identities between them, none of the interpreter's own frames.  Each
snippet runs natively and interpreted (tests/interp/differential.py); what the
native code saw is compared."""

import pytest

from tests.interp.differential import assert_same

# entries(tb): (file name, line, function) of each entry, outermost first
_ENTRIES = """
import os, sys
def entries(tb):
    out = []
    while tb is not None:
        code = tb.tb_frame.f_code
        out.append((os.path.basename(code.co_filename), tb.tb_lineno, code.co_name))
        tb = tb.tb_next
    return out
"""

SNIPPETS = {
    # threading.excepthook gets the target's exception with the traceback the
    # thread's bootstrap caught
    "thread_target_raises": _ENTRIES + """
import threading
seen = []
def target():
    {}["k"]
def hook(args):
    seen.append((args.exc_type.__name__, entries(args.exc_traceback)))
saved = threading.excepthook
threading.excepthook = hook
try:
    t = threading.Thread(target=target)
    t.start()
    t.join()
finally:
    threading.excepthook = saved
del t     # (its repr names a thread counter and an id)
r = seen
""",
    # a generator driven by native code (next() as the thread's target)
    "thread_target_drives_a_generator": _ENTRIES + """
import threading
seen = []
def numbers():
    yield 1
    raise ValueError("two")
def hook(args):
    seen.append((args.exc_type.__name__, entries(args.exc_traceback)))
saved = threading.excepthook
threading.excepthook = hook
try:
    g = numbers()
    next(g)
    t = threading.Thread(target=next, args=(g,))
    t.start()
    t.join()
finally:
    threading.excepthook = saved
del t     # (its repr names a thread counter and an id)
r = seen
""",
    # unittest's report of a failing test and an erroring one, as it formats them
    "unittest_report": """
import unittest
def helper(d):
    return d["missing"]
class T(unittest.TestCase):
    def test_error(self):
        helper({})
    def test_fail(self):
        self.assertEqual(1, 2)
result = unittest.TestResult()
unittest.defaultTestLoader.loadTestsFromTestCase(T).run(result)
r = [text for _, text in result.errors + result.failures]
""",
    # the worker's exception as the future holds it, and re-raised by result():
    # the re-raise prepends entries to the very traceback the worker made
    "future_exception_and_reraise": _ENTRIES + """
from concurrent.futures import ThreadPoolExecutor
def work(x):
    return 1 // x
with ThreadPoolExecutor(1) as pool:
    fut = pool.submit(work, 0)
    err = fut.exception()
    held = err.__traceback__
    try:
        fut.result()
    except ZeroDivisionError as again:
        tb = again.__traceback__
r = [entries(held), entries(tb), tb.tb_next.tb_next.tb_next is held]
""",
    # code walking the traceback of a coroutine's exception as asyncio's loop
    # reports it (the callback of a task sees its exception natively)
    "asyncio_task_exception": _ENTRIES + """
import asyncio
seen = []
async def inner():
    await asyncio.sleep(0)
    raise KeyError("k")
async def main():
    task = asyncio.ensure_future(inner())
    task.add_done_callback(lambda t: seen.append(entries(t.exception().__traceback__)))
    try:
        await task
    except KeyError:
        pass
asyncio.run(main())
r = seen
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_native_caller_sees_cpythons_traceback(name):
    assert_same(SNIPPETS[name], filename=f"<{name}>")


def test_import_system_as_the_native_caller(tmp_path):
    """A module run in the interpreter raising while it is imported: the import
    system drops its own frames from the traceback as natively (down to
    _call_with_frames_removed), both where the importer catches it and uncaught."""
    from tests.interp.differential import assert_same_program
    (tmp_path / "badmod.py").write_text("def f():\n    return 1 / 0\nf()\n")
    script = tmp_path / "main.py"
    script.write_text("import traceback\n"
                      "try:\n    import badmod\nexcept ZeroDivisionError:\n"
                      "    traceback.print_exc()\n"
                      "import badmod\n")
    assert_same_program(str(script))
