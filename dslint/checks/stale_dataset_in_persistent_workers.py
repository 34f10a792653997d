"""DSL404 stale-dataset-in-persistent-workers: epoch changes the workers never see.

With ``persistent_workers=True`` the workers are started once, at the first epoch, each with
its own copy of the dataset (pickled under spawn, copied by fork), and they keep that copy
for the whole run. What the main process then does to its dataset object between epochs
(``dataset.set_epoch(e)``, ``loader.dataset.scale = s``, a curriculum step) changes only the
main process's copy: every epoch replays the first epoch's state, silently.
"""

from __future__ import annotations

from typing import Iterator, Optional, Set, Tuple

from ..analysis.summary import Span
from ..diagnostics import Finding
from ..model import loaders
from ..model.externals import truthiness
from ..model.objects import Cls, Managed, Step
from ..model.queries import Model
from .base import finding, source, where

CODE = "DSL404"


def _statement(model: Model, module: str, span: Span) -> Span:
    """From the start of the statement's line: an assignment is recorded at its value."""
    before = model.project.text_of(module, Span(span.row, 1, span.row, span.col))
    return Span(span.row, 1 + len(before) - len(before.lstrip()), span.end_row, span.end_col)


def _persistent(model: Model, loader) -> Optional[Tuple[Step, ...]]:
    """Where the loader's workers are made persistent (the keyword, then what makes it true),
    or None unless ``persistent_workers`` is known true and workers may run."""
    if not model.workers(loader).processes:
        return None
    persistent = model.argument(loader, "persistent_workers")
    if persistent is None or truthiness(persistent) != "true":
        tied = loaders.persistent_with_workers(model.resolver, loader)
        if tied is not None:  # ``persistent_workers=workers > 0``: true in every run that has workers
            return (Step(tied.site.module, tied.span, "workers kept across epochs whenever there are workers"),)
        kept = loaders.kept_iterator(model.resolver, loader)  # a loader that never restarts its workers
        return (kept,) if kept is not None else None
    given = loaders.argument_source(model.resolver, loader, "persistent_workers")
    kept = Step(given.site.module, given.span, "workers kept across epochs") if given else \
        loaders.construction_step(model.resolver, loader, "the loader, with persistent workers")
    return (kept,) + next((f.trail for f in persistent if truthiness((f,)) == "true"), ())[:2]


def check(model: Model) -> Iterator[Finding]:
    reported: Set[object] = set()
    yield from _lightning_epochs(model, reported)
    yield from _engine_epochs(model, reported)
    for iteration in model.iterations():
        if iteration.loop is None or (model.managed(iteration.loader) and not isinstance(iteration.loader, Managed)):
            continue  # a framework's own loop; one the code prepared (``accelerator.prepare``) keeps its workers
        kept = _persistent(model, iteration.loader)
        repeat = model.epoch_loop(iteration) if kept else None
        if repeat is None:
            continue
        loop_step = Step(repeat.module, repeat.loop.span, "once per epoch") if repeat.loop is not None else None
        steps = (loop_step, Step(iteration.module, iteration.span, "iterated here")) + repeat.trail
        when = "in the main process between epochs," if not repeat.runner else \
            f"in the main process between two calls of `{repeat.hook.rpartition('.')[2]}` ({repeat.runner})"
        for change, span in _new_changes(model, model.dataset_changes(iteration.loader, repeat), reported):
            yield _finding(model, change, span, kept, when, steps)


def _engine_epochs(model: Model, reported) -> Iterator[Finding]:
    """Loaders with persistent workers an ignite engine runs over for several epochs, and the
    epoch handlers of that engine (``@trainer.on(Events.EPOCH_STARTED)``, a handler object's
    ``__call__`` attached with ``add_event_handler``) that change their dataset."""
    engines = model.resolver.engines
    for run in engines.runs():
        regions = engines.handler_regions(run) if engines.may_repeat(run) else ()
        if not regions:
            continue
        site = model.project.call(run.run)
        ran = Step(run.run.module, site.span, "the engine runs over it once per epoch here")
        for loader in engines.run_loaders(run):
            if model.managed(loader):
                continue
            kept = _persistent(model, loader)
            for change, span in _new_changes(model, model.changes_in_regions(loader, regions) if kept else (), reported):
                yield _finding(model, change, span, kept, "in a handler of the ignite engine's epochs,", (ran,))


def _lightning_epochs(model: Model, reported) -> Iterator[Finding]:
    """Loaders a Lightning module's ``*_dataloader`` hook builds with persistent workers, and
    the epoch hooks of the same module (``on_train_epoch_start``) that change their dataset.
    Not when the project asks a Trainer to reload its dataloaders every few epochs."""
    if model.reloads_dataloaders():
        return
    for loader in model.loaders():
        if model.managed(loader) != "lightning":
            continue
        kept = _persistent(model, loader)
        if kept is None:
            continue
        for name, change in model.lightning_epoch_changes(loader):
            for change, span in _new_changes(model, [change], reported):
                yield _finding(model, change, span, kept, f"in `{name}`, which Lightning calls every epoch,", ())


def _new_changes(model: Model, changes, reported):
    """(change, span of its statement) of the changes not reported yet."""
    for change in changes:
        span = _statement(model, change.module, change.span) if change.store else change.span
        key = (change.module, span.row, span.col, change.attr)
        if key not in reported:
            reported.add(key)
            yield change, span


def _finding(model: Model, change, span: Span, kept, when: str, steps) -> Finding:
    cls = change.obj.cls
    name = model.project.klass(cls.module, cls.qualname).name if isinstance(cls, Cls) else cls.qualname.rpartition(".")[2]
    remedy = "start a new iterator after the change" if kept[0].note == loaders.KEPT_ITERATOR \
        else "drop `persistent_workers`"
    return finding(
        model, CODE, change.module, span,
        f"`{_short(source(model, change.module, span))}` changes `{name}.{change.attr}` {when} but the "
        f"DataLoader's workers are persistent ({where(model, kept[0], change.module)}): each keeps the copy it "
        f"got in the first epoch and never sees the change; pass the value through the sampler or shared "
        f"memory, or {remedy}",
        kept + change.trail + (model.construction(change.obj, f"the `{name}` each worker copied"),) + steps,
    )


def _short(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "..."
