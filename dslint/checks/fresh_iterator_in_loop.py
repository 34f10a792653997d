"""DSL304 fresh-iterator-in-loop: a new iterator of a loader with workers on every pass.

``iter(loader)`` starts all of the loader's worker processes, and each prefetches
``prefetch_factor`` batches; ``next(iter(loader))`` in a step loop (or in a function the
loop calls) takes one batch and throws the rest away, then does it all again on the next
pass. With ``shuffle=False`` it is also the same first batch every time.
"""

from __future__ import annotations

from typing import Iterator, Set

from ..diagnostics import Finding
from ..model import loaders
from ..model.externals import truthiness
from ..model.objects import Step
from ..model.queries import Model
from .base import finding, where

CODE = "DSL304"


def _persistent_maybe(model: Model, loader) -> bool:
    """Persistent workers survive ``iter()``: only a loader known not to keep them is reported."""
    given = model.argument(loader, "persistent_workers")
    if given is None:
        spec = model.spec(loader)
        return spec is not None and spec.persistent_auto
    return truthiness(given) != "false"


def check(model: Model) -> Iterator[Finding]:
    reported: Set[object] = set()
    for fresh in model.fresh_iterators():
        if (fresh.module, fresh.call) in reported:
            continue
        workers = model.workers(fresh.loader)
        if not workers.positive or workers.threads or _persistent_maybe(model, fresh.loader):
            continue
        reported.add((fresh.module, fresh.call))
        repeat = fresh.repeat
        if repeat.loop is not None:
            loop_step = Step(repeat.module, repeat.loop.span, "the loop that repeats it")
            how = f"in the loop at {where(model, loop_step, fresh.module)}"
        elif repeat.hook:
            loop_step = None
            how = f"in `{repeat.hook}`, which Lightning calls for every batch,"
        else:
            loop_step = None
            how = f"once per epoch (`{repeat.parameter}` is a parameter of the code that makes it)"
        built = loaders.construction_step(model.resolver, fresh.loader, "the loader, with positive workers")
        yield finding(
            model, CODE, fresh.module, fresh.span,
            f"A new iterator of a DataLoader with positive workers is made {how} and one batch taken from "
            f"it: each time all workers start again and their prefetched batches are thrown away; keep one "
            f"iterator and call `iter()` again only on `StopIteration`",
            (fresh.drawn, loop_step, built) + repeat.trail + workers.trail("positive"),
        )
