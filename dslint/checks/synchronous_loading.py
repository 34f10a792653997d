"""DSL303 synchronous-loading (off by default): a training loop fed by zero workers.

With ``num_workers=0`` every batch is loaded in the training process between steps: the
accelerator waits for the data.
"""

from __future__ import annotations

from typing import Iterator, Set

from ..diagnostics import Finding
from ..model import loaders
from ..model.objects import Step
from ..model.queries import Model
from .base import finding, where

CODE = "DSL303"
TRAINING_CALLS = frozenset({"backward", "step"})


def _trains(model: Model, iteration) -> bool:
    if iteration.loop is None:
        return False
    loop = model.project.summary(iteration.module).loops[iteration.loop]
    for _, site in model.calls_in_loop(iteration.module, loop, TRAINING_CALLS):
        name = site.func.name if hasattr(site.func, "name") else ""
        if name == "backward":
            return True
        base = getattr(site.func, "base", None)
        receiver = getattr(base, "id", None) or getattr(base, "name", None) or ""
        if name == "step" and "optim" in str(receiver).lower():
            return True
    return False


def check(model: Model) -> Iterator[Finding]:
    reported: Set[object] = set()
    for iteration in model.iterations():
        base = loaders.base_loader(iteration.loader)
        if base in reported or model.managed(iteration.loader):
            continue
        if not model.workers(iteration.loader).zero or not _trains(model, iteration):
            continue
        reported.add(base)
        built = loaders.construction_step(model.resolver, iteration.loader)
        loop = Step(iteration.module, iteration.span, "the training loop")
        yield finding(
            model, CODE, built.module, built.span,
            f"Training loop ({where(model, loop, built.module)}) is fed by a DataLoader with zero workers: every "
            f"batch is loaded synchronously between steps; set `num_workers` (e.g. 4) to load in the background",
            (loop,),
        )
