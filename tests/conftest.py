"""Settings for the whole suite."""

import os

# GNU readline, which pytest imports (through pdb), writes LINES and COLUMNS into
# the process's C environment when it starts (unseen in os.environ): every command
# a test starts would then fit its tables to 80 columns in a pipe.  Tests that
# want a width (tests/commands/test_tables.py) set COLUMNS themselves.
for _name in ("COLUMNS", "LINES"):
    os.environ[_name] = ""
    del os.environ[_name]        # (unsetenv, which the C environment sees)


# The slowest tests first, so that at the end of a `-n 2` run neither worker
# is left with a long test while the other idles.  tests/durations.json holds
# each test's seconds (setup, call and teardown) as a run with
# --record-durations wrote them; a test not in it counts as NEW_TEST_SECONDS.
# A module with module- or class-scoped fixtures moves as one block, in its
# own order, so that its fixtures are not made again for every test.
DURATIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "durations.json")
NEW_TEST_SECONDS = 1.0


# Under PYTHONDONTWRITEBYTECODE no process writes .pyc files, so every process a
# test starts compiles quickening's 130 modules again: 0.8 s of each start-up of
# `quickening run` (1.0 s against 0.2 s with them compiled).  The controller
# compiles them once, where any run without the setting would write them (a .pyc
# is read under the setting, and checked against its source as usual).  A pycache
# prefix would not do: with one set, the standard library's .pyc are not read.
def pytest_configure(config):
    if hasattr(config, "workerinput") or not os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return
    import compileall
    source = os.path.join(os.path.dirname(os.path.dirname(DURATIONS)), "src", "quickening")
    compileall.compile_dir(source, quiet=1)


def pytest_addoption(parser):
    parser.addoption("--record-durations", action="store_true",
                     help="write each test's duration to tests/durations.json (the order of runs)")


def pytest_collection_modifyitems(config, items):
    import json
    try:
        with open(DURATIONS) as fh:
            known = json.load(fh)
    except FileNotFoundError:
        known = {}
    blocks = {}             # first index of the block -> [seconds, items]
    block_of_module = {}
    for index, item in enumerate(items):
        module = item.nodeid.split("::")[0]
        fixtures = getattr(item, "_fixtureinfo", None)
        shared = fixtures is not None and any(
            d.scope in ("module", "class", "package")
            for defs in fixtures.name2fixturedefs.values() for d in defs)
        if shared:
            first = block_of_module.setdefault(module, index)
        else:
            first = index
        block = blocks.setdefault(first, [0.0, []])
        block[0] += known.get(item.nodeid, NEW_TEST_SECONDS)
        block[1].append(item)
    order = sorted(blocks.items(), key=lambda entry: (-entry[1][0], entry[0]))
    items[:] = [item for _, (_, block) in order for item in block]


_durations = {}


def pytest_runtest_logreport(report):
    _durations[report.nodeid] = _durations.get(report.nodeid, 0.0) + report.duration


def pytest_sessionfinish(session):
    config = session.config
    if config.getoption("record_durations") and not hasattr(config, "workerinput"):
        import json
        with open(DURATIONS, "w") as fh:
            json.dump({k: round(v, 2) for k, v in sorted(_durations.items())}, fh, indent=0)
            fh.write("\n")
