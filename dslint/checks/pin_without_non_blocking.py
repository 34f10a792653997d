"""DSL301 pin-without-non-blocking: pinned batches copied synchronously.

``pin_memory=True`` pays a pinning thread so that host-to-device copies can overlap with
compute, but only copies issued with ``non_blocking=True`` overlap. The batches are
followed wherever they go: returned by a factory, handed to a train function in another
module, stored on an engine object. Loaders whose batches a framework moves itself
(accelerate, Lightning, timm's prefetcher) are left alone.
"""

from __future__ import annotations

from typing import Iterator, Optional, Set, Tuple

from ..analysis.values import Starred, last_name
from ..diagnostics import Finding
from ..model import loaders
from ..model.externals import truthiness
from ..model.objects import Inst, Lit, Managed, Step
from ..model.queries import Model
from .base import finding, where

CODE = "DSL301"


def moved_by_library(model: Model, loader) -> bool:
    if isinstance(loader, Managed):
        return bool(loader.moves_batches)
    if model.managed(loader):
        return True
    spec = model.spec(loader)
    if spec is None or not spec.moves_batches:
        return False
    if spec.moves_unless:
        given = model.argument(loader, spec.moves_unless)
        return given is None or truthiness(given) != "false"
    return True


def check(model: Model) -> Iterator[Finding]:
    by_place = {}
    for move, pin in _blocking_moves(model):
        base = loaders.base_loader(move.loader)
        key = (move.module, move.site.scope, move.site.loop, base.site if base is not None else move.loader)
        by_place.setdefault(key, []).append((move, pin))
    for entries in by_place.values():
        entries.sort(key=lambda entry: (entry[0].site.span.row, entry[0].site.span.col))
        yield _finding(model, [move for move, _ in entries], entries[0][1])
    reported = set()
    for run in model.resolver.engines.supervised_runs():
        if run.made not in reported:
            found = _copied_by_engine(model, run)
            if found is not None:
                reported.add(run.made)
                yield found


# ignite 0.5: create_supervised_trainer(model, optimizer, loss_fn, device, non_blocking, ...),
# create_supervised_evaluator(model, metrics, device, non_blocking, ...)
ENGINE_POSITIONS = {"create_supervised_trainer": (3, 4), "create_supervised_evaluator": (2, 3)}


def _copied_by_engine(model: Model, run) -> Optional[Finding]:
    """An ignite engine from ``create_supervised_trainer``/``_evaluator`` told a ``device``
    and not ``non_blocking=True`` copies each batch of the pinned loader it runs over with a
    blocking copy: the fix is its ``non_blocking=True``."""
    site = model.project.call(run.made)
    ctx = model.resolver.context(run.made.module, site.scope)
    device_at, flag_at = ENGINE_POSITIONS.get(last_name(site.func), (None, None))
    if device_at is None:
        return None
    device = model.resolver.keyword_at(run.made, ctx, "device", device_at)
    if not device or any(isinstance(f.obj, Lit) and f.obj.value is None for f in device):
        return None  # no device: the engine moves nothing
    if truthiness(model.resolver.keyword_at(run.made, ctx, "non_blocking", flag_at) or ()) == "true":
        return None
    for found in run.data:
        loader = found.obj
        if not isinstance(loader, Inst) or not model.resolver.is_loader(loader) or moved_by_library(model, loader):
            continue
        pin = model.value(loader, "pin_memory")
        if truthiness(pin) != "true":
            continue
        built = loaders.construction_step(model.resolver, loader, "the pinned loader is built here")
        trail = next((f.trail for f in pin if f.trail), ())
        ran = Step(run.run.module, model.project.call(run.run).span, "run over its batches here")
        return finding(
            model, CODE, run.made.module, site.span,
            f"`{last_name(site.func)}` copies each batch of a `pin_memory=True` loader "
            f"({where(model, built, run.made.module)}) to `device` without `non_blocking=True` (ignite's default is "
            f"`False`), so the copy cannot overlap compute: pass `non_blocking=True`",
            (built,) + trail[:1] + (ran,),
            fixable=False,  # the fixer rewrites copies; this one is the engine's keyword
        )
    return None


def _blocking_moves(model: Model):
    """Copies without ``non_blocking=True`` of batches from ``pin_memory=True`` loaders, with
    the loader's ``pin_memory`` answer."""
    reported: Set[Tuple[str, int]] = set()
    for move in model.batch_moves():
        if move.non_blocking != "false" or (move.module, move.index) in reported:
            continue
        if moved_by_library(model, move.loader):
            continue
        pin = model.value(move.loader, "pin_memory")
        if truthiness(pin) != "true":
            continue
        reported.add((move.module, move.index))
        yield move, pin


def _finding(model: Model, moves, pin) -> Finding:
    """One finding per loop (or function) copying one loader's batches (``images =
    images.cuda()`` then ``labels = labels.cuda()`` is one place to fix): at its first copy,
    with the others as related locations, all of them fixed together."""
    move = moves[0]
    built = loaders.construction_step(model.resolver, move.loader, "the pinned loader is built here")
    trail = next((f.trail for f in pin if f.trail), ())
    pin_steps = trail[:1] + trail[-1:] if len(trail) > 1 else trail  # the argument, and where its value is set
    others = tuple(Step(other.module, other.site.span, f"`.{other.method}(...)` also copied here without `non_blocking`")
                   for other in moves[1:])
    rows = sorted({m.site.span.row for m in moves[1:]} - {move.site.span.row})
    where_else = "on this line" if not rows else f"on lines {', '.join(map(str, [move.site.span.row] + rows))}"
    copies = f"`.{move.method}(...)`" if len(moves) == 1 else \
        " and ".join(dict.fromkeys(f"`.{m.method}(...)`" for m in moves)) + f" ({len(moves)} copies {where_else})"
    fixable = [other for other in moves[1:] if _fixable(other)]
    return finding(
        model, CODE, move.module, move.site.span,
        f"Batch from a `pin_memory=True` loader ({where(model, built, move.module)}) is copied with "
        f"{copies} without `non_blocking=True`, so the copy cannot overlap compute: add `non_blocking=True`",
        (built,) + pin_steps + others + tuple(move.trail),
        fixable=_fixable(move),
        **({"also": tuple((m.site.span.row, m.site.span.col, m.site.span.end_row, m.site.span.end_col)
                          for m in fixable)} if fixable else {}),
    )


# positional arguments before ``non_blocking``: ``cuda(device, non_blocking)``,
# ``type(dtype, non_blocking)``, ``to(device, dtype, non_blocking)`` (the fixer reads it too)
POSITIONAL_NON_BLOCKING = {"cuda": 1, "type": 1, "to": 2}


def _fixable(move) -> bool:
    """What the fixer (``dslint.fixes.dsl301``) rewrites: a ``.to``/``.cuda``/``.type`` call
    without ``*args``/``**kwargs`` and without ``non_blocking`` given by position."""
    site = move.site
    return (move.method in POSITIONAL_NON_BLOCKING and len(site.args) <= POSITIONAL_NON_BLOCKING[move.method]
            and not any(isinstance(arg, Starred) for arg in site.args) and all(key is not None for key, _ in site.keywords))
