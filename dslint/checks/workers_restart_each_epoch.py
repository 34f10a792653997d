"""DSL302 workers-restart-each-epoch (off by default): workers torn down and started every epoch.

Without ``persistent_workers=True`` every ``for batch in loader`` starts the workers anew
(each re-importing or forking, rebuilding its dataset copy) and shuts them down at the
end. The epoch loop may be in another function: ``for epoch in ...: train(loader)``.
"""

from __future__ import annotations

from typing import Iterator, Set

from ..diagnostics import Finding
from ..model import loaders
from ..model.objects import Step
from ..model.queries import Model
from .base import finding, where

EPOCH_HOOKS = ("train_dataloader", "val_dataloader")  # what Lightning's fit loop iterates every epoch

CODE = "DSL302"


def check(model: Model) -> Iterator[Finding]:
    reported: Set[object] = set()
    for iteration in model.iterations():
        if iteration.loop is None:
            continue  # iter()/next() in a loop is a fresh iterator each pass, not an epoch over the loader
        loader = iteration.loader
        base = loaders.base_loader(loader)
        if base in reported:  # a framework's wrapper (accelerate) still restarts the workers each pass
            continue
        workers = _restarting_workers(model, loader)
        if workers is None or loaders.kept_iterator(model.resolver, base):
            continue
        epoch = model.epoch_loop(iteration, same_loader=True)
        if epoch is None or epoch.loop is None:
            continue
        module, loop, trail = epoch.module, epoch.loop, epoch.trail
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
        hook = _epoch_hook(model, base.site)
        if not hook or model.lightning_epoch_changes(loader):
            continue  # an epoch hook changes the dataset: fresh workers are what copies the change
        workers = _restarting_workers(model, loader)
        if workers is None:
            continue
        reported.add(base)
        built = loaders.construction_step(model.resolver, loader)
        yield finding(
            model, CODE, built.module, built.span,
            f"DataLoader with positive workers is built in `{hook}`, which Lightning's fit loop iterates every "
            f"epoch: its workers start again each time; add `persistent_workers=True`",
            tuple(workers.trail("positive")),
        )


def _restarting_workers(model: Model, loader):
    """The loader's workers when they are processes started anew by every pass over it:
    positive, not threads, ``persistent_workers`` not given and not the library's default."""
    spec = model.spec(loader)
    if spec is None or spec.persistent_auto or model.argument(loader, "persistent_workers") is not None:
        return None
    workers = model.workers(loader)
    return workers if workers.positive and not workers.threads else None


def _epoch_hook(model: Model, site) -> str:
    """``Class.train_dataloader`` when the loader built at ``site`` (one Lightning manages) is
    built in a hook the fit loop iterates every epoch, else ""."""
    scope = model.project.call(site).scope
    function = model.project.function(site.module, scope) if scope else None
    if function is None or function.scope_kind != "class" or function.name not in EPOCH_HOOKS:
        return ""
    return f"{function.scope.rpartition('.')[2]}.{function.name}"
