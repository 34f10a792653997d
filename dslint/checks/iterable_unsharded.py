"""DSL401 iterable-unsharded: every worker yields the whole stream.

Each worker gets its own copy of an ``IterableDataset`` and runs ``__iter__`` from the
start; unless the iteration consults ``get_worker_info()`` (directly, in a helper, or via
the loader's ``worker_init_fn``) every sample arrives once per worker.
"""

from __future__ import annotations

from typing import Iterator

from ..analysis.model import ModuleSummary
from ..analysis.values import describe
from ..diagnostics import Finding
from ..index import ProjectIndex
from .base import finding
from .worker_code import class_chain, defining_class_sites, is_iterable_dataset, where, with_workers

CODE = "DSL401"


def _sharded_by_loader(site, index: ProjectIndex) -> bool:
    if "worker_init_fn" not in site.keywords:
        return False
    function = index.function(site.worker_init_fn)
    return function is None or function.consults_worker_info  # unknown hook: give it the benefit


def _shards_elsewhere(facts, index: ProjectIndex) -> bool:
    for qualname in facts.iter_calls:
        function = index.function(qualname)
        if function is not None and function.consults_worker_info:
            return True
    return False


def check(summary: ModuleSummary, index: ProjectIndex) -> Iterator[Finding]:
    for facts in summary.classes:
        if facts.iter_span is None or facts.shards or facts.delegates:
            continue
        if not is_iterable_dataset(index, facts.qualname):
            continue
        uses = defining_class_sites(index).get(facts.qualname, [])
        uses = [(s, m) for s, m in uses if with_workers(s)]
        if not uses:
            continue
        if any(_sharded_by_loader(s, index) for s, _ in uses):
            continue
        if any(c.shards for s, _ in uses for c in class_chain(index, s.dataset_class)):
            continue
        if _shards_elsewhere(facts, index):
            continue
        site, module = uses[0]
        yield finding(
            CODE,
            summary.path,
            facts.iter_span,
            f"`{facts.name}.__iter__` never consults `torch.utils.data.get_worker_info()` but the "
            f"DataLoader at {where(site, module, summary)} runs it in {describe(site.workers)} workers: every "
            f"worker yields the whole stream (each sample once per worker); shard by "
            f"`worker_info.id` / `worker_info.num_workers`",
        )
