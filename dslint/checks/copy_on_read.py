"""DSL501 copy-on-read (off by default): a Python list/dict of objects read by workers.

Reading a Python object in a forked worker writes its reference count, which copies the
page holding it: a large list of Python objects indexed in ``__getitem__`` ends up copied
into every worker, and memory grows until the OOM killer ends a worker.
"""

from __future__ import annotations

from typing import Iterator

from ..analysis.model import ModuleSummary
from ..analysis.values import W_POSITIVE
from ..diagnostics import Finding
from ..index import ProjectIndex
from .base import finding
from .worker_code import where

CODE = "DSL501"


def check(summary: ModuleSummary, index: ProjectIndex) -> Iterator[Finding]:
    for facts in summary.classes:
        if not facts.object_tables or not index.is_dataset(facts.qualname):
            continue
        uses = [(s, m) for s, m in index.sites_for_dataset(facts.qualname) if s.workers == W_POSITIVE]
        if not uses:
            continue
        for table in facts.object_tables:
            yield finding(
                CODE,
                summary.path,
                table.span,
                f"Python {table.kind} `self.{table.attr}` built in `{facts.name}.__init__` and indexed in "
                f"`__getitem__` is read by {uses[0][0].workers_source} forked workers ({where(*uses[0], summary)}): "
                f"reference-count writes copy it into every worker; store it as numpy/pyarrow arrays",
            )
