"""DSL108 processes-in-worker: code a DataLoader worker runs starts processes.

DataLoader workers are daemonic processes, and a daemonic process may not have children:
a ``multiprocessing.Pool``, a ``ProcessPoolExecutor``, ``Process(...).start()``,
``torch.multiprocessing.spawn`` or a ``datasets`` ``map(num_proc=n)`` in ``__getitem__``,
``__iter__``, a transform, a ``collate_fn`` or a ``worker_init_fn`` (or a DataLoader with
workers of its own iterated there) fails in the worker with
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
    nested = _iterations_by_scope(model)
    for loader, workers, function in model.worker_runs():
        if workers is not None and workers.threads:
            continue
        inner = _nested_loader(model, nested, function)
        if inner is not None and (inner.module, inner.span.row) not in reported:
            reported.add((inner.module, inner.span.row))
            yield _nested_finding(model, inner, function)
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


def _iterations_by_scope(model: Model):
    """The loader iterations of the project by (module, function): where a worker may iterate one."""
    found = {}
    for iteration in model.iterations():
        found.setdefault((iteration.module, iteration.scope), []).append(iteration)
    return found


def _nested_loader(model: Model, nested, function):
    """An iteration, in the worker code ``function``, of a DataLoader it builds there whose own
    worker processes it would start (a loader built in ``__getitem__`` with ``num_workers=2``)."""
    for iteration in nested.get((function.func.module, function.func.qualname), ()):
        loader = iteration.loader
        site = getattr(loader, "site", None)
        if site is None or site.module != iteration.module or model.project.call(site).scope != iteration.scope:
            continue  # only a loader the worker code builds itself: one handed in may be anything
        workers = model.workers(loader)
        if workers.processes and workers.positive:
            return iteration
    return None


def _nested_finding(model: Model, iteration, function) -> Finding:
    name = model.function_summary(function.func).qualname.replace(".<locals>", "")
    built = model.construction(iteration.loader, "the inner loader, with positive workers")
    workers = model.workers(iteration.loader)
    return finding(
        model, CODE, iteration.module, iteration.span,
        f"Iterating a DataLoader with {workers.describe()} workers in `{name}`, which runs "
        f"in DataLoader workers ({function.role}), starts worker processes of its own; workers are daemonic "
        f"processes and cannot have children: {ERROR}; give the inner loader `num_workers=0`",
        (built,) + tuple(function.trail) + workers.trail("positive"),
    )
