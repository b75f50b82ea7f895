"""A tiny stand-in for pyperf, enough to import pyperformance's benchmark files.

The benchmark files import pyperf at the top and use only `perf_counter` outside
their `if __name__ == "__main__"` block.  `Runner` is here so that code which
builds one (e.g. bm_chaos's `main(runner, args)` when handed a recorder) can
import it; it records what it is asked to benchmark instead of timing it.
"""

from time import perf_counter  # noqa: F401

__version__ = "0.0-stand-in"


class Runner:
    def __init__(self, *args, **kwargs):
        self.metadata = {}
        self.argparser = None
        self.recorded = []

    def bench_func(self, name, func, *args, **kwargs):
        self.recorded.append((name, func, args))

    def bench_time_func(self, name, func, *args, **kwargs):
        self.recorded.append((name, func, args))

    def bench_async_func(self, name, func, *args, **kwargs):
        self.recorded.append((name, func, args))
