"""The rules: small queries over the semantic model (``dslint.model``).

Each module defines one rule's ``CODE`` and ``check(model)`` generator. ``CHECKS`` maps
codes to them; ``dslint.catalogue`` holds every rule's metadata and a test keeps the two
(and the fixers' table) in step.
"""

from __future__ import annotations

from typing import Callable, Dict, Iterable, Iterator, Sequence

from ..diagnostics import Finding
from ..model.queries import Model
from . import (
    batches_retained,
    copy_on_read,
    cuda_in_worker,
    cv2_threads,
    ddp_without_distributed_sampler,
    fresh_iterator_in_loop,
    iterable_unsharded,
    main_guard,
    persistent_without_workers,
    pin_without_non_blocking,
    prefetch_without_workers,
    processes_in_worker,
    sampler_conflict,
    sampler_set_epoch,
    shared_handle,
    shared_rng,
    stale_dataset_in_persistent_workers,
    start_method,
    synchronous_loading,
    threads_alive_at_fork,
    threads_in_forked_worker,
    unpicklable_callable,
    worker_state_mutation,
    workers_restart_each_epoch,
)

Check = Callable[[Model], Iterable[Finding]]

CHECKS: Dict[str, Check] = {
    module.CODE: module.check
    for module in (
        main_guard,
        unpicklable_callable,
        cv2_threads,
        shared_handle,
        cuda_in_worker,
        start_method,
        threads_in_forked_worker,
        persistent_without_workers,
        prefetch_without_workers,
        sampler_conflict,
        pin_without_non_blocking,
        workers_restart_each_epoch,
        synchronous_loading,
        iterable_unsharded,
        shared_rng,
        sampler_set_epoch,
        copy_on_read,
        processes_in_worker,
        threads_alive_at_fork,
        worker_state_mutation,
        batches_retained,
        fresh_iterator_in_loop,
        stale_dataset_in_persistent_workers,
        ddp_without_distributed_sampler,
    )
}


def run_checks(model: Model, codes: Sequence[str]) -> Iterator[Finding]:
    for code in codes:
        check = CHECKS.get(code)
        if check is not None:
            yield from check(model)
