"""DSL202 prefetch-without-workers: ``prefetch_factor`` needs worker processes.

torch raises ``ValueError: prefetch_factor option could only be specified in
multiprocessing...`` at construction when the loader has zero workers and
``prefetch_factor`` is not None, including the zero branch of a conditional worker count.
"""

from __future__ import annotations

from typing import Iterator

from ..analysis.model import ModuleSummary
from ..analysis.values import ZERO, describe
from ..diagnostics import Finding
from ..index import ProjectIndex
from .base import finding

CODE = "DSL202"


def _workers(site) -> str:
    return describe(site.workers) if ZERO in site.workers else "zero (in its own zero branch)"


def check(summary: ModuleSummary, index: ProjectIndex) -> Iterator[Finding]:
    for site in summary.loaders:
        keyword = site.keywords.get("prefetch_factor")
        if keyword is None or site.prefetch_when_zero not in ("value", "tested-value"):
            continue
        # the expression's own test of the workers picking a value for zero is a bug whatever
        # the workers turn out to be; otherwise the workers must be (possibly) zero
        if ZERO not in site.workers and site.prefetch_when_zero != "tested-value":
            continue
        if not index.is_loader_site(site):
            continue
        if site.prefetch_when_zero == "tested-value":
            suggestion = "make its zero-worker branch `None`"
        elif site.workers_source:
            suggestion = f"use `prefetch_factor={keyword.value_source} if {site.workers_source} > 0 else None`"
        else:
            suggestion = "remove it"
        yield finding(
            CODE,
            summary.path,
            keyword.span,
            f"`prefetch_factor={keyword.value_source}` with {_workers(site)} workers raises "
            f"`ValueError: prefetch_factor option could only be specified in multiprocessing`: {suggestion}",
        )
