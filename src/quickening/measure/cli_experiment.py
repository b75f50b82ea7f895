"""`quickening experiment NAME`: the published measurements, reproduced here."""

from quickening.measure import cliutil, machine, records
from quickening.measure.experiments import EXPERIMENTS
from quickening.measure.progress import Progress

PROG = "quickening experiment"


def usage() -> str:
    width = max(map(len, EXPERIMENTS))
    lines = [f"usage: {PROG} NAME [options]", "", "experiments:"]
    for name, mod in EXPERIMENTS.items():
        lines.append(f"  {name:<{width}}  {mod.SUMMARY}")
    lines += ["", f"`{PROG} NAME --help` describes one experiment's options.",
              "Each run writes a JSON record (see `quickening records`) and a chart (PNG, SVG)."]
    return "\n".join(lines)


def _main(argv) -> int:
    argv = list(argv)
    if not argv or argv[0] in ("-h", "--help", "help", "list"):
        print(usage())
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    exp = EXPERIMENTS.get(name)
    if exp is None:
        raise cliutil.UsageError(f"unknown experiment {name!r}; choose from "
                                 + ", ".join(EXPERIMENTS))
    parser = cliutil.Parser(prog=f"{PROG} {name}", description=exp.__doc__,
                            formatter_class=__import__("argparse").RawDescriptionHelpFormatter)
    exp.add_arguments(parser)
    cliutil.add_output_options(parser)
    opts = parser.parse_args(rest)
    try:
        return _run(name, exp, opts, argv)
    except ValueError as exc:
        raise cliutil.UsageError(str(exc)) from None


def _run(name, exp, opts, argv) -> int:
    validate = getattr(exp, "validate", None)
    if validate:                # bad options: fail before any progress is shown
        validate(opts)
    preflight = getattr(exp, "preflight", None)
    message = preflight(opts) if preflight else None
    if message:                 # the experiment cannot run here: say why, plainly
        print(message)
        return 1
    record = records.new_record("experiment", name, ["quickening", "experiment", *argv], {},
                                machine.describe_machine())
    total = getattr(exp, "total_steps", lambda o: len(getattr(o, "python", []) or [1]))(opts)
    try:
        with Progress(total, f"experiment {name}", quiet=opts.quiet) as progress:
            record = exp.run(opts, record, progress)
    except ValueError as exc:
        raise cliutil.UsageError(str(exc)) from None
    record["machine_end"] = {"load_average": machine.load_average(), "date": machine.now_utc()}
    return cliutil.finish(record, opts, exp.render_text)


def main(argv) -> int:
    return cliutil.guarded(PROG, _main, argv)
