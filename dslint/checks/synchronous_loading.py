"""DSL303 synchronous-loading (off by default): a training loop fed by zero workers.

With ``num_workers=0`` every batch is loaded in the training process between steps: the
accelerator waits for the data.
"""

from __future__ import annotations

from typing import Iterator, Set

from ..diagnostics import Finding
from ..model import loaders
from ..model.objects import Inst, Step
from ..model.queries import Model
from .base import finding, where

CODE = "DSL303"
TRAINING_CALLS = frozenset({"backward", "step"})


def _training_loop(model: Model, iteration):
    """The loop over the loader (or the loop around a ``next()`` drawing from it every pass)
    when it calls ``backward()`` or an optimizer's ``step()``; None otherwise."""
    summary = model.project.summary(iteration.module)
    index = iteration.loop if iteration.loop is not None else summary.calls[iteration.call].loop
    if index is None or index < 0:
        return None
    loop = summary.loops[index]
    return loop if _trains(model, iteration, loop) else None


def _trains(model: Model, iteration, loop) -> bool:
    """Whether the loop steps an optimizer for this loader: a step under a test of a parameter
    no call handing this loader in passes (``if train:`` of a shared ``run_epoch(loader,
    train=False)``) does not count."""
    for _, site in model.calls_in_loop(iteration.module, loop, TRAINING_CALLS):
        name = site.func.name if hasattr(site.func, "name") else ""
        base = getattr(site.func, "base", None)
        receiver = getattr(base, "id", None) or getattr(base, "name", None) or ""
        if name != "backward" and not (name == "step" and "optim" in str(receiver).lower()):
            continue
        if site.scope != iteration.scope or model.runs_for_loader(iteration, site.span.row):
            return True
    return False


def check(model: Model) -> Iterator[Finding]:
    reported: Set[object] = set()
    for iteration in model.iterations():
        base = loaders.base_loader(iteration.loader)
        if base in reported:
            continue
        training = _training_loop(model, iteration) if model.workers(iteration.loader).zero else None
        if training is None:
            continue
        reported.add(base)
        built = loaders.construction_step(model.resolver, iteration.loader)
        loop = Step(iteration.module, iteration.span if iteration.loop is not None else training.span,
                    "the training loop")
        yield finding(
            model, CODE, built.module, built.span,
            f"Training loop ({where(model, loop, built.module)}) is fed by a DataLoader with zero workers: every "
            f"batch is loaded synchronously between steps; set `num_workers` (e.g. 4) to load in the background",
            (loop,),
        )
    yield from _engine_training(model, reported)


def _engine_training(model: Model, reported: Set[object]) -> Iterator[Finding]:
    """A loader with zero workers an ignite engine trains over (``trainer.run(loader)`` of
    ``create_supervised_trainer``, or of an ``Engine`` whose process function steps)."""
    engines = model.resolver.engines
    for run in engines.runs():
        loaders_run = [f.obj for f in run.data if isinstance(f.obj, Inst) and model.resolver.is_loader(f.obj)]
        if not loaders_run or not engines.trains(run):
            continue
        for loader in loaders_run:
            base = loaders.base_loader(loader)
            if base in reported or model.managed(loader) or not model.workers(loader).zero:
                continue
            reported.add(base)
            built = loaders.construction_step(model.resolver, loader)
            ran = Step(run.run.module, model.project.call(run.run).span, "the engine trains over it here")
            yield finding(
                model, CODE, built.module, built.span,
                f"Training by an ignite engine ({where(model, ran, built.module)}) is fed by a DataLoader with zero "
                f"workers: every batch is loaded synchronously between steps; set `num_workers` (e.g. 4) to load in "
                f"the background",
                (ran,),
            )
