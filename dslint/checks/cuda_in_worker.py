"""DSL105 cuda-in-worker: CUDA work in code a DataLoader worker runs.

A forked worker cannot use CUDA once the parent has initialised it (``RuntimeError: Cannot
re-initialize CUDA in forked subprocess``). Flags ``.cuda()``, ``.to("cuda")``,
``torch.cuda.*`` and tensors created on a cuda device inside a Dataset's ``__getitem__`` /
``__iter__`` (and the methods they call), a ``collate_fn`` or a ``worker_init_fn`` of a
loader whose workers are not zero and not started with spawn/forkserver.
"""

from __future__ import annotations

from typing import Iterator

from ..analysis.model import ModuleSummary
from ..analysis.values import describe
from ..diagnostics import Finding
from ..index import ProjectIndex
from .base import finding
from .worker_code import forked_function_hazards, fork_started, where, with_workers

CODE = "DSL105"
ERROR = "`RuntimeError: Cannot re-initialize CUDA in forked subprocess`"


def check(summary: ModuleSummary, index: ProjectIndex) -> Iterator[Finding]:
    for facts in summary.classes:
        if facts.cuda_work is None or not index.is_dataset(facts.qualname):
            continue
        uses = [(s, m) for s, m in index.sites_for_dataset(facts.qualname) if with_workers(s) and fork_started(s, m)]
        if not uses:
            continue
        site, module = uses[0]
        yield finding(
            CODE,
            summary.path,
            facts.cuda_work.span,
            f"CUDA work ({facts.cuda_work.what}) in dataset `{facts.name}`, which runs in DataLoader "
            f"workers ({describe(site.workers)} workers, loader at {where(site, module, summary)}): forked workers "
            f"fail with {ERROR}; return CPU tensors and move the batch in the training loop",
        )
    for function, work, role, site, module in forked_function_hazards(summary, index, "cuda_work"):
        yield finding(
            CODE,
            summary.path,
            work.span,
            f"CUDA work ({work.what}) in `{function.name}`, the `{role}` of a DataLoader "
            f"with {describe(site.workers)} workers ({where(site, module, summary)}): forked workers fail with "
            f"{ERROR}; move the batch to the GPU in the training loop",
        )
