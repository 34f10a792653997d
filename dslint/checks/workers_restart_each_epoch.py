"""DSL302 workers-restart-each-epoch: worker processes torn down and started every epoch.

Without ``persistent_workers=True`` every ``for batch in loader`` starts the workers anew
(each re-importing or forking, rebuilding its dataset copy) and shuts them down at the end.
"""

from __future__ import annotations

from typing import Iterator

from ..analysis.model import ModuleSummary
from ..analysis.values import W_POSITIVE
from ..diagnostics import Finding
from ..index import ProjectIndex
from .base import finding

CODE = "DSL302"


def check(summary: ModuleSummary, index: ProjectIndex) -> Iterator[Finding]:
    for site in summary.loaders:
        if site.epoch_loop is None or site.workers != W_POSITIVE or site.splat_unresolved:
            continue
        if "persistent_workers" in site.keywords or not index.is_loader_site(site):
            continue
        yield finding(
            CODE,
            summary.path,
            site.span,
            f"DataLoader with {site.workers_source} workers is iterated on every pass of the loop at "
            f"line {site.epoch_loop.span.row} and restarts its workers each time: add "
            f"`persistent_workers=True`",
        )
