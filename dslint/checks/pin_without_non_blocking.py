"""DSL301 pin-without-non-blocking: pinned batches copied synchronously.

``pin_memory=True`` pays a pinning thread so that host-to-device copies can overlap with
compute, but only copies issued with ``non_blocking=True`` overlap.
"""

from __future__ import annotations

from typing import Iterator, Set

from ..analysis.model import ModuleSummary, Span
from ..diagnostics import Finding
from ..index import ProjectIndex
from .base import finding

CODE = "DSL301"


def check(summary: ModuleSummary, index: ProjectIndex) -> Iterator[Finding]:
    seen: Set[Span] = set()
    for site in summary.loaders:
        pin = site.keywords.get("pin_memory")
        if pin is None or pin.truthy != "true" or not index.is_loader_site(site):
            continue
        for move in site.batch_moves:
            if move.non_blocking or move.span in seen:
                continue
            seen.add(move.span)
            yield finding(
                CODE,
                summary.path,
                move.span,
                f"Batch from a `pin_memory=True` loader (line {site.span.row}) is copied with "
                f"`.{move.method}(...)` without `non_blocking=True`, so the copy cannot overlap "
                f"compute: add `non_blocking=True`",
            )
