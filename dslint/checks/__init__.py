"""The rules: small predicates over summaries and the project index.

Each module defines one rule's ``check(summary, index)`` generator; ``CHECKS`` maps codes
to them. A rule never re-parses source: everything it needs is in the LoaderSites, class
facts and module facts of ``dslint.analysis.model``.
"""

from __future__ import annotations

from typing import Callable, Dict, Iterable

from ..analysis.model import ModuleSummary
from ..diagnostics import Finding
from ..index import ProjectIndex
from . import (
    cv2_threads,
    main_guard,
    persistent_without_workers,
    pin_without_non_blocking,
    shared_handle,
    unpicklable_callable,
)

Check = Callable[[ModuleSummary, ProjectIndex], Iterable[Finding]]

CHECKS: Dict[str, Check] = {
    "DSL101": main_guard.check,
    "DSL102": unpicklable_callable.check,
    "DSL103": cv2_threads.check,
    "DSL104": shared_handle.check,
    "DSL201": persistent_without_workers.check,
    "DSL301": pin_without_non_blocking.check,
}
