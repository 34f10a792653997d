"""DSL102 unpicklable-callable: what reaches a worker must survive pickling.

spawn and forkserver (Windows, macOS, Linux from Python 3.14) pickle the dataset,
``collate_fn`` and ``worker_init_fn`` for every worker. Lambdas and functions or classes
defined inside a function have no importable name, so pickling them fails at ``iter()``.
"""

from __future__ import annotations

from typing import Iterator

from ..analysis.model import CallableArg, ModuleSummary
from ..analysis.values import W_ZERO, describe
from ..diagnostics import Finding
from ..index import ProjectIndex
from .base import finding

CODE = "DSL102"


def _what(item: CallableArg) -> str:
    if item.kind == "lambda":
        return "lambda" if item.name == "<lambda>" else f"lambda `{item.name}`"
    return f"{item.kind} `{item.name}`"


def check(summary: ModuleSummary, index: ProjectIndex) -> Iterator[Finding]:
    for site in summary.loaders:
        if site.workers == W_ZERO or not index.is_loader_site(site):
            continue
        for item in site.callables:
            yield finding(
                CODE,
                summary.path,
                item.span,
                f"{_what(item).capitalize()} passed as {_role(item)} cannot be pickled for "
                f"spawn/forkserver workers (loader has {describe(site.workers)} workers): "
                f"define it at module level with `def`",
            )
    for facts in summary.classes:
        if not facts.stored_callables or not index.is_dataset(facts.qualname):
            continue
        uses = index.sites_for_dataset(facts.qualname)
        if uses and all(site.workers == W_ZERO for site, _ in uses):
            continue
        for item in facts.stored_callables:
            yield finding(
                CODE,
                summary.path,
                item.span,
                f"{_what(item).capitalize()} stored on dataset `{facts.name}` in `__init__` "
                f"cannot be pickled for spawn/forkserver workers: define it at module level "
                f"with `def`",
            )


def _role(item: CallableArg) -> str:
    if item.role in ("collate_fn", "worker_init_fn"):
        return f"`{item.role}`"
    return "a dataset argument"
