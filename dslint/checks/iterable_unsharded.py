"""DSL401 iterable-unsharded: every worker yields the whole stream.

Each worker gets its own copy of an ``IterableDataset`` and runs ``__iter__`` from the
start; unless the iteration consults ``get_worker_info()`` (directly, in a helper it
calls in any module, or via the loader's ``worker_init_fn``) every sample arrives once
per worker. A dataset whose ``__iter__`` iterates another dataset it was given (in a loop,
or through ``iter()``; a Hugging Face dataset included) leaves the sharding to that one;
webdataset's ``WebDataset`` splits by worker itself, unless its ``workersplitter`` is
turned off (reported at that argument). A stream of fresh draws from
generators seeded apart in each worker, or of items of its data picked by such draws (a
replay buffer sampled with ``np.random.randint``), duplicates nothing.
"""

from __future__ import annotations

from typing import FrozenSet, Iterator, NamedTuple, Set

from ..analysis.values import Attr, Call, DictDisplay, Element, Item, Name, Op, Part, Seq, Starred, Unknown, root_name
from ..diagnostics import Finding
from ..model import effects, loaders
from ..model.libraries import HF_DATASETS
from ..model.objects import Cls, Container, Ctx, Ext, Func, Gen, Inst, Iterated, Lit, Managed, SiteRef, Step, Top
from ..model.project import sites_in_scope
from ..model.queries import Model, WorkerFunction
from .base import finding, where

CODE = "DSL401"


def check(model: Model) -> Iterator[Finding]:
    reported: Set[Cls] = set()
    for loader in model.all_loaders():
        workers = model.workers(loader)
        if not workers.several:
            continue
        for found in _datasets(model, loader):
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
            if not isinstance(dataset, Inst) or not isinstance(dataset.cls, Cls) or _described(model, dataset.cls):
                continue
            if not model.is_iterable_dataset(dataset.cls):
                continue
            iterator = model.resolver.method(dataset.cls, "__iter__")
            if iterator is None or iterator in reported:
                continue
            if _shards(model, loader, dataset):
                continue
            random_stream = _random_stream(model, iterator, dataset, loader)
            if random_stream == DRAW:
                continue  # fresh draws in each worker: nothing is duplicated
            reported.add(iterator)
            built = model.construction(loader)
            yield _finding(model, iterator, f"the DataLoader at {where(model, built, iterator.module)} runs it in "
                                            f"{workers.describe()} workers", (built,) + found.trail,
                           random_stream == SAME)
    for dataset in model.datasets_without_loader():
        if not model.is_iterable_dataset(dataset.cls) or _described(model, dataset.cls):
            continue
        iterator = model.resolver.method(dataset.cls, "__iter__")
        if iterator is None or iterator in reported:
            continue
        if _abstract(model, iterator) or not _reads_stored_data(model, iterator) \
                or _random_stream(model, iterator, dataset, None) == DRAW:
            continue  # nothing to duplicate: a base class, a stream made up on the fly or drawn from the data
        entries = model.worker_closure(model.dataset_entries(dataset, ()))
        if effects.splits_by_worker(model, [e.func for e in entries]) or \
                any(e.self_obj == dataset and _delegates(model, e.func, dataset) for e in entries):
            continue
        reported.add(iterator)
        yield _finding(model, iterator, "an IterableDataset is made for DataLoaders with workers", ())


def _described(model: Model, cls: Cls) -> bool:
    """A pipeline class of the library tables, linted in the library's own tree: its stages
    decide (``loaders.unsplit_pipeline``), not its generic ``__iter__``."""
    return loaders.library_name(model.resolver, cls) in loaders.PIPELINES


def _finding(model: Model, iterator: Func, context: str, steps, same_seed: bool = False) -> Finding:
    function = model.function_summary(iterator)
    klass = model.project.klass(iterator.module, function.scope)
    if same_seed:
        what = f"`{klass.name}.__iter__` draws from a generator seeded alike in every worker and never splits its " \
               f"stream by worker, but {context}: every worker yields the same random stream; seed the generator " \
               f"in each worker from `torch.utils.data.get_worker_info().seed`"
    else:
        what = f"`{klass.name}.__iter__` never splits its stream by worker (`torch.utils.data.get_worker_info()`'s " \
               f"`id`/`num_workers`) but {context}: every worker yields the whole stream (each sample once per " \
               f"worker); shard by `worker_info.id` / `worker_info.num_workers`"
    return finding(model, CODE, iterator.module, klass.span, what,
                   (Step(iterator.module, function.span, "its `__iter__`"),) + tuple(steps))


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


CHAINS = frozenset({"torch.utils.data.ChainDataset", "torch.utils.data.dataset.ChainDataset"})


def _datasets(model: Model, loader):
    """The loader's dataset, and the streams a ``ChainDataset(streams)`` goes through one after
    another in each worker (every worker runs each stream's ``__iter__``)."""
    for found in model.value(loader, "dataset"):
        yield found
        obj = found.obj
        if isinstance(obj, Inst) and isinstance(obj.cls, Ext) and obj.cls.qualname in CHAINS and obj.site is not None:
            for given in model.constructor_arguments(obj):
                parts = model.resolver.container_values(given.obj) if isinstance(given.obj, Container) else (given,)
                for part in parts:
                    yield part._replace(trail=found.trail + part.trail)


def _shards(model: Model, loader, dataset: Inst) -> bool:
    if _given_splitter(model, dataset) or _described_splitting(model, dataset):
        return True
    code = model.worker_code_with(loader, dataset)
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
    iterated += [site.args[0] for site in (summary.calls[i] for i in sites_in_scope(model.project, func.module,
                                                                                    func.qualname))
                 if type(site.func) is Name and site.func.id == "iter" and site.args]  # ``it = iter(self.dataset)``
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
    entries = model.worker_closure([WorkerFunction(iterator, obj, "dataset", ())])
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
        # a Hugging Face dataset (``load_dataset(..., streaming=True)``, ``split_dataset_by_node``): a
        # streaming one hands each worker its own shards; whether this one streams is not known
        # here, so iterating it hands the sharding over, as an unknown stream does
        return model.resolver.is_loader(obj) or "Dataset" in obj.cls.qualname or "DataPipe" in obj.cls.qualname \
            or obj.cls.qualname.startswith(HF_DATASETS)
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
ENTROPY_SEEDED = frozenset({"numpy.random.default_rng", "numpy.random.RandomState", "numpy.random.mtrand.RandomState",
                            "random.Random"})  # built without a seed: from the OS's entropy, apart in each worker
DRAW, SAME, DATA = "draw", "same draw", "data"


class _Stream(NamedTuple):
    """The code of one ``__iter__``: the function, its context and what it calls (where a
    generator it draws from may be built)."""

    model: Model
    func: Func
    ctx: Ctx
    funcs: FrozenSet[Func]
    reseeded: FrozenSet[str]  # attributes the loader's ``worker_init_fn`` sets or reseeds in each worker


def _random_stream(model: Model, func: Func, dataset: Inst, loader) -> str:
    """What ``__iter__`` yields when everything it yields is made of random draws
    (``yield torch.randn(...)``, a tuple of them, ``torch.tensor(rng.uniform(...))``, an item of
    held data picked by them, ``self.obs[np.random.randint(n)]``): ``draw``
    when they come from generators seeded apart in each worker (PyTorch's global ones, which it
    seeds per worker, or one the stream code builds with a worker-dependent seed:
    ``np.random.default_rng(get_worker_info().seed)``), so the streams differ and nothing is
    duplicated; ``same draw`` when some come from a generator seeded alike in every worker
    (every worker yields the same stream); "" otherwise."""
    function = model.function_summary(func)
    if function is None or not function.is_generator or not function.returns:
        return ""
    funcs = frozenset(e.func for e in model.worker_closure([WorkerFunction(func, dataset, "dataset", ())]))
    init = effects.worker_init(model, loader, dataset)
    reseeded = frozenset(attr for f in [*init.functions, *init.methods.values()]
                         for attr in effects.reseeded_attributes(model, f))
    stream = _Stream(model, func, Ctx(func.module, func.qualname, None, None, dataset), funcs, reseeded)
    made = [_made_of(stream, value, {}) for value in function.returns]
    if any(DATA in kinds or not kinds & {DRAW, SAME} for kinds in made):
        return ""
    return SAME if any(SAME in kinds for kinds in made) else DRAW


def _made_of(stream: _Stream, value, seen: dict, depth: int = 0, pick: bool = False) -> Set[str]:
    """What a yielded value is made of: ``draw`` (a fresh random draw), ``same draw`` (one from a
    generator seeded alike in every worker), ``data`` (what the dataset holds or iterates, or
    anything not seen through); constants, modules and globals add nothing. Local names are
    followed to what they are assigned. ``pick``: the value is an index, where what picks
    counts too (``order[k]`` with ``k`` a loop variable walks ``order``)."""
    if depth > 8 or isinstance(value, (Element, Unknown)):
        return {DATA}
    if isinstance(value, Call):
        return _call_made_of(stream, value, seen, depth, pick)
    if isinstance(value, Name):
        return _name_made_of(stream, value, seen, depth, pick)
    if isinstance(value, Attr):
        return _attribute_made_of(stream, value, seen, depth, pick)
    if isinstance(value, Item):
        return _item_made_of(stream, value, seen, depth, pick)
    parts = value.args if isinstance(value, Op) else value.items if isinstance(value, Seq) else \
        [k for k in value.keys if k is not None] + list(value.values) if isinstance(value, DictDisplay) else \
        (value[0],) if isinstance(value, (Part, Starred)) else ()
    return set().union(*(_made_of(stream, part, seen, depth + 1, pick) for part in parts))


def _item_made_of(stream: _Stream, value: Item, seen: dict, depth: int, pick: bool) -> Set[str]:
    """An index or a slice only picks (``draws[:5]``, ``TABLE[rng.integers(9)]``): what the base is
    made of, and the draws that pick. An item of held data picked by draws alone
    (``self.obs[np.random.randint(n)]``) is a draw: a sample with replacement, which the
    workers' generators pick apart, not a walk through the data each worker repeats
    (``self.obs[order[k]]`` walks a permutation: within an index, what picks counts as well)."""
    key = _made_of(stream, value.key, seen, depth + 1, True)
    base = _made_of(stream, value.base, seen, depth + 1, pick)
    if key and DATA not in key:
        return key | (base & {DRAW, SAME})
    return base | (key if pick else key & {DRAW, SAME})


def _call_made_of(stream: _Stream, value: Call, seen: dict, depth: int, pick: bool) -> Set[str]:
    """A draw (``draw`` or ``same draw``), or what the call's arguments (and the
    object a method is called on, ``x.astype(...)``) are made of (``torch.tensor(x)``)."""
    drawn = _draw(stream, value)
    if drawn:
        return {drawn}
    site = stream.model.project.call(SiteRef(stream.func.module, value.index))
    if _advances(stream, site.func):
        return {DATA}  # ``next(iters[random.choice(names)])``: a draw picks the source, which is read in order
    parts = [a.value if isinstance(a, Starred) else a for a in site.args] + [v for _, v in site.keywords]
    receiver = site.func.base if isinstance(site.func, Attr) else None
    if receiver is not None and not (isinstance(receiver, Name) and receiver.id == _self_name(stream)):
        parts.append(receiver)  # ``x.astype(...)``; not ``self`` of ``self.transform(x)``
    return set().union(*(_made_of(stream, part, seen, depth + 1, pick) for part in parts))


def _advances(stream: _Stream, callee) -> bool:
    """``next(...)``, the builtin (not a local function of that name)."""
    return isinstance(callee, Name) and callee.id == "next" and \
        callee.id not in stream.model.function_summary(stream.func).bindings and \
        all(f.obj == Ext("builtins.next") for f in stream.model.resolver.global_name(stream.func.module, "next"))


def _name_made_of(stream: _Stream, value: Name, seen: dict, depth: int, pick: bool) -> Set[str]:
    """A local name: what each of its assignments is made of; a loop variable or a parameter
    is data; a global, a builtin or a module adds nothing."""
    bindings = stream.model.function_summary(stream.func).bindings.get(value.id)
    if bindings is None:
        return set()
    kinds: Set[str] = set()
    for binding in bindings:
        key = (value.id, binding.pos, pick)
        if key in seen:
            kinds |= seen[key]  # what it was found made of (nothing yet inside ``x = x + rng.normal()``)
            continue
        seen[key] = set()
        seen[key] = _made_of(stream, binding.value, seen, depth + 1, pick) if binding.kind in ("assign", "aug") else \
            set() if binding.kind in ("import", "def", "class") else {DATA}
        kinds |= seen[key]
    return kinds


def _attribute_made_of(stream: _Stream, value: Attr, seen: dict, depth: int, pick: bool) -> Set[str]:
    """``self.<attr>`` is data unless it holds a plain constant (``self.n_support``);
    ``torch.float32`` and ``x.shape`` are what their base is made of."""
    if root_name(value) != _self_name(stream):
        return _made_of(stream, value.base, seen, depth + 1, pick)
    held = stream.model.resolver.eval(value, stream.ctx)
    return set() if held and all(isinstance(f.obj, Lit) for f in held) else {DATA}


def _self_name(stream: _Stream) -> str:
    function = stream.model.function_summary(stream.func)
    return function.params[0].name if function.params else "self"


def _draw(stream: _Stream, value: Call) -> str:
    """``draw`` for a call that draws from generators seeded apart in each worker (also in a
    method it calls, through what that returns): a global one (``torch.randn(...)``,
    ``np.random.rand(...)``) or a generator object (``self.rng.uniform()``,
    ``torch.randn(3, generator=g)``) seeded apart; ``same draw`` when one is a generator the
    stream code seeds alike in every worker; "" for anything else. What the analysis cannot see
    (``self.rng.uniform()`` while ``self.rng`` may still be the ``None`` of ``__init__``) is left out."""
    kinds = {_drawn_from(stream, f.obj) for f in stream.model.resolver.eval(value, stream.ctx)
             if not isinstance(f.obj, Top)}
    if not kinds or "" in kinds:
        return ""
    return SAME if SAME in kinds else DRAW


def _drawn_from(stream: _Stream, obj) -> str:
    """How the generator behind one call's result is seeded ("" when it is not a draw)."""
    if not (isinstance(obj, Inst) and isinstance(obj.cls, Ext)) or obj.site is None:
        return ""
    site = stream.model.project.call(obj.site)
    ctx = obj.ctx or Ctx(obj.site.module, site.scope)
    if _global_draw(obj.cls.qualname):
        generator = next((v for k, v in site.keywords if k == "generator"), None)
        return DRAW if generator is None else _generator_kind(stream, generator, ctx) or DRAW
    if _generator_method(obj.cls.qualname) and isinstance(site.func, Attr):
        return _generator_kind(stream, site.func.base, ctx)
    return ""


def _global_draw(name: str) -> bool:
    """A function of PyTorch's, NumPy's or Python's global generator (not a generator object's
    method, ``default_rng().uniform``, nor a constructor or a seeding function)."""
    return name.startswith(RANDOM_MAKERS) and "(" not in name and name not in effects.RNG_CONSTRUCTORS \
        and name.rpartition(".")[2] not in ("seed", "get_state", "set_state", "getstate", "setstate")


def _generator_method(name: str) -> bool:
    """A method of a generator object (``numpy.random.default_rng().uniform``), not the
    generator itself (``torch.Generator().manual_seed``)."""
    constructor, _, method = name.partition("().")
    return constructor in effects.RNG_CONSTRUCTORS and bool(method) and not method.startswith("manual_seed")


def _generator_kind(stream: _Stream, receiver, ctx: Ctx) -> str:
    """Whether ``receiver`` holds random generators (besides ``None``), and how they are
    seeded: ``same draw`` when the stream code seeds one alike in every worker, ``draw``
    otherwise; "" when it holds something else. One the loader's ``worker_init_fn`` replaces
    or reseeds (``info.dataset.rng = ...``) is seeded apart."""
    if _dataset_attribute(stream, receiver, ctx) in stream.reseeded:
        return DRAW
    found = [f for f in stream.model.resolver.eval(receiver, ctx)
             if not (isinstance(f.obj, Lit) and f.obj.value is None)]
    kinds = {_seeding(stream, f) for f in found}
    if not kinds or "" in kinds:
        return ""
    return SAME if SAME in kinds else DRAW


def _dataset_attribute(stream: _Stream, value, ctx: Ctx) -> str:
    """``attr`` when ``value`` is ``self.<attr>`` in a method running on the dataset, else ""."""
    if not (isinstance(value, Attr) and isinstance(value.base, Name)) or ctx.self_obj != stream.ctx.self_obj:
        return ""
    function = stream.model.function_summary(Func(ctx.module, ctx.scope))
    first = function.params[0].name if function is not None and function.params else None
    return value.name if value.base.id == first else ""


def _seeding(stream: _Stream, found) -> str:
    """``draw`` for a generator seeded apart in each worker, or built before the workers start
    (DSL402 reports that one where it is built); ``same draw`` for one the stream code builds
    or reseeds with the same seed in every worker; "" for what is not a generator."""
    constructor = effects.rng_of((found,))
    site_ref = found.obj.site if constructor is not None else None
    if site_ref is None:
        return ""
    reseeds = _stream_reseeds(stream, site_ref)
    if reseeds:  # ``g = torch.Generator(); g.manual_seed(info.seed)``
        return DRAW if any(_varies(stream, seed, func) for seed, func in reseeds) else SAME
    site = stream.model.project.call(site_ref)
    built_in = Func(site_ref.module, site.scope)
    if built_in not in stream.funcs:
        return DRAW
    seed = site.args[0] if site.args else next((v for k, v in site.keywords if k == "seed"), None)
    if seed is None:
        return DRAW if constructor in ENTROPY_SEEDED else SAME  # ``torch.Generator()``: a fixed default seed
    return DRAW if _varies(stream, seed, built_in) else SAME


def _varies(stream: _Stream, seed, func: Func) -> bool:
    """A seed in the stream code that differs between workers (``info.seed``,
    ``torch.initial_seed()``, ``self.seed`` when the ``worker_init_fn`` sets it per worker)."""
    return effects.depends_on_worker(stream.model, seed, func, worker_id=False, varying=stream.reseeded)


def _stream_reseeds(stream: _Stream, built) -> list:
    """(seed, function) of each call in the stream code that reseeds the generator built at
    ``built`` (``g.manual_seed(seed)``, ``self.rng.seed(seed)``)."""
    model = stream.model
    reseeds = []
    for func in stream.funcs:
        summary = model.project.summary(func.module)
        ctx = Ctx(func.module, func.qualname, None, None, stream.ctx.self_obj)
        for index in sites_in_scope(model.project, func.module, func.qualname):
            site = summary.calls[index]
            if isinstance(site.func, Attr) and site.func.name in effects.RESEED_METHODS and site.args \
                    and any(isinstance(f.obj, Inst) and f.obj.site == built
                            for f in model.resolver.eval(site.func.base, ctx)):
                reseeds.append((site.args[0], func))
    return reseeds


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
