"""A progress bar on stderr for long runs: only when stderr is a terminal and there are
many files; silent otherwise (pipes, CI logs, pre-commit, small runs)."""

from __future__ import annotations

import os
import sys
from typing import Optional, TextIO

THRESHOLD = 200  # files; below this a run is over before a bar is worth drawing


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class ProgressBar:
    """``progress(done, total)`` for ``engine.run``; draws a transient rich bar."""

    def __init__(self, stream: Optional[TextIO] = None, threshold: int = THRESHOLD):
        self.stream = stream if stream is not None else sys.stderr
        self.threshold = threshold
        self.enabled = _isatty(self.stream) and os.environ.get("TERM") != "dumb"
        self._progress = None
        self._task = None

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total <= self.threshold:
            return
        if self._progress is None:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            console = Console(file=self.stream, stderr=True)
            self._progress = Progress(
                TextColumn("dslint: checking"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                console=console, transient=True,
            )
            self._progress.start()
            self._task = self._progress.add_task("files", total=total)
        self._progress.update(self._task, completed=done, total=total)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    def __enter__(self) -> "ProgressBar":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
