"""DSL406 ddp-without-distributed-sampler: every rank trains on the whole dataset.

Distributed data parallel training runs one process per rank, each with its own loader.
Unless something splits the data by rank (a ``DistributedSampler``, a rank-aware sampler, a
dataset sharded by rank, a framework that shards), every rank iterates the whole dataset:
an epoch costs N times as much and each sample is seen N times per epoch.
"""

from __future__ import annotations

from typing import Iterator, Set

from ..diagnostics import Finding
from ..model import loaders
from ..model.objects import Cls, Inst, Step
from ..model.queries import Model
from .base import finding, where

CODE = "DSL406"


def check(model: Model) -> Iterator[Finding]:
    reported: Set[object] = set()
    for iteration in model.iterations():
        base = loaders.base_loader(iteration.loader)
        if base is None or base in reported:
            continue
        distributed = model.distributed_training(iteration)
        if distributed is None:
            continue
        split, why = model.rank_split(iteration.loader)
        if split != "none":
            continue
        reported.add(base)
        model_call, wrapped = distributed
        built = loaders.construction_step(model.resolver, iteration.loader, "the training loader")
        streams = [f.obj for f in model.value(iteration.loader, "dataset")
                   if isinstance(f.obj, Inst) and model.is_iterable_dataset(f.obj.cls)]
        remedy = ("split the stream by rank in its `__iter__` (`dist.get_rank()` of `dist.get_world_size()`, "
                  "with the workers of each rank)" if streams else
                  "pass `sampler=DistributedSampler(dataset)` and call `set_epoch` each epoch")
        yield finding(
            model, CODE, built.module, built.span,
            f"DataLoader feeds distributed training (the model is wrapped at {where(model, wrapped, built.module)}) "
            f"but nothing splits its data by rank: every rank trains on the whole dataset, so an epoch costs "
            f"world-size times as much; {remedy}",
            (wrapped, Step(iteration.module, iteration.span, "the training loop"), model_call) + why + iteration.trail,
        )
    yield from _lightning_without_sampler(model, reported)


def _lightning_without_sampler(model: Model, reported: Set[object]) -> Iterator[Finding]:
    """The training loaders of Lightning hooks that a data-parallel ``Trainer`` hands each rank
    as they are: all of them when it is told ``use_distributed_sampler=False`` (a
    ``WeightedRandomSampler`` kept on purpose), and those over an ``IterableDataset``, which
    Lightning puts no sampler in; reported when nothing of the project splits them by rank."""
    found = model.lightning_data_parallel()
    if found is None:
        return
    trainer, sampler_off = found
    for loader in model.loaders():
        base = loaders.base_loader(loader)
        hook = model.building_hook(loader)
        if base is None or base in reported or model.managed(loader) != "lightning" or hook is None \
                or hook.name != "train_dataloader":
            continue
        streams = [f.obj for f in model.value(loader, "dataset")
                   if isinstance(f.obj, Inst) and isinstance(f.obj.cls, Cls) and model.is_iterable_dataset(f.obj.cls)]
        if not sampler_off and not streams:
            continue
        split, why = model.rank_split(loader, framework=False)
        if split != "none":
            continue
        reported.add(base)
        built = loaders.construction_step(model.resolver, loader, "the training loader")
        if sampler_off:
            message = (f"Lightning's Trainer at {where(model, trainer, built.module)} runs data-parallel ranks with "
                       f"`use_distributed_sampler=False`, and nothing splits this `train_dataloader` loader's data by rank: "
                       f"every rank trains on the whole dataset, so an epoch costs world-size times as much; wrap its "
                       f"sampler for the ranks (a `DistributedSampler`, or a distributed version of the weighted sampler) "
                       f"or let Lightning add one")
        else:
            message = (f"Lightning's Trainer at {where(model, trainer, built.module)} runs data-parallel ranks, and this "
                       f"`train_dataloader` loader goes through an `IterableDataset`, which Lightning puts no "
                       f"`DistributedSampler` in, whose stream nothing splits by rank: every rank trains on the same "
                       f"data; split the stream by rank in its `__iter__` (`torch.distributed.get_rank()` out of "
                       f"`get_world_size()`), with the workers of each rank")
        yield finding(model, CODE, built.module, built.span, message, (trainer,) + why)
