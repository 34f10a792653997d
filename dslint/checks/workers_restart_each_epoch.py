"""DSL302 workers-restart-each-epoch (off by default): workers torn down and started every epoch.

Without ``persistent_workers=True`` every ``for batch in loader`` starts the workers anew
(each re-importing or forking, rebuilding its dataset copy) and shuts them down at the
end. The epoch loop may be in another function: ``for epoch in ...: train(loader)``.
"""

from __future__ import annotations

from typing import Iterator, Set

from ..analysis.values import Call, Name, last_name
from ..diagnostics import Finding
from ..model import loaders
from ..model.engines import made_by
from ..model.objects import Func, Step
from ..model.queries import Model
from .base import finding, where

EPOCH_HOOKS = ("train_dataloader", "val_dataloader")  # what Lightning's fit loop iterates every epoch

CODE = "DSL302"


def check(model: Model) -> Iterator[Finding]:
    reported: Set[object] = set()
    for iteration in model.iterations():
        loader = iteration.loader
        base = loaders.base_loader(loader)
        if base in reported:  # a framework's wrapper (accelerate) still restarts the workers each pass
            continue
        workers = _restarting_workers(model, loader)
        if workers is None or loaders.kept_iterator(model.resolver, base):
            continue
        repeat = _repeating_loop(model, iteration)
        if repeat is None:
            continue
        module, loop, trail = repeat
        built = loaders.construction_step(model.resolver, loader)
        reported.add(base)
        loop_step = Step(module, loop.span, "the epoch loop")
        yield finding(
            model, CODE, built.module, built.span,
            f"DataLoader with positive workers is iterated on every pass of the loop at "
            f"{where(model, loop_step, built.module)} and restarts its workers each time: add "
            f"`persistent_workers=True`",
            (loop_step, Step(iteration.module, iteration.span, "iterated here")) + trail,
        )
    yield from _framework_epochs(model, reported)
    yield from _engine_epochs(model, reported)


def _engine_epochs(model: Model, reported: Set[object]) -> Iterator[Finding]:
    """A loader an ignite engine runs over for more than one epoch
    (``trainer.run(loader, max_epochs=10)``): the engine iterates it anew every epoch; or one
    an engine runs over in a handler of another engine's epochs (``evaluator.run(val_loader)``
    in ``@trainer.on(Events.EPOCH_COMPLETED)``). Not for a ``DeterministicEngine``, whose
    reproducible seeds need workers started anew."""
    engines = model.resolver.engines
    told = [(run, engines.told_epochs(run)) for run in engines.runs()]
    several = {run.made: epochs for run, epochs in told if epochs}
    handlers = engines.epoch_handlers()
    for run, epochs in told:
        if run.reseeds:
            continue  # ``DeterministicEngine`` reseeds each epoch: fresh workers carry the seeds
        site = model.project.call(run.run)
        handled = None
        if not epochs:
            handled = _handled_each_epoch(model, run, handlers, several)
            if handled is None:
                continue
            epochs = handled
        for loader in engines.run_loaders(run):
            base = loaders.base_loader(loader)
            if base is None or base in reported:
                continue
            workers = _restarting_workers(model, loader)
            if workers is None or loaders.kept_iterator(model.resolver, base) or _changed_by_handlers(model, run, loader):
                continue
            reported.add(base)
            built = loaders.construction_step(model.resolver, loader)
            ran = Step(run.run.module, site.span, "the engine runs over it once per epoch here")
            how = f"run by an ignite engine for {epochs[0].obj.value} epochs" if handled is None else \
                f"run by an ignite engine in a handler of another engine's {epochs[0].obj.value} epochs"
            yield finding(
                model, CODE, built.module, built.span,
                f"DataLoader with positive workers is {how} ({where(model, ran, built.module)}), which iterates it "
                f"anew every epoch and restarts its workers each time: add `persistent_workers=True`",
                (ran,) + tuple(f.trail[-1] for f in epochs if f.trail)[:1] + tuple(workers.trail("positive")),
            )


def _changed_by_handlers(model: Model, run, loader) -> bool:
    """An epoch handler of the engine changes the loader's dataset (a curriculum step): the
    workers started anew each epoch are what copies the change to them."""
    regions = model.resolver.engines.handler_regions(run)
    return bool(regions) and bool(model.changes_in_regions(loader, regions))


def _handled_each_epoch(model: Model, run, handlers, several):
    """The epochs of the engine whose epoch handler makes ``run`` (the evaluator's run in the
    trainer's ``EPOCH_COMPLETED`` handler), when that engine runs several; else None."""
    scope = model.project.call(run.run).scope
    for engine in handlers.get(Func(run.run.module, scope), ()) if scope else ():
        for made in made_by(engine):
            if made in several:
                return several[made]
    return None


def _framework_epochs(model: Model, reported: Set[object]) -> Iterator[Finding]:
    """A loader a Lightning module or data module builds in ``train_dataloader`` or
    ``val_dataloader``: Lightning's fit loop iterates it every epoch (and warns "Consider
    setting `persistent_workers=True`")."""
    if model.reloads_dataloaders():
        return  # new loaders every few epochs: keeping the workers would not keep them either
    for loader in model.all_loaders():
        base = loaders.base_loader(loader)
        if base is None or base.site is None or base in reported or model.managed(loader) != "lightning":
            continue
        hook = model.building_hook(loader)
        if hook is None or hook.name not in EPOCH_HOOKS or model.lightning_epoch_changes(loader):
            continue  # an epoch hook changes the dataset: fresh workers are what copies the change
        workers = _restarting_workers(model, loader)
        if workers is None:
            continue
        reported.add(base)
        built = loaders.construction_step(model.resolver, loader)
        yield finding(
            model, CODE, built.module, built.span,
            f"DataLoader with positive workers is built in `{hook.scope.rpartition('.')[2]}.{hook.name}`, which "
            f"Lightning's fit loop iterates every epoch: its workers start again each time; add "
            f"`persistent_workers=True`",
            tuple(workers.trail("positive")),
        )


def _repeating_loop(model: Model, iteration):
    """(module, loop, trail) of the loop that starts the loader's workers again on each pass:
    the epoch loop around a ``for`` over it, or the loop making ``it = iter(loader)`` each
    pass (a fresh iterator per step, ``next(iter(loader))``, is DSL304's)."""
    if iteration.loop is None:
        loop = _epoch_of_iterator(model, iteration)
        if loop is None or model.built_inside(iteration.loader, iteration.module, loop):
            return None
        return iteration.module, loop, ()
    epoch = model.epoch_loop(iteration, same_loader=True)
    return (epoch.module, epoch.loop, epoch.trail) if epoch is not None and epoch.loop is not None else None


def _epoch_of_iterator(model: Model, iteration):
    """The loop an ``iter(loader)`` call is made in, when the iterator it binds is drawn with
    ``next()`` only in loops nested inside that one: a new iterator (its workers started
    again) once per pass of the outer loop, kept through the steps of the inner ones."""
    summary = model.project.summary(iteration.module)
    site = summary.calls[iteration.call]
    function = model.project.function(iteration.module, site.scope) if site.scope else None
    if function is None or site.loop < 0 or last_name(site.func) != "iter":
        return None
    names = [name for name, bindings in function.bindings.items()
             if any(type(b.value) is Call and b.value.index == iteration.call for b in bindings)]
    if len(names) != 1:
        return None  # ``next(iter(loader))``, or an iterator handed on
    draws = [other.loop for other in summary.calls
             if other.scope == site.scope and last_name(other.func) == "next" and other.args
             and type(other.args[0]) is Name and other.args[0].id == names[0]]
    if not draws or not all(_nested_in(summary.loops, loop, site.loop) for loop in draws):
        return None
    return summary.loops[site.loop]


def _nested_in(loops, inner: int, outer: int) -> bool:
    """Whether loop ``inner`` sits inside loop ``outer`` (and is not it)."""
    while inner >= 0:
        inner = loops[inner].parent
        if inner == outer:
            return True
    return False


def _restarting_workers(model: Model, loader):
    """The loader's workers when they are processes started anew by every pass over it:
    positive, not threads, ``persistent_workers`` not given and not the library's default."""
    spec = model.spec(loader)
    if spec is None or spec.persistent_auto or model.argument(loader, "persistent_workers") is not None:
        return None
    workers = model.workers(loader)
    return workers if workers.positive and not workers.threads else None

