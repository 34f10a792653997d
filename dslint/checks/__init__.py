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
    copy_on_read,
    cuda_in_worker,
    cv2_threads,
    iterable_unsharded,
    main_guard,
    persistent_without_workers,
    pin_without_non_blocking,
    prefetch_without_workers,
    sampler_conflict,
    sampler_set_epoch,
    shared_handle,
    shared_rng,
    start_method,
    synchronous_loading,
    threads_in_forked_worker,
    unpicklable_callable,
    workers_restart_each_epoch,
)

Check = Callable[[ModuleSummary, ProjectIndex], Iterable[Finding]]

CHECKS: Dict[str, Check] = {
    "DSL101": main_guard.check,
    "DSL102": unpicklable_callable.check,
    "DSL103": cv2_threads.check,
    "DSL104": shared_handle.check,
    "DSL201": persistent_without_workers.check,
    "DSL301": pin_without_non_blocking.check,
    # the catalogue beyond the core six (issue 6)
    "DSL105": cuda_in_worker.check,
    "DSL106": start_method.check,
    "DSL107": threads_in_forked_worker.check,
    "DSL202": prefetch_without_workers.check,
    "DSL203": sampler_conflict.check,
    "DSL302": workers_restart_each_epoch.check,
    "DSL303": synchronous_loading.check,
    "DSL401": iterable_unsharded.check,
    "DSL402": shared_rng.check,
    "DSL403": sampler_set_epoch.check,
    "DSL501": copy_on_read.check,
}
