"""DSL405 worker-state-mutation: worker code changes state the main process or the other
workers are meant to share.

Each DataLoader worker runs on its own copy of the dataset (and of the transform and collate
objects it holds). A counter incremented in ``__getitem__`` or ``collate_fn``
(``self.batch_count += 1``) counts only that worker's batches: a schedule driven by it runs
``num_workers`` times slower and differently in each worker, and the main process never sees
the count; a cache or log filled in a worker is lost to the main process. Nothing fails.
"""

from __future__ import annotations

from typing import Dict, Iterator, List, Set, Tuple

from ..diagnostics import Finding
from ..model import effects
from ..analysis.values import Attr
from ..model.objects import Cls, Container, Ctx, Ext, Func, Inst, Lit, Step
from ..model.project import sites_in_scope
from ..model.queries import Model
from .base import finding

CODE = "DSL405"
MAIN_PROTOCOL = frozenset({"__len__", "__repr__", "__str__", "state_dict", "__getstate__"})
MAIN_STORES = effects.CONTAINER_GROWERS | {"clear"}  # ``ds.seen.clear()`` in the main process reads nothing back
HINT = "keep it in the main process, share it (`multiprocessing.Value`), or derive it from the index"


def check(model: Model) -> Iterator[Finding]:
    objects: Dict[Inst, Tuple[object, object, object, Set[Func]]] = {}
    for loader, workers, function in model.worker_runs():
        if loader is None or workers is None or not workers.positive or workers.threads:
            continue
        obj = function.self_obj
        if isinstance(obj, Inst) and isinstance(obj.cls, Cls):
            entry = objects.setdefault(obj, (loader, workers, function, set()))
            entry[3].add(function.func)
    reported: Set[Tuple[str, object]] = set()
    held: Set[Tuple[object, object]] = set()  # objects whose holder's finding already names their change
    found = [(obj, list(_mutations(model, obj, loader, workers, function, worker_funcs, reported, held)))
             for obj, (loader, workers, function, worker_funcs) in objects.items()]
    for obj, findings in found:
        if (obj.cls, obj.site) not in held:
            yield from findings
    yield from _global_mutations(model, reported)


def _global_mutations(model: Model, reported) -> Iterator[Finding]:
    """Module globals worker code counts into (``global SKIPPED`` then ``SKIPPED += 1``) or
    fills (``BAD_PATHS.append(path)``), starting from a plain number or a list/dict/set display
    at module level, that main-process code of the same module reads (a function the project
    calls outside the workers): each worker changes its own copy of the module."""
    for loader, workers, function in model.worker_runs():
        if loader is None or workers is None or not workers.positive or workers.threads:
            continue
        summary = model.project.summary(function.func.module)
        changed = []  # one finding per worker function: the globals it changes, each with its reader
        for mutation in effects.global_mutations(model, function.func):
            if (mutation.module, mutation.span) in reported or not _module_value(model, summary, mutation):
                continue
            reader = _global_reader(model, function.func.module, mutation.attr)
            if reader is not None:
                changed.append((mutation, reader))
        if not changed:
            continue
        reported.update((mutation.module, mutation.span) for mutation, _ in changed)
        mutation, reader = changed[0]
        name = model.function_summary(function.func).qualname.replace(".<locals>", "")
        names = " and ".join(dict.fromkeys(f"`{m.attr}`" for m, _ in changed))
        what = "changes" if len(changed) > 1 else "counts into" if mutation.kind == "count" else "fills"
        others = tuple(Step(m.module, m.span, f"`{m.attr}` changed here too") for m, _ in changed[1:])
        yield finding(
            model, CODE, mutation.module, mutation.span,
            f"`{name}` {what} the module global{'s' if len(changed) > 1 else ''} {names} in each DataLoader worker's "
            f"own copy of the module ({workers.describe()} workers): `{reader[0]}`, which the main process calls, "
            f"reads the main process's copy and never sees what the workers did; {HINT}",
            others + (model.construction(loader, "the loader is built here"),) + tuple(workers.trail("positive"))
            + (Step(reader[1], reader[2], "read in the main process"),) + tuple(function.trail),
        )


def _module_value(model: Model, summary, mutation) -> bool:
    """The global starts at module level as a plain number (a count) or a display (a collection)."""
    for binding in summary.bindings.get(mutation.attr, ()):
        if binding.kind != "assign" or binding.span.row > _first_function_row(summary):
            continue
        for found in model.resolver.eval(binding.value, Ctx(mutation.module)):
            if mutation.kind == "count" and isinstance(found.obj, Lit) and type(found.obj.value) in (int, float):
                return True
            if mutation.kind == "container" and isinstance(found.obj, Container):
                return True
    return False


def _first_function_row(summary) -> int:
    rows = [f.span.row for f in summary.functions.values()]
    return min(rows) if rows else 1 << 30


def _global_reader(model: Model, module: str, name: str):
    """(function name, module, span) of a function of ``module`` that reads the global and
    that main-process code calls (not worker code)."""
    in_workers = _worker_funcs(model)
    summary = model.project.summary(module)
    for qualname, function in summary.functions.items():
        func = Func(module, qualname)
        if name not in function.loads or func in in_workers or name in function.declared_global:
            continue
        if _called_in_main(model, func):
            return function.name, module, function.span
    return None


def _mutations(model: Model, obj: Inst, loader, workers, function, worker_funcs: Set[Func], reported, held):
    """The counts and collections worker code changes that the main process reads, or (for a
    count) that the workers read back, unless the object tells its workers apart
    (``get_worker_info()``: a count of its own share is per-worker by design). What the main
    process reads is its own copy whether or not the workers tell themselves apart. A project
    object held in a reported attribute (``self.stats.update(x)`` of ``self.stats =
    RunningStats()``) goes into ``held``: its own counts are the same cause."""
    tells_workers_apart = any(effects.consults_worker_info(model, f) for f in worker_funcs)
    found: Dict[str, List[effects.Mutation]] = {}
    where: Dict[str, Func] = {}
    for func in sorted(worker_funcs):
        for mutation in effects.self_mutations(model, func):
            found.setdefault(mutation.attr, []).append(mutation)
            where.setdefault(mutation.attr, func)
    worker_reads = set().union(*(model.function_summary(f).self_reads - model.function_summary(f).self_inert
                                 for f in worker_funcs))  # a count only logged, or only updated, drives nothing
    for attr, mutations in sorted(found.items()):
        kinds = {m.kind for m in mutations}
        if "reset" in kinds:
            continue  # a worker sets it itself (an iterator's position, a handle opened lazily)
        reader = _main_reader(model, obj, attr, worker_funcs)
        drives_workers = attr in worker_reads and not tells_workers_apart
        if "count" in kinds and (drives_workers or reader) and _plain_number(model, obj, attr, worker_funcs):
            mutation = next(m for m in mutations if m.kind == "count")
        elif "extreme" in kinds and reader and _plain_number(model, obj, attr, worker_funcs):
            # a worker's own running maximum (the length it pads to) is its business; the
            # main process reading it sees its own copy
            mutation = next(m for m in mutations if m.kind == "extreme")
        elif "container" in kinds and reader and not _process_shared(model, obj, attr, worker_funcs):
            mutation = next(m for m in mutations if m.kind == "container")
        else:
            continue
        key = (mutation.module, mutation.span)
        if key in reported:
            continue
        reported.add(key)
        held.update((f.obj.cls, f.obj.site) for f in _main_values(model, obj, attr, worker_funcs)
                    if isinstance(f.obj, Inst) and isinstance(f.obj.cls, Cls))
        name = model.function_summary(where[attr]).qualname.replace(".<locals>", "")
        what = {"count": "counts", "extreme": "keeps a running extreme in"}.get(mutation.kind, "fills")
        if reader:
            effect = (f"`{reader[0]}`, which the main process calls, reads the main process's copy and never sees "
                      f"what the workers did")
        else:
            effect = "what it drives advances in each worker separately, `num_workers` times slower than planned"
        steps = (Step(reader[1], reader[2], "read in the main process"),) if reader else ()
        yield finding(
            model, CODE, mutation.module, mutation.span,
            f"`{name}` {what} `self.{attr}` in each DataLoader worker's own copy ({workers.describe()} workers): "
            f"{effect}; {HINT}",
            (model.construction(loader, "the loader is built here"),) + tuple(workers.trail("positive")) + steps
            + tuple(function.trail),
        )


def _plain_number(model: Model, obj: Inst, attr: str, worker_funcs: Set[Func]) -> bool:
    """Whether the main process sets ``self.attr`` to plain numbers only (``self.count = 0``), or
    to arrays of counts it makes (``np.zeros(n)``, whose ``+=`` changes the worker's copy in place):
    not a shared object (``mp.Value``, a project class) whose ``+=`` every worker sees."""
    values = _main_values(model, obj, attr, worker_funcs)
    return bool(values) and all(isinstance(f.obj, Lit) and type(f.obj.value) in (int, float) or _counts_array(f.obj)
                                for f in values)


# arrays of counts the main process makes (``np.zeros(n_columns, dtype=np.int64)``): ``+=`` changes the copy in place
COUNT_ARRAYS = frozenset(f"{library}.{name}" for library in ("numpy", "torch")
                         for name in ("zeros", "ones", "full", "zeros_like", "ones_like", "full_like"))


def _counts_array(obj) -> bool:
    return isinstance(obj, Inst) and isinstance(obj.cls, Ext) and obj.cls.qualname in COUNT_ARRAYS


def _process_shared(model: Model, obj: Inst, attr: str, worker_funcs: Set[Func]) -> bool:
    """Whether the main process stores in ``self.attr`` an object made by ``multiprocessing``
    (a ``Manager().list()`` proxy, a ``Queue``) or a tensor in shared memory: every worker's
    ``append`` (or ``self.counts[worker] += 1``) reaches it."""
    for found in _main_values(model, obj, attr, worker_funcs):
        made = found.obj.cls if isinstance(found.obj, Inst) else found.obj
        if isinstance(made, Ext) and (made.qualname.startswith(("multiprocessing.", "torch.multiprocessing."))
                                      or made.qualname.endswith(SHARED_TENSORS)):
            return True
    return False


# a tensor moved to shared memory (``torch.zeros(n).share_memory_()``): every worker writes the same storage
SHARED_TENSORS = (".share_memory_", ".share_memory_()")


def _main_values(model: Model, obj: Inst, attr: str, worker_funcs: Set[Func]) -> list:
    """What the main process (code outside the workers) assigns to ``self.attr``."""
    return model.assigned_values(obj, attr, worker_funcs)


def _main_reader(model: Model, obj: Inst, attr: str, worker_funcs: Set[Func]):
    """(method name, module, span) of a method the main process runs that reads ``self.attr``
    (not one that only stores items into it): one the project calls (or a protocol method such
    as ``__len__``) outside worker code."""
    for cls in model.resolver.mro(obj.cls):
        if not isinstance(cls, Cls):
            continue
        klass = model.project.klass(cls.module, cls.qualname)
        for method in klass.methods if klass is not None else ():
            func = Func(cls.module, f"{cls.qualname}.{method}")
            function = model.function_summary(func)
            if function is None or func in worker_funcs or method in ("__init__", "__del__") \
                    or attr not in function.self_reads or attr in function.self_item_stores:
                continue  # storing items (``self.cache[k] = v`` in ``warm``) reads nothing back
            if method in MAIN_PROTOCOL or _called_in_main(model, func):
                return method, cls.module, function.span
    return _outside_reader(model, obj, attr)


def _outside_reader(model: Model, obj: Inst, attr: str):
    """(function name, module, span) of main-process code outside the class reading
    ``obj.attr``: in a call's arguments (``log.info("%d skipped", ds.num_corrupt)``), calling
    one of its methods that does not only store into it (``ds.stats.most_common(5)``, not
    ``ds.stats.clear()``), or in any other value the function computes: an assignment
    (``n = ds.seen``), a test (``if ds.seen > 10:``), a comparison, arithmetic or f-string
    inside them, what it returns or iterates. Not an ``__init__``: what builds an object around
    the dataset reads it before any worker starts."""
    in_workers = _worker_funcs(model)
    for key in _reading_modules(model, obj):
        summary = model.project.summary(key)
        if summary is None:
            continue
        for qualname, function in summary.functions.items():
            if attr not in function.attr_loads or Func(key, qualname) in in_workers or function.name == "__init__":
                continue
            ctx = Ctx(key, qualname)
            for values, span in _values_read(model, key, summary, qualname, function):
                for value in _attribute_reads(values, attr):
                    if any(isinstance(f.obj, Inst) and f.obj.cls == obj.cls and f.obj.site == obj.site
                           for f in model.resolver.eval(value.base, ctx)):  # the same dataset, built there
                        return function.name, key, span
    return None


def _reading_modules(model: Model, obj: Inst) -> List[str]:
    """The modules searched for main-process reads of ``obj``: those summarised up front, and
    the ones the module building ``obj`` imports (a monitor in ``monitor.py`` that names no
    loader, handed the streams by ``train.py``)."""
    keys = [info.key for info in model.project.eager_modules()]
    if obj.site is not None:
        seen = set(keys)
        keys.extend(key for key in model.direct_imports(obj.site.module) if key not in seen)
    return keys


def _values_read(model: Model, module: str, summary, qualname: str, function):
    """(values, span) the function reads: its calls' receivers (but for a method that only
    stores into it) and arguments, the values it binds, stores, tests, iterates and returns."""
    for index in sites_in_scope(model.project, module, qualname):
        site = summary.calls[index]
        receiver = [site.func.base] if type(site.func) is Attr and site.func.name not in MAIN_STORES else []
        yield [*receiver, *site.args, *(v for _, v in site.keywords)], site.span
    for bindings in function.bindings.values():
        for binding in bindings:
            if binding.kind not in ("def", "class", "import"):
                yield [binding.value], binding.span
    for store in summary.stores:
        if store.scope == qualname and store.kind != "del":
            yield [store.value], store.span
    for loop in summary.loops:
        if loop.scope == qualname and loop.iter is not None:
            yield [loop.iter], loop.span
    for value, span in function.tests:
        yield [value], span
    yield function.returns, function.span


def _attribute_reads(values, attr: str, depth: int = 0):
    """The ``x.attr`` values among ``values`` and inside their operators and displays."""
    for value in values:
        if type(value) is Attr and value.name == attr:
            yield value
        elif depth < 8 and isinstance(value, tuple):
            yield from _attribute_reads([v for v in value if isinstance(v, tuple)], attr, depth + 1)


def _worker_funcs(model: Model) -> Set[Func]:
    in_workers = model.__dict__.get("_dsl405_worker_funcs")
    if in_workers is None:
        in_workers = model.__dict__["_dsl405_worker_funcs"] = {f.func for _, _, f in model.worker_runs()}
    return in_workers


def _called_in_main(model: Model, func: Func) -> bool:
    """Whether some call of ``func`` is in code no worker runs."""
    in_workers = _worker_funcs(model)
    for site, _ in model.resolver.callers(func):
        scope = model.project.call(site).scope
        if Func(site.module, scope) not in in_workers:
            return True
    return False
