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
from ..model.objects import Managed
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
    reported: Set[Tuple[str, int]] = set()
    for move in model.batch_moves():
        if move.non_blocking != "false" or (move.module, move.index) in reported:
            continue
        loader = move.loader
        if moved_by_library(model, loader):
            continue
        pin = model.value(loader, "pin_memory")
        if truthiness(pin) != "true":
            continue
        reported.add((move.module, move.index))
        built = loaders.construction_step(model.resolver, loader, "the pinned loader is built here")
        pin_step = next((s for f in pin for s in f.trail[:1]), None)
        yield finding(
            model, CODE, move.module, move.site.span,
            f"Batch from a `pin_memory=True` loader ({where(model, built, move.module)}) is copied with "
            f"`.{move.method}(...)` without `non_blocking=True`, so the copy cannot overlap compute: "
            f"add `non_blocking=True`",
            (built, pin_step) + tuple(move.trail),
            fixable=_fixable(move),
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
