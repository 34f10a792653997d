"""Absolute paths, memoised for the length of one run.

``os.path.abspath`` of a relative path asks the operating system for the working directory
every time, and a run asks it about each file in several places (discovery, settings, the
cache, boundaries, module identities): on a warm run over 8,000 files that was about a
third of the time. Within a run the working directory does not change, so the answer is
kept per path while ``one_run()`` is active; outside one, ``absolute`` is plain
``os.path.abspath``.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Dict, Iterator, Optional

_MEMO: Optional[Dict[str, str]] = None  # path as given → absolute path; None: no run active


def absolute(path: str) -> str:
    """``os.path.abspath(path)``, memoised during a run."""
    memo = _MEMO
    if memo is None:
        return os.path.abspath(path)
    found = memo.get(path)
    if found is None:
        found = memo[path] = os.path.abspath(path)
    return found


def known(path: str, full: str) -> None:
    """Record that ``path`` is ``full`` (the file walk builds each absolute path anyway)."""
    if _MEMO is not None:
        _MEMO[path] = full


@contextmanager
def one_run() -> Iterator[None]:
    """Memoise ``absolute`` until the block ends (nested runs share the outer memo). The
    memo starts empty so that a run sees the working directory it was started in."""
    global _MEMO
    outer = _MEMO
    if outer is None:
        _MEMO = {}
    try:
        yield
    finally:
        _MEMO = outer
