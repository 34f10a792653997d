"""DSL108 processes-in-worker: code a DataLoader worker runs starts processes.

DataLoader workers are daemonic processes, and a daemonic process may not have children:
a ``multiprocessing.Pool``, a ``ProcessPoolExecutor``, ``Process(...).start()``,
``torch.multiprocessing.spawn`` or a ``datasets`` ``map(num_proc=n)`` in ``__getitem__``,
``__iter__``, a transform, a ``collate_fn`` or a ``worker_init_fn`` fails in the worker with
``AssertionError: daemonic processes are not allowed to have children``, whatever the start
method. The same code runs with zero workers, which is how it usually gets written.
"""

from __future__ import annotations

from typing import Iterator, Set, Tuple

from ..diagnostics import Finding
from ..model import effects
from ..model.queries import Model
from .base import finding

CODE = "DSL108"
ERROR = "`AssertionError: daemonic processes are not allowed to have children`"
HINT = "use threads there (`ThreadPool`, `ThreadPoolExecutor`) or do that work before the loader is built"


def check(model: Model) -> Iterator[Finding]:
    reported: Set[Tuple[str, int]] = set()
    for loader, workers, function in model.worker_runs():
        if workers is not None and workers.threads:
            continue
        start = effects.process_start(model, function.func, function.self_obj)
        if start is None or (start.module, start.index) in reported:
            continue
        reported.add((start.module, start.index))
        name = model.function_summary(function.func).qualname.replace(".<locals>", "")
        yield finding(
            model, CODE, start.module, start.site.span,
            f"{start.what} in `{name}`, which runs in DataLoader workers ({function.role}); workers are "
            f"daemonic processes and cannot have children: {ERROR}; {HINT}",
            tuple(function.trail),
        )
