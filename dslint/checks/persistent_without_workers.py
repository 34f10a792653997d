"""DSL201 persistent-without-workers: ``persistent_workers=True`` needs workers.

torch raises ``ValueError: persistent_workers option needs num_workers > 0`` at
construction when the loader has zero workers, including the zero branch of
``num_workers=0 if sys.platform == "win32" else 8``.
"""

from __future__ import annotations

from typing import Iterator

from ..analysis.model import ModuleSummary
from ..analysis.values import ZERO, describe
from ..diagnostics import Finding
from ..index import ProjectIndex
from .base import finding

CODE = "DSL201"


def check(summary: ModuleSummary, index: ProjectIndex) -> Iterator[Finding]:
    for site in summary.loaders:
        keyword = site.keywords.get("persistent_workers")
        if keyword is None or keyword.truthy != "true" or ZERO not in site.workers:
            continue
        if not index.is_loader_site(site):
            continue
        suggestion = (
            f"use `persistent_workers={site.workers_source} > 0`"
            if site.workers_source
            else "remove it"
        )
        yield finding(
            CODE,
            summary.path,
            keyword.span,
            f"`persistent_workers={keyword.value_source}` with {describe(site.workers)} workers "
            f"raises `ValueError: persistent_workers option needs num_workers > 0`: {suggestion}",
        )
