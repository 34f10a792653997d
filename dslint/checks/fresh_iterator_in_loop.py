"""DSL304 fresh-iterator-in-loop: a new iterator of a loader with workers on every pass.

``iter(loader)`` starts all of the loader's worker processes (persistent workers are
reset instead: they drop what they prefetched and start the sampler over), and each
prefetches ``prefetch_factor`` batches; ``next(iter(loader))`` in a step loop (or in a
function the loop calls) takes one batch and throws the rest away, then does it all again on
the next pass. In sampler order (no ``shuffle``, no sampler) it is also the same first batch
every time, which is reported whatever the workers (without them no process starts, but the
model trains on one batch).
"""

from __future__ import annotations

from typing import Iterator, Set

from ..analysis.values import Call, Name
from ..diagnostics import Finding
from ..model import loaders
from ..model.externals import truthiness
from ..model.objects import Cls, Ext, Inst, Lit, Step
from ..model.queries import Model
from .base import finding, where

CODE = "DSL304"
MAP_STYLE_LIBRARY_DATASETS = frozenset({"torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset"})


def _persistence(model: Model, loader) -> str:
    """"true", "false" or "unknown": whether the loader keeps its workers across iterators."""
    given = model.argument(loader, "persistent_workers")
    if given is None:
        spec = model.spec(loader)
        return "true" if spec is not None and spec.persistent_auto else "false"
    return truthiness(given)


def _in_sampler_order(model: Model, loader) -> bool:
    """The loader draws a map-style dataset of the project (or a tensor dataset) in index
    order: no ``shuffle`` (or known false), no ``sampler``, no ``batch_sampler``. Every new
    iterator then starts again at the same first batch."""
    spec = model.spec(loader)
    if spec is None or spec.library != "torch" or loaders.base_loader(loader) is not loader:
        return False  # a wrapper or a framework's loader may shuffle by default
    for name in ("sampler", "batch_sampler"):
        if model.argument(loader, name) is not None:
            return False
    shuffle = model.argument(loader, "shuffle")
    if shuffle is not None and truthiness(shuffle) != "false":
        return False
    datasets = model.value(loader, "dataset")
    return bool(datasets) and all(_map_style(model, found.obj) for found in datasets)


def _map_style(model: Model, obj) -> bool:
    if not isinstance(obj, Inst):
        return False
    if isinstance(obj.cls, Cls):
        return not model.is_iterable_dataset(obj.cls) and model.resolver.method(obj.cls, "__getitem__") is not None
    return isinstance(obj.cls, Ext) and obj.cls.qualname in MAP_STYLE_LIBRARY_DATASETS


FEW_PASSES = 8  # a loop this short (a test's three steps) may well mean to reuse the first batch


def _few_passes(model: Model, repeat) -> bool:
    """The loop that repeats the iterator runs ``range(n)`` with ``n`` a small known count."""
    loop = repeat.loop
    if loop is None or type(loop.iter) is not Call:
        return False
    site = model.project.summary(repeat.module).calls[loop.iter.index]
    if type(site.func) is not Name or site.func.id != "range" or len(site.args) != 1:
        return False
    counts = model.resolver.eval(site.args[0], model.resolver.context(repeat.module, site.scope))
    return bool(counts) and all(isinstance(f.obj, Lit) and type(f.obj.value) is int and f.obj.value <= FEW_PASSES
                                for f in counts)


def _cost(persistent: str) -> str:
    if persistent == "true":
        return ("each time the persistent workers' prefetched batches are thrown away (the reset waits for them) "
                "and the sampler starts over")
    if persistent == "false":
        return "each time all workers start again and their prefetched batches are thrown away"
    return ("each time all workers start again (persistent workers are reset instead) and their prefetched "
            "batches are thrown away")


def check(model: Model) -> Iterator[Finding]:
    reported: Set[object] = set()
    for fresh in model.fresh_iterators():
        if (fresh.module, fresh.call) in reported:
            continue
        workers = model.workers(fresh.loader)
        started = workers.positive and not workers.threads
        in_order = _in_sampler_order(model, fresh.loader)
        if not started and (not in_order or _few_passes(model, fresh.repeat)):
            continue  # no process starts, and each new iterator may give another batch (or a few passes want one)
        reported.add((fresh.module, fresh.call))
        repeat = fresh.repeat
        if repeat.loop is not None:
            loop_step = Step(repeat.module, repeat.loop.span, "the loop that repeats it")
            how = f"in the loop at {where(model, loop_step, fresh.module)}"
        elif repeat.runner:
            loop_step = None
            how = f"in `{repeat.hook}` ({repeat.runner}),"
        elif repeat.hook:
            loop_step = None
            how = f"in `{repeat.hook}`, which Lightning calls for every batch,"
        else:
            loop_step = None
            how = f"once per epoch (`{repeat.parameter}` is a parameter of the code that makes it)"
        if started:
            what, note = "with positive workers", "the loader, with positive workers"
            same = ", and without `shuffle` it is the same first batch every time" if in_order else ""
            cost, shown = f"{_cost(_persistence(model, fresh.loader))}{same}", workers.trail("positive")
        else:  # whatever its workers: the same batch on every pass
            what, note = "without `shuffle` or a sampler", "the loader, without shuffle or sampler"
            cost, shown = "every new iterator starts at the same first batch, so every pass gets that batch", ()
        built = loaders.construction_step(model.resolver, fresh.loader, note)
        yield finding(
            model, CODE, fresh.module, fresh.span,
            f"A new iterator of a DataLoader {what} is made {how} and one batch taken from it: {cost}; keep one "
            f"iterator and call `iter()` again only on `StopIteration`",
            (fresh.drawn, loop_step, built) + repeat.trail + shown,
        )
