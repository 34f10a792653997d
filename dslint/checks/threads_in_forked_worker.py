"""DSL107 threads-in-forked-worker: more than one OpenMP thread in a forked worker.

When the parent already ran OpenMP (any torch matmul does), a forked worker that asks for
more than one OpenMP thread hangs in libgomp at the first sample (measured 10/10).
"""

from __future__ import annotations

from typing import Iterator, Set, Tuple

from ..diagnostics import Finding
from ..model import effects
from ..model.queries import Model
from .base import finding

CODE = "DSL107"
HINT = "keep one thread per worker (torch's default in workers) or start workers with spawn/forkserver"


def check(model: Model) -> Iterator[Finding]:
    reported: Set[Tuple[str, int]] = set()
    for loader, workers, function in model.worker_runs():
        if (workers is not None and workers.threads) or not model.fork_started(loader):
            continue
        setting = effects.thread_setting(model, function.func, function.self_obj)
        if setting is None or (setting.module, setting.index) in reported:
            continue
        reported.add((setting.module, setting.index))
        name = model.function_summary(function.func).qualname.replace(".<locals>", "")
        yield finding(
            model, CODE, setting.module, setting.site.span,
            f"{setting.what} in `{name}` runs in forked DataLoader workers ({function.role}); after the "
            f"parent used OpenMP this hangs in libgomp: {HINT}",
            tuple(function.trail),
        )
