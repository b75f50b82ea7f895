"""Progress while a measurement runs, written to stderr.

On a terminal it is a rich progress bar with the current run; otherwise
(a pipe, a log file, CI) one plain line per finished run, so a long
measurement is never silent.
"""

import sys


class Progress:
    def __init__(self, total: int, title: str, quiet: bool = False, stream=None):
        self.total = max(1, total)
        self.title = title
        self.quiet = quiet
        self.stream = stream or sys.stderr
        self.done = 0
        self._rich = None
        self._task = None
        if not quiet and getattr(self.stream, "isatty", lambda: False)():
            try:
                from rich.console import Console
                from rich.progress import (BarColumn, MofNCompleteColumn, Progress as RP,
                                           TextColumn, TimeElapsedColumn)
                console = Console(file=self.stream)
                self._rich = RP(TextColumn("[bold]{task.description}"), BarColumn(),
                                MofNCompleteColumn(), TimeElapsedColumn(),
                                TextColumn("{task.fields[last]}"),
                                console=console, transient=True)
            except Exception:  # rich missing or unusable: fall back to lines
                self._rich = None

    def __enter__(self):
        if self._rich is not None:
            self._rich.start()
            self._task = self._rich.add_task(self.title, total=self.total, last="")
        elif not self.quiet:
            print(f"{self.title}: {self.total} runs", file=self.stream, flush=True)
        return self

    def __exit__(self, *exc):
        if self._rich is not None:
            self._rich.stop()
        return False

    def starting(self, what: str):
        if self._rich is not None:
            self._rich.update(self._task, description=f"{self.title} · {what}")

    def finished(self, what: str, result: str):
        self.done += 1
        if self._rich is not None:
            self._rich.update(self._task, advance=1, last=f"{what}: {result}")
        elif not self.quiet:
            print(f"  [{self.done}/{self.total}] {what}: {result}", file=self.stream, flush=True)

    def note(self, text: str):
        if self.quiet:
            return
        if self._rich is not None:
            self._rich.console.print(text)
        else:
            print(text, file=self.stream, flush=True)
