"""DSL301 pin-without-non-blocking: pinned batches copied synchronously.

``pin_memory=True`` pays a pinning thread so that host-to-device copies can overlap with
compute, but only copies issued with ``non_blocking=True`` overlap. The batches are
followed wherever they go: returned by a factory, handed to a train function in another
module, stored on an engine object. Loaders whose batches a framework moves itself
(accelerate, Lightning, timm's prefetcher) are left alone.
"""

from __future__ import annotations

from typing import Iterator, Set, Tuple

from ..analysis.values import Starred
from ..diagnostics import Finding
from ..model import loaders
from ..model.externals import truthiness
from ..model.objects import Managed, Step
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
