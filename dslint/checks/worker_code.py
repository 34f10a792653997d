"""Shared by the rules about code that runs inside DataLoader workers (DSL105, 107, 401, 402).

Maps project functions to the loaders that hand them to workers (``collate_fn``,
``worker_init_fn``) and Dataset classes to the loaders that use them, once per index.
"""

from __future__ import annotations

import os
from typing import Dict, Iterator, List, Optional, Tuple

from ..analysis import names
from ..analysis.model import ClassFacts, LoaderSite, ModuleSummary
from ..analysis.values import W_ZERO
from ..index import ProjectIndex

Use = Tuple[str, LoaderSite, ModuleSummary]  # (role, site, the site's module)
SPAWNING = frozenset({"spawn", "forkserver"})


def _memo(index: ProjectIndex, key: str, build):
    store = index.__dict__.setdefault("_worker_code_memo", {})
    if key not in store:
        store[key] = build()
    return store[key]


def function_uses(index: ProjectIndex) -> Dict[int, List[Use]]:
    """id(FunctionFacts) → the loaders that run it in workers, with the role."""

    def build() -> Dict[int, List[Use]]:
        table: Dict[int, List[Use]] = {}
        for site, module in index.loader_sites():
            for role, qualname in (("collate_fn", site.collate_fn), ("worker_init_fn", site.worker_init_fn)):
                function = index.function(qualname)
                if function is not None:
                    table.setdefault(id(function), []).append((role, site, module))
        return table

    return _memo(index, "functions", build)


def forked_function_hazards(summary: ModuleSummary, index: ProjectIndex, attr: str):
    """(function, its hazard, role, site, module) for each function of ``summary`` whose
    ``attr`` hazard runs in a fork-started loader with workers (first such use)."""
    for function in summary.functions.values():
        hazard = getattr(function, attr)
        if hazard is None:
            continue
        for role, site, module in function_uses(index).get(id(function), ()):
            if with_workers(site) and fork_started(site, module):
                yield function, hazard, role, site, module
                break


def where(site: LoaderSite, module: ModuleSummary, here: ModuleSummary) -> str:
    """``line 12`` for a loader in the same file, ``train.py:12`` for one elsewhere."""
    if module.path == here.path:
        return f"line {site.span.row}"
    return f"{os.path.basename(module.path)}:{site.span.row}"


def with_workers(site: LoaderSite) -> bool:
    """Workers not known to be zero (positive, unknown or possibly zero)."""
    return site.workers != W_ZERO


def fork_started(site: LoaderSite, module: ModuleSummary) -> bool:
    """Whether the loader's workers may be forked (no spawn/forkserver chosen for it)."""
    if site.start_method in SPAWNING:
        return False
    return not any(call.method in SPAWNING for call in module.start_method_calls)


def dataset_uses(index: ProjectIndex, facts: ClassFacts) -> List[Tuple[LoaderSite, ModuleSummary]]:
    return index.sites_for_dataset(facts.qualname)


def is_iterable_dataset(index: ProjectIndex, qualname: Optional[str]) -> bool:
    memo = index.__dict__.setdefault("_iterable_memo", {})
    return index._inherits(
        qualname,
        lambda q: q in names.ITERABLE_DATASET_BASES or q.endswith("datapipe.IterDataPipe"),
        memo,
    )


def defining_class_sites(index: ProjectIndex) -> Dict[str, List[Tuple[LoaderSite, ModuleSummary]]]:
    """Qualname of the class whose ``__iter__`` a loader's dataset runs → those loaders."""

    def build():
        table: Dict[str, List[Tuple[LoaderSite, ModuleSummary]]] = {}
        for site, module in index.loader_sites():
            for facts in class_chain(index, site.dataset_class):
                if facts.iter_span is not None:
                    table.setdefault(facts.qualname, []).append((site, module))
                    break
        return table

    return _memo(index, "iter_sites", build)


def class_chain(index: ProjectIndex, qualname: Optional[str], depth: int = 0) -> Iterator[ClassFacts]:
    """The class and its project base classes, most derived first."""
    found = index.find_class(qualname)
    if found is None or depth > 8:
        return
    facts = found[0]
    yield facts
    for base in facts.bases:
        yield from class_chain(index, base, depth + 1)
