"""DSL403 sampler-set-epoch: a DistributedSampler shuffles the same way every epoch.

``DistributedSampler`` derives its permutation from ``seed + epoch``; unless
``sampler.set_epoch(epoch)`` is called each epoch, every epoch sees the same order.
"""

from __future__ import annotations

from typing import Iterator

from ..analysis import names
from ..analysis.model import ModuleSummary
from ..diagnostics import Finding
from ..index import ProjectIndex
from .base import finding

CODE = "DSL403"


def check(summary: ModuleSummary, index: ProjectIndex) -> Iterator[Finding]:
    if summary.set_epoch_called:
        return
    for site in summary.loaders:
        if site.epoch_loop is None or site.sampler_class not in names.DISTRIBUTED_SAMPLERS:
            continue
        if site.sampler_shuffle != "true" or not index.is_loader_site(site):
            continue
        sampler = site.sampler_ref or "sampler"
        epoch = site.epoch_loop.target or "epoch"
        yield finding(
            CODE,
            summary.path,
            site.epoch_loop.span,
            f"Epoch loop iterates a DataLoader with a shuffling `DistributedSampler` (line "
            f"{site.span.row}) but never calls `set_epoch`: every epoch uses the same order; call "
            f"`{sampler}.set_epoch({epoch})` first in the loop",
        )
