"""DSL104 shared-handle: one file offset / decoder state shared by every worker.

A handle opened in the parent (module scope or a Dataset's ``__init__``) is inherited by
every forked worker: reads interleave on one offset (silently wrong samples) and a video
decoder that already ran in the parent hangs in its dead thread pool; spawn cannot pickle
it at all. Open it per worker instead.
"""

from __future__ import annotations

from typing import Iterator, Set

from ..analysis.model import ModuleSummary
from ..diagnostics import Finding
from ..index import ProjectIndex
from .base import finding

CODE = "DSL104"


def _reopened_by_worker_init(index: ProjectIndex) -> Set[str]:
    attrs: Set[str] = set()
    for function in index.worker_init_functions():
        attrs |= function.assigned_attrs
    return attrs


def check(summary: ModuleSummary, index: ProjectIndex) -> Iterator[Finding]:
    datasets = [c for c in summary.classes if index.is_dataset(c.qualname)]
    if not datasets:
        return
    reopened = None
    for facts in datasets:
        for handle in facts.handles:
            if not handle.used_by_worker or handle.reopened:
                continue
            if reopened is None:
                reopened = _reopened_by_worker_init(index)
            if handle.attr in reopened:
                continue
            yield finding(
                CODE,
                summary.path,
                handle.span,
                f"`{handle.constructor.replace('builtins.', '')}(...)` opened in "
                f"`{facts.name}.__init__` as `self.{handle.attr}` is shared by every DataLoader "
                f"worker (one file offset / decoder state): keep the path and open it lazily "
                f"in the worker, on first use in `__getitem__`",
            )
    for handle in summary.module_handles:
        if handle.used_by_worker:
            yield finding(
                CODE,
                summary.path,
                handle.span,
                f"`{handle.constructor.replace('builtins.', '')}(...)` opened at module level as "
                f"`{handle.attr}` and read by a Dataset is shared by every DataLoader worker: "
                f"open it lazily in the worker, on first use in `__getitem__`",
            )
