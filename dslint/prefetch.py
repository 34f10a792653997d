"""Summaries the queries will likely ask for, computed ahead on a core that would idle.

A boundary's rules run in one process, and the project modules they reach that were not
summarised up front are summarised on demand there, one at a time (``engine.lazy_summary``):
in a large project (``transformers``) that is a third of the rules' time, while the other
cores wait. So when a core is free, a forked helper summarises the likely ones ahead (the
project modules the summarised files import: three in four of those asked for, measured on
``transformers``) and leaves each, pickled, in a private temporary folder. An on-demand
summary takes it from there when it is ready (loading costs about a fifth of computing) and
computes it itself otherwise; the helper skips what was already taken. Summarising is a pure
function of the file, so the summaries, and the findings, are the same either way.
``DSLINT_NO_PREFETCH=1`` turns the helper off (to compare, or on a machine shared with
other work that the idle-core measure cannot see coming).
"""

from __future__ import annotations

import io
import os
import pickle
import shutil
import tempfile
from typing import Callable, Dict, List, Optional, Sequence

from . import parallel

MIN_BYTES = parallel.PARSE_BYTES_PER_WORKER  # less source to summarise ahead does not pay for the helper


class Prefetch:
    """A forked helper summarising ``paths`` in order with ``summarise`` (path -> result)."""

    def __init__(self, paths: Sequence[str], summarise: Callable[[str], object], tuple_types: Sequence[type] = ()):
        import multiprocessing

        context = multiprocessing.get_context("fork")
        self.numbers: Dict[str, int] = {path: number for number, path in enumerate(paths)}
        self.taken = context.RawArray("b", len(paths))  # set here when a path is no longer wanted
        self.folder = tempfile.mkdtemp(prefix="dslint-prefetch-")
        self.process = context.Process(target=_work, args=(list(paths), summarise, self.taken, self.folder,
                                                           tuple(tuple_types)), daemon=True)
        self.process.start()

    def take(self, path: str):
        """The helper's result for ``path`` if it is ready, else None (the caller computes it)."""
        number = self.numbers.pop(path, None)
        if number is None:
            return None
        self.taken[number] = 1
        ready = os.path.join(self.folder, str(number))
        try:
            with open(ready, "rb") as handle:
                data = handle.read()
        except OSError:
            return None
        try:
            return pickle.loads(data)  # written by this run's own helper, in its private folder
        except Exception:
            return None

    def close(self) -> None:
        """Stop the helper and remove what it left."""
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        shutil.rmtree(self.folder, ignore_errors=True)


def _work(paths: List[str], summarise, taken, folder: str, tuple_types) -> None:
    """The helper: summarise each path not yet taken; each result appears whole or not at all."""
    try:
        for number, path in enumerate(paths):
            if taken[number]:
                continue
            try:
                buffer = io.BytesIO()
                parallel._tuple_pickler(buffer, tuple_types).dump(summarise(path))
            except Exception:
                continue  # computed on demand, where a failure shows
            part = os.path.join(folder, f"{number}.part")
            with open(part, "wb") as handle:
                handle.write(buffer.getvalue())
            os.replace(part, os.path.join(folder, str(number)))
    finally:
        os._exit(0)  # nothing of the parent's to tear down


def start(paths: Sequence[str], sizes: Sequence[int], jobs: int, idle: Optional[float],
          summarise: Callable[[str], object], tuple_types: Sequence[type] = ()) -> Optional[Prefetch]:
    """A helper for ``paths`` when forking is possible, ``jobs`` allows a second process, a
    core is idle (``idle``: ``parallel.idle_cores``) and there is enough to summarise."""
    if not parallel.FORK or jobs < 2 or not paths or sum(sizes) < MIN_BYTES or os.environ.get("DSLINT_NO_PREFETCH"):
        return None
    if idle is not None and idle < 0.5:
        return None
    try:
        return Prefetch(paths, summarise, tuple_types)
    except OSError:
        return None
