"""`quickening dis` prints what CPython's dis prints for the same code -- labels,
CACHE lines, the exception table -- plus a `#` line of decoded caches per site.
The oracle is `dis.disassemble(code, adaptive=True, show_caches=True)` in a
native run of the same program; the live forms and counter values may differ
where the two interpreters' sites do, so those are compared after mapping each
form to its family and blanking the CACHE values; everything else is exact."""

import dis
import re
import subprocess
import sys

PYTHON = sys.executable

PROGRAM = """\
import contextlib

def branches(n):
    total = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        while total > 100:
            total -= 7
        total += i
    return total

def handlers(x):
    try:
        return 10 // x
    except ZeroDivisionError as exc:
        return str(exc)
    finally:
        x = None

def blocks(items):
    with contextlib.nullcontext() as c:
        squares = [v * v for v in items if v]
    return squares, c

def gen(n):
    for i in range(n):
        yield i + 1

for k in range(60):
    branches(20); handlers(k % 4); blocks([1, 0, 2]); list(gen(3))
"""

NAMES = ("branches", "handlers", "blocks", "gen")

NATIVE_DIS = """
import dis, io
for name in %r:
    buf = io.StringIO()
    dis.disassemble(globals()[name].__code__, file=buf, adaptive=True, show_caches=True)
    print("=== " + name)
    print(buf.getvalue(), end="")
""" % (NAMES,)

_BASE = {spec: base for base, specs in dis._specializations.items() for spec in specs}


def _normalized(text):
    out = []
    for line in text.splitlines():
        if line.strip().startswith("#"):
            continue            # our decoded caches
        line = re.sub(r"\b[A-Z][A-Z0-9_]+\b", lambda m: _BASE.get(m.group(), m.group()), line)
        line = re.sub(r"(CACHE\s+0 \(\w+: )\d+\)", r"\1N)", line)
        out.append(line.rstrip())
    while out and not out[-1]:
        out.pop()
    return out


def _ours(path):
    args = [a for name in NAMES for a in ("--function", name)]
    out = subprocess.run([PYTHON, "-m", "quickening", "dis", *args, str(path)],
                         capture_output=True, text=True, timeout=300, cwd=path.parent)
    assert out.returncode == 0, out.stderr
    listings = {}
    for block in out.stdout.split("Disassembly of ")[1:]:
        header, _, body = block.partition("\n")
        listings[header.split(" ")[0]] = body
    return listings


def test_each_listing_is_cpythons_dis_of_the_same_code(tmp_path):
    path = tmp_path / "prog.py"
    path.write_text(PROGRAM)
    native = subprocess.run([PYTHON, "-c", PROGRAM + NATIVE_DIS], capture_output=True,
                            text=True, check=True).stdout
    expected = {}
    for block in native.split("=== ")[1:]:
        name, _, body = block.partition("\n")
        expected[name] = body
    ours = _ours(path)
    assert set(ours) == set(NAMES)
    for name in NAMES:
        assert _normalized(ours[name]) == _normalized(expected[name]), name
        # the labels dis prints are there, each jump's target among them
        body = ours[name]
        targets = set(re.findall(r"\(to (L\d+)\)", body))
        labels = set(re.findall(r"^\s*(?:\d+|--)?\s+(L\d+):", body, re.M))
        assert targets <= labels, name
    assert "ExceptionTable:" in ours["handlers"]
    # each site's caches decoded, after its CACHE lines
    assert re.search(r"CACHE .*\n\s+# counter 0x[0-9a-f]{4} \(value \d+, backoff \d+\)",
                     ours["branches"])
