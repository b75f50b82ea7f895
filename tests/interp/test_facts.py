"""facts.py: what it reads from memory stays valid while other threads run."""

import textwrap

from tests.interp.differential import assert_same_program

# Writers replace a class's __getattribute__ while the reader's LOAD_ATTR
# specializes on it (test_opcache's TestRacesDoNotCrash, with a thread switch as
# often as CPython allows).  The specializer's MRO lookup of __getattribute__ once
# got a borrowed pointer: a writer freed the function before it became an object,
# and the interpreter crashed (in most runs of 150 rounds).
RACE = """\
import sys
import threading

sys.setswitchinterval(1e-6)


def make():
    class C:
        __getattribute__ = lambda self, name: None
    return [C() for _ in range(300)]


def read(items):
    for item in items:
        item.a


def write(items):
    for item in items:
        type(item).__getattribute__ = lambda self, name: None


for _ in range(150):
    items = make()
    read(items)
    read(items)
    writers = [threading.Thread(target=write, args=[items]) for _ in range(2)]
    for w in writers:
        w.start()
    for _ in range(5):
        read(items)
    for w in writers:
        w.join()
print("done")
"""


def test_type_lookup_while_writers_replace_the_value(tmp_path):
    script = tmp_path / "race_getattribute.py"
    script.write_text(textwrap.dedent(RACE))
    nat = assert_same_program(str(script))
    assert nat.stdout == "done\n"
