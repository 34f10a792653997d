"""DSL103 cv2-threads: OpenCV's thread pool in every worker.

A forked worker inherits OpenCV's setting but not its threads; each worker then runs a
pool sized for the whole machine (oversubscription), and with TBB/OpenMP builds the dead
pool copied by fork can deadlock. ``cv2.setNumThreads(0)`` at import time prevents both.
"""

from __future__ import annotations

from typing import Iterator, Optional

from ..analysis.model import ClassFacts, ModuleSummary
from ..diagnostics import Finding
from ..index import ProjectIndex
from .base import finding

CODE = "DSL103"


def _throttled(summary: ModuleSummary, index: ProjectIndex) -> bool:
    if summary.cv2_throttled_anywhere:
        return True
    if not any(m.cv2_throttled_at_import for m in list(index.modules.values())):
        return False  # nothing in the project throttles at import: no need to walk imports
    for module in index.import_closure(summary.module):
        other = index.modules.get(module)
        if other is not None and other.cv2_throttled_at_import:
            return True
    return False


def _throttled_by_loaders(facts: ClassFacts, index: ProjectIndex) -> bool:
    for site, module in index.sites_for_dataset(facts.qualname):
        function = index.function(site.worker_init_fn)
        if function is not None and function.throttles_cv2:
            return True
        if module.cv2_throttled_anywhere:
            return True
    return False


def _target(summary: ModuleSummary, index: ProjectIndex) -> Optional[ClassFacts]:
    datasets = [c for c in summary.classes if index.is_dataset(c.qualname)]
    using = [c for c in datasets if c.uses_cv2]
    return (using or datasets or [None])[0]


def check(summary: ModuleSummary, index: ProjectIndex) -> Iterator[Finding]:
    if summary.cv2_import is None:
        return
    target = _target(summary, index)
    if target is None or not summary.cv2_used:
        return
    if target.throttles_cv2 or _throttled(summary, index) or _throttled_by_loaders(target, index):
        return
    row = summary.cv2_import.row
    yield finding(
        CODE,
        summary.path,
        target.span,
        f"Dataset `{target.name}` runs OpenCV in DataLoader workers (cv2 imported at line "
        f"{row}) with OpenCV's own thread pool in every worker: add `cv2.setNumThreads(0)` "
        f"after the import",
    )

