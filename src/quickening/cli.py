"""Top-level command dispatch: `quickening COMMAND ...`.

Each command lives in its own module exposing ``main(argv) -> int``; this
table is the one place that names them, so `quickening --help` lists them all
and an unknown command is a one-line error.
"""

import importlib
import sys

# command name -> (module, one-line summary)
COMMANDS = {
    "run": ("quickening.commands.run", "run a program in the interpreter, like `python`"),
    "dis": ("quickening.commands.dis", "show the interpreter's live quickened stream"),
    "fidelity": ("quickening.commands.fidelity", "compare interpreter and CPython site by site"),
    "cpython-tests": ("quickening.commands.cpython_tests", "run Lib/test modules natively and interpreted"),
    "watch": ("quickening.lens.cli", "run natively and report what CPython specialized"),
    "warmup": ("quickening.lens.warmup_cli", "show each site's form execution by execution"),
    "compare": ("quickening.measure.cli_compare", "interleaved A/B of two interpreter configurations"),
    "experiment": ("quickening.measure.cli_experiment", "reproduce the published measurements"),
    "records": ("quickening.measure.cli_records", "list, show and compare experiment records"),
}


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = ["usage: quickening COMMAND [options] ...", "", "commands:"]
    for name, (_, summary) in COMMANDS.items():
        lines.append(f"  {name:<{width}}  {summary}")
    lines.append("")
    lines.append("`quickening COMMAND --help` describes one command.")
    return "\n".join(lines)


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(usage())
        return 0 if argv else 2
    if argv[0] in ("-V", "--version"):
        from quickening import __version__
        print(f"quickening {__version__}")
        return 0
    name, rest = argv[0], argv[1:]
    entry = COMMANDS.get(name)
    if entry is None:
        print(f"quickening: unknown command {name!r} (see `quickening --help`)", file=sys.stderr)
        return 2
    module = importlib.import_module(entry[0])
    return module.main(rest)
