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

from ..analysis.values import Attr, Const
from ..diagnostics import Finding
from ..model import effects
from ..model.objects import Bound, Cls, Container, Ext, Func, Inst, SiteRef, Step
from ..model.queries import Model
from .base import finding, where

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
    yield from _sharing_threads(model)


def _sharing_threads(model: Model) -> Iterator[Finding]:
    """Threads the main process starts (and never joins) that share an object with a
    fork-started loader's workers: the thread's target is a method of the loader's dataset
    or of an object the dataset holds, or the thread was given one of them (``Thread(
    target=cache.warm)`` with the dataset holding ``cache``; a ``CacheWarmer(dataset)``
    thread). A worker forked while the thread holds that object's lock, or is halfway
    through changing it, keeps it that way: ``with self.lock`` in ``__getitem__`` blocks
    forever."""
    computed: list = []

    def worker_objects():
        if not computed:
            computed.append(_worker_objects(model))
        return computed[0]

    reported: Set[SiteRef] = set()
    in_workers = None
    for ref in _start_calls(model, worker_objects):
        site = model.project.call(ref)
        if not isinstance(site.func, Attr) or site.args or site.keywords or ref in reported:
            continue
        if in_workers is None:
            in_workers = {function.func for _, _, function in model.worker_runs()}
        if site.scope and Func(ref.module, site.scope) in in_workers:
            continue  # started by worker code, after the fork: each worker has its own (the fix)
        ctx = model.resolver.context(ref.module, site.scope)
        kind = effects.thread_kind(model, model.resolver.eval(site.func.base, ctx))
        if kind is None or kind[0] != "thread" or kind[1].site is None:
            continue
        shared = worker_objects()
        if not shared or _joined(model, kind[1]):
            continue
        for obj, how in _handed_to_thread(model, kind[1]):
            held = shared.get(_key(obj))
            if held is None:
                continue
            reported.add(ref)
            loader, workers, trail = held
            built = model.construction(loader)
            name = obj.cls.qualname.rpartition(".")[2] if isinstance(obj, Inst) else obj[1] if isinstance(obj, tuple) \
                else "object"
            what = f"the module lock `{name}` that the code the DataLoader at {where(model, built, ref.module)} runs in " \
                f"its forked workers also takes" if isinstance(obj, tuple) else \
                f"the `{name}` that the DataLoader at {where(model, built, ref.module)} hands to its forked workers"
            yield finding(
                model, CODE, ref.module, site.span,
                f"This thread {how} {what} ({workers.describe()} workers), and nothing joins it before they are forked: a worker "
                f"forked while the thread holds that object's lock, or is halfway through changing it, keeps it "
                f"that way (a `with self.lock:` in the worker then blocks forever) and never sees the thread's later "
                f"work (Python 3.12+ warns {WARNING}); {THREAD_HINT}",
                (Step(kind[1].site.module, model.project.call(kind[1].site).span, "the thread"), built) + tuple(trail),
            )
            break


def _start_calls(model: Model, worker_objects) -> Iterator[SiteRef]:
    """The ``.start()`` calls of the modules summarised up front, then those of the modules
    whose module-level locks worker code takes (a helper module starting its refresher
    thread: ``start_refresher()`` in ``emb_cache.py``, which the pre-filter does not read)."""
    found = model.project.calls_named("start")
    yield from found
    seen = set(found)
    modules = sorted({key[0] for key in worker_objects() if isinstance(key, tuple) and isinstance(key[0], str)})
    for module in modules:
        summary = model.project.summary(module)
        for index, site in enumerate(summary.calls if summary is not None else ()):
            ref = SiteRef(module, index)
            if type(site.func) is Attr and site.func.name == "start" and ref not in seen:
                yield ref


def _key(obj):
    return (obj.cls, obj.site) if isinstance(obj, Inst) else obj


def _worker_objects(model: Model) -> Dict[object, Tuple[object, object, tuple]]:
    """Project objects (by class and construction) that fork-started workers get with a
    loader's dataset: the dataset and what its attributes hold."""
    out: Dict[object, Tuple[object, object, tuple]] = {}
    for loader in model.all_loaders():
        workers = model.workers(loader)
        if not workers.positive or workers.threads or not model.fork_started(loader):
            continue
        for found in model.value(loader, "dataset"):
            for obj, _, trail in model.object_graph([(found.obj, "dataset", found.trail)]):
                if isinstance(obj, Inst) and isinstance(obj.cls, Cls) and obj.site is not None:
                    out.setdefault(_key(obj), (loader, workers, trail))
    for loader, workers, function in model.worker_runs():
        if loader is not None and workers.positive and not workers.threads and model.fork_started(loader):
            for lock in _global_locks(model, function.func):
                out.setdefault(lock, (loader, workers, tuple(function.trail)))
    return out


LOCKS = frozenset({"threading.Lock", "threading.RLock", "threading.Condition", "threading.Semaphore",
                   "threading.BoundedSemaphore"})


def _global_locks(model: Model, func) -> Set[Tuple[str, str]]:
    """(module, name) of the module-level locks ``func`` uses (``with _lock:`` in a helper of
    the dataset's module, ``_lock = threading.Lock()`` at its top)."""
    function = model.function_summary(func)
    summary = model.project.summary(func.module)
    if function is None or summary is None:
        return set()
    out = set()
    for name in function.loads:
        if name in function.bindings and name not in function.declared_global or name not in summary.bindings:
            continue
        values = model.resolver.global_name(func.module, name)
        if values and all(isinstance(f.obj, Inst) and isinstance(f.obj.cls, Ext) and f.obj.cls.qualname in LOCKS
                          for f in values):
            out.add((func.module, name))
    return out


def _handed_to_thread(model: Model, thread: Inst):
    """(object, how) the thread works on: its target's ``self``, its ``args``, and for a
    ``Thread`` subclass the thread itself and the arguments it was built with."""
    if isinstance(thread.cls, Cls):
        yield thread, "is"  # a ``Thread`` subclass the dataset holds (``SceneChips(chips, prefetcher)``)
        for found in _arguments(model, thread):
            yield found.obj, "was given"
        return
    for found in model.resolver.keyword_at(thread.site, thread.ctx, "target", 1) or ():
        if isinstance(found.obj, Bound):
            yield found.obj.self_obj, "runs a method of"
        elif isinstance(found.obj, Func):  # ``Thread(target=_refresh_loop)`` holding a module lock
            for lock in sorted(_global_locks(model, found.obj)):
                yield lock, "takes"
    for found in model.resolver.keyword_at(thread.site, thread.ctx, "args", 3) or ():
        if isinstance(found.obj, Container):
            for item in model.resolver.container_values(found.obj):
                yield item.obj, "was given"


def _arguments(model: Model, inst: Inst):
    site = model.project.call(inst.site)
    ctx = inst.ctx or model.resolver.context(inst.site.module, site.scope)
    for value in list(site.args) + [v for k, v in site.keywords if k]:
        yield from model.resolver.eval(value, ctx)


def _joined(model: Model, thread: Inst) -> bool:
    """A ``join()`` of the thread anywhere: it may end before the workers start."""
    for ref in model.project.calls_named("join"):
        site = model.project.call(ref)
        if not isinstance(site.func, Attr) or type(site.func.base) is Const:
            continue  # ``", ".join(parts)``
        ctx = model.resolver.context(ref.module, site.scope)
        if any(_key(f.obj) == _key(thread) for f in model.resolver.eval(site.func.base, ctx)):
            return True
    return False
