"""DSL203 sampler-conflict: DataLoader arguments torch rejects together.

``shuffle=True`` with a ``sampler``, and ``batch_sampler`` with ``batch_size`` (other than
1), ``shuffle``, ``sampler`` or ``drop_last``, raise ``ValueError`` at construction.
"""

from __future__ import annotations

from typing import Iterator

from ..analysis.model import ModuleSummary
from ..diagnostics import Finding
from ..index import ProjectIndex
from .base import finding

CODE = "DSL203"
GIVEN = ("value", "maybe")


def check(summary: ModuleSummary, index: ProjectIndex) -> Iterator[Finding]:
    for site in summary.loaders:
        shuffle = site.keywords.get("shuffle")
        shuffles = shuffle is not None and shuffle.truthy == "true"
        sampler = site.nullness.get("sampler") in GIVEN
        batch_sampler = site.keywords.get("batch_sampler")
        if not (shuffles and sampler) and not (batch_sampler is not None and site.nullness.get("batch_sampler") in GIVEN):
            continue
        if not index.is_loader_site(site):
            continue
        if batch_sampler is not None and site.nullness.get("batch_sampler") in GIVEN:
            clashes = []
            if site.batch_size_const is not None and site.batch_size_const != "1" and "batch_size" in site.keywords:
                clashes.append(f"batch_size={site.batch_size_const}")
            if shuffles:
                clashes.append("shuffle=True")
            if site.nullness.get("sampler") == "value":  # "maybe" is often `x if batch_sampler is None else None`
                clashes.append("sampler")
            drop_last = site.keywords.get("drop_last")
            if drop_last is not None and drop_last.truthy == "true":
                clashes.append("drop_last=True")
            if clashes:
                yield finding(
                    CODE,
                    summary.path,
                    batch_sampler.span,
                    f"`batch_sampler` together with {', '.join(f'`{c}`' for c in clashes)} raises "
                    f"`ValueError: batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    f"sampler, and drop_last`: let the batch sampler decide batching and order",
                )
                continue
        if shuffles and sampler:
            yield finding(
                CODE,
                summary.path,
                shuffle.span,
                f"`shuffle={shuffle.value_source}` with a `sampler` raises `ValueError: sampler option is "
                f"mutually exclusive with shuffle`: drop it (the sampler decides the order) or use "
                f"`shuffle=(sampler is None)`",
            )
