"""Shared command-line plumbing: one-line errors, record saving, chart writing."""

import argparse
import os
import sys

from quickening.measure import records
from quickening.measure.runner import MeasureError


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    """argparse that raises instead of printing usage and exiting."""

    def error(self, message):
        raise UsageError(message)


def attach_values(argv, options):
    """Let `--a-arg -Xfoo` work: glue a dash-leading value to its option."""
    out, i = [], 0
    while i < len(argv):
        if argv[i] in options and i + 1 < len(argv):
            out.append(f"{argv[i]}={argv[i + 1]}")
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def add_output_options(p):
    p.add_argument("--records", metavar="DIR",
                   help="records folder (default $QUICKENING_RECORDS or ./quickening-records)")
    p.add_argument("--no-record", action="store_true", help="do not write a JSON record")
    p.add_argument("--chart", metavar="STEM",
                   help="write the chart to STEM.png and STEM.svg (default: beside the record)")
    p.add_argument("--no-chart", action="store_true", help="do not draw a chart")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")


def guarded(prog, body, argv) -> int:
    """Run body(argv) turning expected failures into one line on stderr."""
    try:
        return body(argv)
    except UsageError as exc:
        print(f"{prog}: {exc} (see `{prog} --help`)", file=sys.stderr)
        return 2
    except MeasureError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return exc.status
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:        # output piped into `head` and the like
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 0
    except SystemExit as exc:  # --help
        return exc.code if isinstance(exc.code, int) else 0


def finish(record, opts, text_renderer) -> int:
    """Save the record and charts, print the summary and where things went."""
    print(text_renderer(record))
    saved = []
    if not opts.no_record:
        directory = records.records_dir(opts.records)
        if not opts.no_chart:
            stem = opts.chart or str(directory / record["id"])
            record["charts"] = chart_files(record, stem)
        path = records.save(record, directory)
        saved.append(f"record: {path}")
    elif not opts.no_chart and opts.chart:
        record["charts"] = chart_files(record, opts.chart)
    for c in record.get("charts") or []:
        saved.append(f"chart:  {c}")
    if saved:
        print()
        print("\n".join(saved))
    return 0


def chart_files(record, stem) -> list:
    from quickening.measure import charts
    from quickening.measure.experiments import EXPERIMENTS
    try:
        return [str(p) for p in charts.draw(record, stem, EXPERIMENTS)]
    except MeasureError:
        raise
    except Exception as exc:  # a chart must never lose the measurement
        print(f"warning: chart not drawn: {type(exc).__name__}: {exc}", file=sys.stderr)
        return []
