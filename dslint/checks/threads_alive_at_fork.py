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
            anchor, started = ref, ()
            library = type(obj) is tuple and obj[0] == LIBRARY
            if library:
                caller = _method_caller(model, ref)
                if caller is not None:  # ``H5CacheWarmer(path).start()``: where the training code starts it
                    anchor, started = caller, (Step(ref.module, site.span, "the thread starts here"),)
                held = _in_same_program(model, obj, anchor.module, shared)
            else:
                held = shared.get(_key(obj))
                if held is None:
                    found = _started_by_caller(model, ref, obj, shared)
                    if found is not None:
                        (anchor, held), started = found, (Step(ref.module, site.span, "the thread starts here"),)
            if held is None:
                continue
            if anchor in reported:
                continue
            reported.add(ref)
            reported.add(anchor)
            loader, workers, trail = held
            built = model.construction(loader)
            name = obj.cls.qualname.rpartition(".")[2] if isinstance(obj, Inst) else obj[1] if isinstance(obj, tuple) \
                else "object"
            runs = f"the code the DataLoader at {where(model, built, anchor.module)} runs in its forked workers"
            if library:
                what = f"`{name}`, whose calls all take one process-wide lock, as {runs} does"
            elif type(obj) is tuple:
                what = f"the module lock `{name}` that {runs} also takes"
            else:
                what = f"the `{name}` that the DataLoader at {where(model, built, anchor.module)} hands to its forked workers"
            yield finding(
                model, CODE, anchor.module, model.project.call(anchor).span,
                f"This thread {how} {what} ({workers.describe()} workers), and nothing joins it before they are forked: "
                f"{_CONSEQUENCE[library].format(name=name)} "
                f"(Python 3.12+ warns {WARNING}); {THREAD_HINT}",
                started + (Step(kind[1].site.module, model.project.call(kind[1].site).span, "the thread"), built)
                + tuple(trail),
            )
            break


def _in_same_program(model: Model, lock, module: str, shared):
    """What the workers hold for a library ``lock``, from a loader built in a module of the
    program ``module`` is part of (one imports the other): a thread of one script and the
    workers of another never share a process."""
    closure = model.import_closure(module)
    for key, held in shared.items():
        if type(key) is tuple and len(key) == 3 and key[:2] == lock and \
                (key[2] in closure or module in model.import_closure(key[2])):
            return held
    return None


def _method_callers(model: Model, ref: SiteRef):
    """(its class, its calls with their receivers) of the method (not ``__init__``) of a project
    class holding ``ref``; (None, ()) elsewhere. A thread the constructor starts is
    ``effects.live_threads``' to report."""
    scope = model.project.call(ref).scope
    function = model.project.function(ref.module, scope) if scope else None
    if function is None or function.scope_kind != "class" or function.name == "__init__":
        return None, ()
    return Cls(ref.module, function.scope), model.resolver.callers(Func(ref.module, scope))


def _method_caller(model: Model, ref: SiteRef):
    """The first call of the method (not ``__init__``) of a project class holding ``ref``."""
    return next((caller for caller, _ in _method_callers(model, ref)[1]), None)


def _started_by_caller(model: Model, ref: SiteRef, obj, shared):
    """(the call, what the workers hold) when the thread is started by a method of ``obj``'s
    class working on ``self`` (``cache.start_warming(paths)``, whose ``self._thread.start()``
    runs ``self._warm``) and a caller calls it on an object the workers get: that call starts
    the thread, on that object."""
    if not (isinstance(obj, Inst) and isinstance(obj.cls, Cls) and obj.site is None):
        return None
    cls, calls = _method_callers(model, ref)
    if cls != obj.cls:
        return None
    for caller, receiver in calls:
        if isinstance(receiver, Inst) and receiver.cls == obj.cls:
            held = shared.get(_key(receiver))
            if held is not None:
                return caller, held
    return None


def _start_calls(model: Model, worker_objects) -> Iterator[SiteRef]:
    """The ``.start()`` calls of the modules summarised up front, then those of the modules
    whose module-level locks worker code takes (a helper module starting its refresher
    thread: ``start_refresher()`` in ``emb_cache.py``, which the pre-filter does not read)
    and of the modules defining the classes of the objects the workers get (a cache whose
    ``start_warming()`` starts its thread)."""
    found = model.project.calls_named("start")
    yield from found
    seen = set(found)
    keys = worker_objects()
    modules = sorted({key[0] for key in keys if isinstance(key, tuple) and isinstance(key[0], str)}
                     | {key[0].module for key in keys if isinstance(key, tuple) and isinstance(key[0], Cls)})
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
            built = model.construction(loader)
            for lock in _library_locks(model, function.func) if built is not None else ():
                out.setdefault(lock + (built.module,), (loader, workers, tuple(function.trail)))  # per program
    return out


LOCKS = frozenset({"threading.Lock", "threading.RLock", "threading.Condition", "threading.Semaphore",
                   "threading.BoundedSemaphore"})


def _global_locks(model: Model, func) -> Set[Tuple[str, str]]:
    """(module, name) of the module-level locks ``func`` uses (``with _lock:`` in a helper of
    the dataset's module, ``_lock = threading.Lock()`` at its top)."""
    return {(func.module, name) for name, values in _globals_used(model, func)
            if values and all(isinstance(f.obj, Inst) and isinstance(f.obj.cls, Ext) and f.obj.cls.qualname in LOCKS
                              for f in values)}


def _globals_used(model: Model, func):
    """(name, values) of the module globals ``func`` loads (its own locals left out)."""
    function = model.function_summary(func)
    summary = model.project.summary(func.module)
    if function is None or summary is None:
        return
    for name in function.loads:
        if name in function.bindings and name not in function.declared_global or name not in summary.bindings:
            continue
        yield name, model.resolver.global_name(func.module, name)


_CONSEQUENCE = {
    False: "a worker forked while the thread holds that object's lock, or is halfway through changing it, keeps it that "
           "way (a `with self.lock:` in the worker then blocks forever) and never sees the thread's later work",
    True: "a worker forked while the thread is inside `{name}` keeps that lock held, and its first call into `{name}` "
          "then waits forever",
}
LIBRARY = "<library>"  # the first part of a library lock's key: (LIBRARY, library)
GLOBAL_LOCK_LIBRARIES = frozenset({"h5py"})  # every call takes one process-wide lock (h5py's "phil")


def _library_locks(model: Model, func) -> Set[Tuple[str, str]]:
    """(LIBRARY, name) of the libraries with one process-wide lock that ``func`` uses
    (``h5py.File(...)``): a thread inside such a library at the fork leaves the lock held in
    the child, whose first call into the library then waits forever (h5py#2584)."""
    return {(LIBRARY, f.obj.qualname.split(".")[0]) for _, values in _globals_used(model, func) for f in values
            if isinstance(f.obj, Ext) and f.obj.qualname.split(".")[0] in GLOBAL_LOCK_LIBRARIES}


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
            for lock in sorted(_library_locks(model, found.obj.func)):
                yield lock, "calls into"
        elif isinstance(found.obj, Func):  # ``Thread(target=_refresh_loop)`` holding a module lock
            for lock in sorted(_global_locks(model, found.obj) | _library_locks(model, found.obj)):
                yield lock, "calls into" if lock[0] == LIBRARY else "takes"
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
