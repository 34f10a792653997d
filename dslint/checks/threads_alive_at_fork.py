"""DSL109 threads-alive-at-fork: threads of the main process still running when forked
workers start.

A Dataset (or a transform or collate object it travels with) that starts a ``ThreadPool``
in its ``__init__``, gives a ``ThreadPoolExecutor`` work there, or starts a looping thread,
and never closes it, is still running those threads when a fork-started loader forks its
workers. ``fork()`` copies only the calling thread: a lock another thread held stays held
in the child forever, and a pool the worker uses has no threads behind it (its tasks wait
forever: measured 100 % with ``ThreadPool.map`` in ``__getitem__``). Python 3.12+ warns:
"This process is multi-threaded, use of fork() may lead to deadlocks in the child".
"""

from __future__ import annotations

from typing import Dict, Iterator, Set, Tuple

from ..diagnostics import Finding
from ..model import effects
from ..model.objects import Cls, Inst, Step
from ..model.queries import Model
from .base import finding

CODE = "DSL109"
WARNING = "\"This process is multi-threaded, use of fork() may lead to deadlocks in the child\""
POOL_HINT = ("use the pool in a `with` block (or close and join it) before the loader is iterated, or create it "
             "in the worker")
THREAD_HINT = "stop and join the thread before the loader is iterated, or start it in the worker"


def check(model: Model) -> Iterator[Finding]:
    objects: Dict[Inst, Tuple[object, object, Set]] = {}
    reads: Dict[Inst, Set[str]] = {}
    for loader, workers, function in model.worker_runs():
        if (workers is not None and workers.threads) or not model.fork_started(loader):
            continue
        obj = function.self_obj
        if isinstance(obj, Inst) and isinstance(obj.cls, Cls) and obj.site is not None:
            entry = objects.setdefault(obj, (loader, function, set()))
            entry[2].add(function.func)
            reads.setdefault(obj, set()).update(model.function_summary(function.func).self_reads)
    reported: Set[Tuple[str, str]] = set()
    for obj, (loader, function, worker_funcs) in objects.items():
        for live in effects.live_threads(model, obj, worker_funcs):
            key = (live.cls.module, live.cls.qualname, live.attr)
            if key in reported:
                continue
            reported.add(key)
            klass = model.project.klass(live.cls.module, live.cls.qualname)
            started = (Step(live.started.module, model.project.call(live.started).span, "its threads start here"),) \
                if live.started is not None else ()
            used = live.attr in reads.get(obj, set())
            consequence = ("the workers use it, and a forked copy of a pool has no threads: its tasks never run"
                           if used and live.kind == "pool" else "a worker can deadlock on a lock one of them held")
            hint = THREAD_HINT if live.kind == "thread" else POOL_HINT
            yield finding(
                model, CODE, live.module, live.store.span,
                f"{live.what} stored as `self.{live.attr}` in `{klass.name}` is still running when the main process "
                f"forks the DataLoader workers: {consequence} (Python 3.12+ warns {WARNING}); {hint}",
                tuple(live.trail) + started + tuple(function.trail),
            )
