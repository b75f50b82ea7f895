"""The layers of the package, bottom first: a module imports only from its own layer
and the layers below it, and no import cycle exists anywhere (tests/test_layers.py
checks both, counting imports inside functions and the packages an import runs).

Each layer is (name, what it is, its modules).  "a.b" is that module alone; "a.b.*"
is a.b and everything inside it; the most specific entry places a module.  A
package's __init__ imports none of its own modules (its modules import it), so the
packages whose modules register themselves in a table are completed by a module
that imports them all (ops/table.py, families/table.py).
"""

LAYERS = (
    ("package", "the package itself and the helpers everything may use", (
        "quickening", "quickening._layers", "quickening.pyargs", "quickening.program",
        "quickening.termtable",
    )),
    ("lens", "the lens on the real CPython (loads on 3.11 and 3.12 too)", (
        "quickening.lens.*",
    )),
    # -- the interpreter (src/quickening/interp) ------------------------------------------
    ("host", "the host's tables, and facts about objects read from memory", (
        "quickening.interp", "quickening.interp.versions.*", "quickening.interp.host",
        "quickening.interp.hardening",
        "quickening.interp.facts", "quickening.interp.typewatch", "quickening.interp.escapes",
        "quickening.interp.shutdown", "quickening.interp.handled", "quickening.interp.codecache",
        "quickening.interp.generated", "quickening.interp.quiet",
    )),
    ("core", "the instruction table, code info, frames, quickening's sites and counters", (
        "quickening.interp.ops", "quickening.interp.ops.registry", "quickening.interp.quicken",
        "quickening.interp.codeinfo", "quickening.interp.frame",
    )),
    ("frames", "what the program sees of interpreted frames: frame objects, tracebacks, tracing", (
        "quickening.interp.frameview",
        "quickening.interp.localsproxy", "quickening.interp.tracebacks",
        "quickening.interp.tracing",
    )),
    ("loop", "the evaluation loop", (
        "quickening.interp.loop",
    )),
    ("objects", "the function and generator objects whose bodies run in the loop, and the "
                "host-facing views of its frames", (
        "quickening.interp.functions", "quickening.interp.generators",
        "quickening.interp.masquerade", "quickening.interp.sitestate",
        "quickening.interp.hostframes",
    )),
    ("instructions", "the generic instructions", (
        "quickening.interp.ops.*",
    )),
    ("vocabulary", "what a family and its members are declared in: guards, members, "
                   "the shapes of their fused forms", (
        "quickening.interp.lowering", "quickening.interp.hand_bodies", "quickening.interp.spec",
    )),
    ("specification", "the instruction families: specializers and members", (
        "quickening.interp.families", "quickening.interp.families.*",
    )),
    ("engine", "the speed engine: fused runs and inlined callees", (
        "quickening.interp.inlining", "quickening.interp.fusion",
    )),
    ("runtime", "builtins answered for interpreted frames, the import hook, Ctrl-C", (
        "quickening.interp.runtime", "quickening.interp.importer",
        "quickening.interp.interrupts", "quickening.interp.audit",
    )),
    # -- on top ---------------------------------------------------------------------------
    ("api", "the Python API of the interpreter and its statistics", (
        "quickening.api", "quickening.stats_report",
    )),
    ("measure", "measurements and experiments", (
        "quickening.measure.*",
    )),
    ("commands", "the command line", (
        "quickening.commands.*", "quickening.cpython_tests.*", "quickening.cli",
        "quickening.__main__",
    )),
)
