"""DSL107 threads-in-forked-worker: more than one OpenMP thread in a forked worker.

When the parent already ran OpenMP (any torch matmul does), a forked worker that asks for
more than one OpenMP thread hangs in libgomp at the first sample (measured 10/10).
"""

from __future__ import annotations

from typing import Iterator

from ..analysis.model import ModuleSummary
from ..diagnostics import Finding
from ..index import ProjectIndex
from .base import finding
from .worker_code import forked_function_hazards, fork_started, where, with_workers

CODE = "DSL107"
HINT = "keep one thread per worker (torch's default in workers) or start workers with spawn/forkserver"


def check(summary: ModuleSummary, index: ProjectIndex) -> Iterator[Finding]:
    for facts in summary.classes:
        if facts.thread_setting is None or not index.is_dataset(facts.qualname):
            continue
        uses = [(s, m) for s, m in index.sites_for_dataset(facts.qualname) if with_workers(s) and fork_started(s, m)]
        if not uses:
            continue
        yield finding(
            CODE,
            summary.path,
            facts.thread_setting.span,
            f"{facts.thread_setting.what} in dataset `{facts.name}` runs in forked DataLoader workers "
            f"(loader at {where(*uses[0], summary)}); after the parent used OpenMP this hangs in libgomp: {HINT}",
        )
    for function, setting, role, site, module in forked_function_hazards(summary, index, "thread_setting"):
        yield finding(
            CODE,
            summary.path,
            setting.span,
            f"{setting.what} in `{function.name}`, the `{role}` of a fork-started DataLoader "
            f"({where(site, module, summary)}); after the parent used OpenMP this hangs in libgomp: {HINT}",
        )
