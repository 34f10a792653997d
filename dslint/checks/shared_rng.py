"""DSL402 shared-rng: every worker draws the same random numbers.

PyTorch reseeds the global ``random``, ``numpy.random`` and torch generators in each
worker, but not a generator *object* built in ``Dataset.__init__``: fork copies its state
(spawn pickles it) into every worker, so all workers draw identical augmentations, and
without persistent workers every epoch repeats them. A ``worker_init_fn`` that seeds the
global generators with a constant has the same effect.
"""

from __future__ import annotations

from typing import Iterator

from ..analysis.model import ModuleSummary
from ..diagnostics import Finding
from ..index import ProjectIndex
from .base import finding
from .worker_code import function_uses, where, with_workers

CODE = "DSL402"


def _reseeded_by_worker_init(site, attr: str, index: ProjectIndex) -> bool:
    if "worker_init_fn" not in site.keywords:
        return False
    function = index.function(site.worker_init_fn)
    return function is None or attr in function.reseeded_attrs


def check(summary: ModuleSummary, index: ProjectIndex) -> Iterator[Finding]:
    for facts in summary.classes:
        rngs = [r for r in facts.rngs if r.used_by_worker and not r.reseeded]
        if not rngs or not index.is_dataset(facts.qualname):
            continue
        uses = index.sites_for_dataset(facts.qualname)
        if uses and not any(with_workers(s) for s, _ in uses):
            continue
        for rng in rngs:
            if any(_reseeded_by_worker_init(s, rng.attr, index) for s, _ in uses):
                continue
            short = rng.constructor.replace("numpy.", "np.")
            yield finding(
                CODE,
                summary.path,
                rng.span,
                f"`{short}(...)` stored as `self.{rng.attr}` in `{facts.name}.__init__` is copied into "
                f"every DataLoader worker, so all workers draw the same numbers: reseed it per worker in "
                f"a `worker_init_fn` from `torch.utils.data.get_worker_info().seed`",
            )
    table = None
    for function in summary.functions.values():
        if function.constant_seed is None:
            continue
        if table is None:
            table = function_uses(index)
        uses = [(s, m) for r, s, m in table.get(id(function), ()) if r == "worker_init_fn" and with_workers(s)]
        if not uses:
            continue
        yield finding(
            CODE,
            summary.path,
            function.constant_seed.span,
            f"{function.constant_seed.what} in `{function.name}`, the `worker_init_fn` of the DataLoader "
            f"at {where(*uses[0], summary)}, gives every worker the same seed in every epoch: seed from "
            f"`torch.initial_seed() % 2**32` (or `get_worker_info().seed`)",
        )
