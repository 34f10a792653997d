"""DSL303 synchronous-loading (off by default): a training loop fed by zero workers.

With ``num_workers=0`` every batch is loaded in the training process between steps: the
accelerator waits for the data.
"""

from __future__ import annotations

from typing import Iterator

from ..analysis.model import ModuleSummary
from ..analysis.values import W_ZERO
from ..diagnostics import Finding
from ..index import ProjectIndex
from .base import finding

CODE = "DSL303"


def check(summary: ModuleSummary, index: ProjectIndex) -> Iterator[Finding]:
    for site in summary.loaders:
        if site.training_loop is None or site.workers != W_ZERO or site.splat_unresolved:
            continue
        if not index.is_loader_site(site):
            continue
        yield finding(
            CODE,
            summary.path,
            site.span,
            f"Training loop (line {site.training_loop.row}) is fed by a DataLoader with zero workers: "
            f"every batch is loaded synchronously between steps; set `num_workers` (e.g. 4) to load "
            f"in the background",
        )
