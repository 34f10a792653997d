"""DSL401 iterable-unsharded: every worker yields the whole stream.

Each worker gets its own copy of an ``IterableDataset`` and runs ``__iter__`` from the
start; unless the iteration consults ``get_worker_info()`` (directly, in a helper it
calls in any module, or via the loader's ``worker_init_fn``) every sample arrives once
per worker. A dataset whose ``__iter__`` iterates another dataset it was given leaves
the sharding to that one; webdataset's ``WebDataset`` splits by worker itself, unless its
``workersplitter`` is turned off (reported at that argument).
"""

from __future__ import annotations

from typing import Iterator, Set

from ..analysis.values import Attr, Starred, root_name
from ..diagnostics import Finding
from ..model import effects, loaders
from ..model.objects import Cls, Container, Ctx, Ext, Func, Gen, Inst, Iterated, Managed, Step, Top
from ..model.queries import Model, WorkerFunction
from .base import finding, where

CODE = "DSL401"


def check(model: Model) -> Iterator[Finding]:
    reported: Set[Cls] = set()
    for loader in model.all_loaders():
        workers = model.workers(loader)
        if not workers.several:
            continue
        for found in model.value(loader, "dataset"):
            dataset = found.obj
            unsplit = loaders.unsplit_dataset(model.resolver, dataset)
            if unsplit is not None and (unsplit.module, unsplit.span) not in reported:
                reported.add((unsplit.module, unsplit.span))
                yield _unsplit_finding(model, unsplit, loader, workers, found.trail)
                continue
            pipeline = loaders.unsplit_pipeline(model.resolver, dataset)
            if pipeline is not None and pipeline not in reported:
                reported.add(pipeline)
                yield _pipeline_finding(model, pipeline, loader, workers, found.trail)
                continue
            if not isinstance(dataset, Inst) or not isinstance(dataset.cls, Cls):
                continue
            if not model.is_iterable_dataset(dataset.cls):
                continue
            iterator = model.resolver.method(dataset.cls, "__iter__")
            if iterator is None or iterator in reported:
                continue
            if _shards(model, loader, dataset) or _random_draws(model, iterator, dataset):
                continue
            reported.add(iterator)
            built = model.construction(loader)
            yield _finding(model, iterator, f"the DataLoader at {where(model, built, iterator.module)} runs it in "
                                            f"{workers.describe()} workers", (built,) + found.trail)
    for dataset in model.datasets_without_loader():
        if not model.is_iterable_dataset(dataset.cls):
            continue
        iterator = model.resolver.method(dataset.cls, "__iter__")
        if iterator is None or iterator in reported:
            continue
        if _abstract(model, iterator) or not _reads_stored_data(model, iterator):
            continue  # nothing to duplicate: a base class, or a stream made up on the fly
        entries = model._closure(model.dataset_entries(dataset, ()))
        if effects.splits_by_worker(model, [e.func for e in entries]) or \
                any(e.self_obj == dataset and _delegates(model, e.func, dataset) for e in entries):
            continue
        reported.add(iterator)
        yield _finding(model, iterator, "an IterableDataset is made for DataLoaders with workers", ())


def _finding(model: Model, iterator: Func, context: str, steps) -> Finding:
    function = model.function_summary(iterator)
    klass = model.project.klass(iterator.module, function.scope)
    return finding(
        model, CODE, iterator.module, klass.span,
        f"`{klass.name}.__iter__` never splits its stream by worker (`torch.utils.data.get_worker_info()`'s "
        f"`id`/`num_workers`) but {context}: every worker "
        f"yields the whole stream (each sample once per worker); shard by `worker_info.id` / "
        f"`worker_info.num_workers`",
        (Step(iterator.module, function.span, "its `__iter__`"),) + tuple(steps),
    )


def _unsplit_finding(model: Model, unsplit, loader, workers, trail) -> Finding:
    """A library dataset that splits by worker unless told not to, told not to."""
    text = " ".join(model.project.text_of(unsplit.module, unsplit.span).split())
    return _shards_read_by_all(model, unsplit.module, unsplit.span, f"`{text}` turns off the dataset's split by worker",
                               f"keep the default ({unsplit.spec.split_default})", loader, workers, trail)


def _pipeline_finding(model: Model, site, loader, workers, trail) -> Finding:
    """A webdataset pipeline over a fixed shard list with no stage that splits by worker."""
    return _shards_read_by_all(
        model, site.module, model.project.call(site).span,
        "`wds.DataPipeline(...)` starts from a fixed shard list and has no `wds.split_by_worker` stage",
        "add `wds.split_by_worker` after the shard list", loader, workers, trail)


def _shards_read_by_all(model: Model, module: str, span, what: str, advice: str, loader, workers, trail) -> Finding:
    built = model.construction(loader)
    return finding(
        model, CODE, module, span,
        f"{what}, and the DataLoader at {where(model, built, module)} runs it in {workers.describe()} workers: every "
        f"worker reads every shard (each sample once per worker); {advice}",
        (built,) + tuple(trail),
    )


def _shards(model: Model, loader, dataset: Inst) -> bool:
    if _given_splitter(model, dataset) or _described_splitting(model, dataset):
        return True
    code = model.worker_code(loader)
    if effects.splits_by_worker(model, [entry.func for entry in code]):
        return True
    for entry in code:
        if entry.self_obj == dataset and _delegates(model, entry.func, dataset):
            return True
    return False


def _delegates(model: Model, func: Func, dataset: Inst, depth: int = 0) -> bool:
    """``__iter__`` iterates something it was given (``self.dataset``): that decides the sharding
    (a project stream that never shards hands over nothing: ``DataPipeline(SimpleShardList(...), ...)``)."""
    summary = model.project.summary(func.module)
    function = model.function_summary(func)
    self_name = function.params[0].name if function.params else "self"
    iterated = [loop.iter for loop in summary.loops if loop.scope == func.qualname and loop.iter is not None]
    iterated += [r.base for r in function.returns if type(r).__name__ == "Element"]
    for value in iterated:
        if root_name(value) != self_name:
            continue
        results = model.resolver.eval(value, Ctx(func.module, func.qualname, None, None, dataset))
        if any(_stream_like(model, f.obj) and _may_shard(model, f.obj, depth) for f in results):
            return True
        if any(isinstance(f.obj, Top) for f in results) and any(word in _attribute_name(value) for word in STREAM_WORDS) \
                and not _list_attribute(model, value, func, dataset):
            return True  # ``self.dataset`` / ``self.source`` given from outside: that one decides
    return False


STREAM_WORDS = ("dataset", "source", "pipe", "stream", "iter", "loader", "data_iter")


def _list_attribute(model: Model, value, func: Func, dataset: Inst) -> bool:
    """The attribute ``value`` goes through holds a list (``self.pipeline[1:]`` of a pipeline's
    stages): iterating it goes through data, not a stream handed over."""
    while not isinstance(value, Attr) and hasattr(value, "base"):
        value = value.base
    if not isinstance(value, Attr):
        return False
    held = model.resolver.eval(value, Ctx(func.module, func.qualname, None, None, dataset))
    return any(isinstance(f.obj, Container) and f.obj.kind in ("list", "tuple") for f in held)


def _attribute_name(value) -> str:
    while not isinstance(value, Attr) and hasattr(value, "base"):
        value = value.base
    return value.name.lower() if isinstance(value, Attr) else ""


def _may_shard(model: Model, obj, depth: int) -> bool:
    """Whether iterating the stream ``obj`` may split it by worker: anything but a project
    iterable whose own iteration (and what it calls) never splits by worker, was
    given no splitter and hands over to no stream that may."""
    if not (isinstance(obj, Inst) and isinstance(obj.cls, Cls)) or depth >= 2:
        return True
    iterator = model.resolver.method(obj.cls, "__iter__")
    if iterator is None:
        return True
    if _given_splitter(model, obj) or _described_splitting(model, obj):
        return True
    entries = model._closure([WorkerFunction(iterator, obj, "dataset", ())])
    return effects.splits_by_worker(model, [e.func for e in entries]) or \
        any(e.self_obj == obj and _delegates(model, e.func, obj, depth + 1) for e in entries)


def _stream_like(model: Model, obj) -> bool:
    """Another dataset, a generator or a loader: iterating it hands the sharding to it (a
    list of files, a literal or an unknown list is data the dataset goes through itself)."""
    if isinstance(obj, (Gen, Iterated, Managed)):
        return True
    if isinstance(obj, Inst):
        if isinstance(obj.cls, Cls):
            return model.is_dataset_class(obj.cls) or model.resolver.method(obj.cls, "__iter__") is not None
        return model.resolver.is_loader(obj) or "Dataset" in obj.cls.qualname or "DataPipe" in obj.cls.qualname
    return False


def _given_splitter(model: Model, dataset: Inst) -> bool:
    """The dataset was built with a per-worker splitter among its arguments (a pipeline
    ``DataPipeline(shards, split_by_worker, ...)``): its stages shard the stream."""
    if dataset.site is None:
        return False
    site = model.project.call(dataset.site)
    ctx = dataset.ctx or Ctx(dataset.site.module, site.scope)
    values = [a.value if isinstance(a, Starred) else a for a in site.args] + [v for _, v in site.keywords]
    for value in values:
        for found in model.resolver.eval(value, ctx):
            obj = found.obj
            if isinstance(obj, Func) and effects.consults_worker_info(model, obj):
                return True
            if isinstance(obj, Ext) and obj.qualname.rpartition(".")[2] in effects.SHARDING_NAMES:
                return True
    return False


def _abstract(model: Model, func: Func) -> bool:
    """``__iter__`` only raises ``NotImplementedError`` (a base class for others to fill in)."""
    function = model.function_summary(func)
    return not function.returns and not function.is_generator and function.loads <= {"NotImplementedError"}


RANDOM_MAKERS = ("torch.rand", "torch.randn", "torch.randint", "torch.randperm", "torch.normal",
                 "numpy.random.", "random.")


def _random_draws(model: Model, func: Func, dataset: Inst) -> bool:
    """Everything ``__iter__`` yields is a fresh random draw (``yield torch.randn(...)``, or a
    tuple of them): PyTorch seeds each worker's generators apart, so the workers' streams
    differ and nothing is duplicated."""
    function = model.function_summary(func)
    if function is None or not function.is_generator or not function.returns:
        return False
    ctx = Ctx(func.module, func.qualname, None, None, dataset)
    for value in function.returns:
        found = list(model.resolver.eval(value, ctx))
        parts = [p for f in found for p in (model.resolver.container_values(f.obj)
                                             if isinstance(f.obj, Container) else (f,))]
        if not parts or not all(isinstance(p.obj, Inst) and isinstance(p.obj.cls, Ext)
                                and p.obj.cls.qualname.startswith(RANDOM_MAKERS) for p in parts):
            return False
    return True


def _reads_stored_data(model: Model, func: Func) -> bool:
    """``__iter__`` goes through what the dataset holds (``for x in self.items``, ``yield
    self.samples[i]``): every worker then yields the same samples. A stream made up on the fly
    (``yield torch.randn(...)``) is different in each worker (PyTorch seeds each one)."""
    summary = model.project.summary(func.module)
    function = model.function_summary(func)
    self_name = function.params[0].name if function.params else "self"
    iterated = [loop.iter for loop in summary.loops if loop.scope == func.qualname and loop.iter is not None]
    return any(root_name(value) == self_name for value in iterated + list(function.returns))


def _described_splitting(model: Model, dataset: Inst) -> bool:
    """The library's own source is linted (webdataset's tree): its ``WebDataset`` class still
    splits by worker as the library table says, unless the splitter argument is turned off."""
    from ..model.externals import truthiness

    for item in model.resolver.mro(dataset.cls):
        info = model.project.modules.get(item.module) if isinstance(item, Cls) else None
        if info is None or not info.name:
            continue
        spec = model.resolver.libraries.dataset_spec(f"{info.name}.{item.qualname}")
        if spec is None:
            continue
        if dataset.site is None:
            return True
        given = model.resolver.keyword_at(dataset.site, dataset.ctx, spec.split_argument)
        return given is None or truthiness(given) != "false"
    return False
