"""Progress of ``holyclient batch`` on stderr: a live bar on a terminal, a plain line every N seconds
otherwise (CI logs and Kubernetes keep every line; a carriage return there is garbage)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

import anyio

Line = Callable[[float], str]


async def plain_lines(line: Line, every: float, stream: TextIO | None = None) -> None:
    """Print ``line(elapsed)`` every ``every`` seconds until cancelled (log-friendly: whole lines)."""
    started = time.monotonic()
    while True:
        await anyio.sleep(every)
        print(line(time.monotonic() - started), file=stream or sys.stderr, flush=True)


class LiveBar:
    """A rich progress bar with the progress line as its description (rich is imported only here)."""

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self._progress = Progress(
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            TextColumn("{task.description}"),
            console=Console(file=stream or sys.stderr),
            transient=True,
        )
        self._task = self._progress.add_task("", total=total)

    async def run(self, done: Callable[[], int], line: Line) -> None:
        """Refresh the bar until cancelled; the bar is removed when it stops."""
        started = time.monotonic()
        with self._progress:
            while True:
                self._progress.update(
                    self._task, completed=done(), description=line(time.monotonic() - started)
                )
                await anyio.sleep(0.25)


async def show(total: int, done: Callable[[], int], line: Line, *, every: float, tty: bool) -> Any:
    """The progress display this stderr calls for, until cancelled (``every`` 0: none off a terminal)."""
    if tty:
        await LiveBar(total).run(done, line)
    elif every > 0:
        await plain_lines(line, every)
