"""The questions rules ask the model, answered once per run.

- ``loaders()``: every loader construction, in each context that gives its arguments
  values (a factory called from three places is three loaders);
- ``iterations()``: every place a loader is iterated (a ``for``, a comprehension, ``iter``),
  however the loader got there (returned, passed, stored on ``self``);
- ``batch_moves()``: every ``.to(...)``/``.cuda()``/``.type(...)`` applied to a loader's
  batches on the host;
- ``worker_code(loader)``: the functions its workers run (the dataset's ``__getitem__`` /
  ``__iter__`` and what they call, transforms' ``__call__``, ``collate_fn``,
  ``worker_init_fn``), with the path that leads there;
- ``datasets_without_loader()``: Dataset classes the project defines but never hands to a
  loader (library code): their workers are assumed to exist.

Rules combine these with the resolver's answers; they hold no facts of their own.
"""

from __future__ import annotations

import os
import re
from typing import Dict, List, NamedTuple, Optional, Set, Tuple

from ..analysis.summary import CallSite, FunctionSummary, Loop, Span
from ..analysis.values import (SLICE, Attr, Call, Const, DictDisplay, Element, FunctionRef, Imported, Item, Name, Op,
                               Part, Seq, Starred, dotted, last_name, root_name, same_value)
from . import externals, mmconfig
from .effects import SHARDING_NAMES, datasets_pool, main_process_only
from .externals import device_kind, device_target, truthiness
from . import loaders as loader_facts
from .libraries import (CLI_RUNNERS, CONTEXT, LIGHTNING_CALLBACKS, CONTEXT_ARGUMENTS, ENTRY_POINTS, HF_DATASETS, HOOKS, STEP_HOOKS,
                        POOL_INITIALIZERS, PROCESS_CLASSES, PROCESS_STARTERS, PROCESS_TARGET_NAMES, PYG_DATASET_BASES,
                        SUBSETS, TORCH_SAMPLING, entry_point, matches, process_target, split_entry_point,
                        without_context)
from .objects import (
    NUMBERS,
    made_number,
    Lit,
    Batch,
    Bound,
    Cls,
    Container,
    Ctx,
    Ext,
    Found,
    Func,
    Inst,
    Managed,
    Results,
    SiteRef,
    Top,
    Step,
    Trail,
    UNKNOWN_RESULT,
)
from .project import Project, sites_in_scope
from .resolver import Resolver, _encloses, innermost_block, extend, join, reaching, same_object

MAX_CONTEXTS = 8
MAX_WORKER_FUNCTIONS = 300
WORKER_METHODS = ("__getitem__", "__getitems__", "__iter__", "__next__")
# Library datasets whose own ``__getitem__`` calls a method the project's subclass defines:
# PyTorch Geometric's ``Dataset.__getitem__`` runs ``self.get(idx)`` in the worker.
LIBRARY_ITEM_HOOKS = {base: ("get",) for base in PYG_DATASET_BASES}
DATASET_BASES = (
    "torch.utils.data.Dataset", "torch.utils.data.dataset.Dataset", "torch.utils.data.IterableDataset",
    "torch.utils.data.dataset.IterableDataset", "torch.utils.data.TensorDataset",
    "torch.utils.data.datapipes.datapipe.IterDataPipe", "torch.utils.data.datapipes.datapipe.MapDataPipe",
    "torch.utils.data.IterDataPipe", "torch.utils.data.MapDataPipe",
)
ITERABLE_BASES = ("torch.utils.data.IterableDataset", "torch.utils.data.dataset.IterableDataset",
                  "torch.utils.data.datapipes.datapipe.IterDataPipe", "torch.utils.data.IterDataPipe")
DATASET_PACKAGES = ("torchvision.datasets.",)
ITERATING_CALLS = frozenset({"builtins.iter", "builtins.list", "builtins.tuple", "builtins.next"})
MOVE_METHODS = ("to", "cuda", "type")
# calls that run a function they are given (``map(f, xs)``, ``pool.imap(f, xs)``, ``executor.submit(f, x)``)
HIGHER_ORDER_CALLS = frozenset({"map", "imap", "imap_unordered", "starmap", "map_async", "starmap_async", "submit",
                                "apply", "apply_async", "filter", "reduce", "sorted", "Thread"})
HANDOFF_DEPTH = 2  # calls from the code holding a loader to a module it hands the loader or its batches to
EPOCH_PARAMETERS = frozenset({"epoch", "cur_epoch", "epoch_idx", "current_epoch", "epoch_id", "epoch_num"})
IGNITE_PARALLEL = frozenset({"ignite.distributed.Parallel", "ignite.distributed.launcher.Parallel"})
PROCESS_STARTERS_LAST = frozenset({"spawn", "start_processes", "Pool", "ProcessPoolExecutor"})


DATA_PARALLEL = frozenset({
    "torch.nn.parallel.DistributedDataParallel", "torch.nn.parallel.distributed.DistributedDataParallel",
    "torch.nn.DistributedDataParallel",
    "torch.distributed.fsdp.FullyShardedDataParallel",
    "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel",
    "apex.parallel.DistributedDataParallel",
    "deepspeed.DeepSpeedEngine",  # what ``deepspeed.initialize`` hands back first: data parallel (ZeRO)
})
RANK_BLIND_SAMPLERS = frozenset({"RandomSampler", "SequentialSampler", "SubsetRandomSampler", "WeightedRandomSampler",
                                 "BatchSampler"})
# datasets of these packages never split themselves by rank (PyTorch Geometric's included)
RANK_BLIND_DATASET_PACKAGES = ("torch.utils.data", "torchvision.datasets", "torch_geometric.datasets.",
                               "torch_geometric.data.")
RANK_WORDS = ("rank", "world", "replica", "process_index", "num_processes")
MODEL_CALL_DEPTH = 2  # the wrapped model is called in the training loop or in helpers this many calls down


def _rank_blind(qualname: str) -> bool:
    """A library dataset that never splits itself by rank: torch's, torchvision's, PyG's, and a
    Hugging Face dataset (``load_from_disk(path)["train"]``) not made by
    ``split_dataset_by_node`` or a ``shard`` on the way."""
    if qualname.startswith(RANK_BLIND_DATASET_PACKAGES):
        return True
    return qualname.startswith(HF_DATASETS) and "split_dataset_by_node" not in qualname and "shard" not in qualname
# ``shard`` speaks of ranks as a count or an index of shards (``num_shards``, ``shard_id``) or
# the call that takes one (``dataset.shard(n, i)``), not as the files a stream reads
# (``self.shards``, ``shard_paths``), which every rank may read whole.
SHARD_WORD = re.compile(r"(?:^|_)(?:num|n|total|count)_?shards?(?:$|_)|(?:^|_)shards?_?(?:id|idx|index|rank|count|num)(?:$|_)|^shard$")


def _reads_attribute(value, receiver: str, name: str) -> bool:
    """Whether the expression ``value`` reads ``<receiver>.<name>`` (calls it holds are not entered)."""
    kind = type(value)
    if kind is Attr:
        return (value.name == name and type(value.base) is Name and value.base.id == receiver) or \
            _reads_attribute(value.base, receiver, name)
    if kind is Item:
        return _reads_attribute(value.base, receiver, name) or _reads_attribute(value.key, receiver, name)
    if kind is Starred:
        return _reads_attribute(value.value, receiver, name)
    if kind is Op:
        return any(_reads_attribute(arg, receiver, name) for arg in value.args)
    return False


# Lightning calls these once per epoch, on the module that defines the loader's hook: what
# they change on the dataset is a change between epochs (``reload_dataloaders_every_n_epochs``
# off, the default, keeps the same loader and its persistent workers).
LIGHTNING_EPOCH_HOOKS = ("on_train_epoch_start", "on_train_epoch_end", "on_epoch_start", "on_epoch_end",
                         "on_validation_epoch_end", "training_epoch_end")


def _rank_word(name: str, variable: bool = False) -> bool:
    """A name or string that speaks of distributed ranks (``local_rank``, ``WORLD_SIZE``,
    ``num_shards``). A variable named ``shard`` is as often the file an index falls in
    (``shard = np.searchsorted(offsets, idx)``): only the method ``.shard(n, i)`` counts."""
    lowered = name.lower()
    if any(word in lowered for word in RANK_WORDS):
        return True
    return SHARD_WORD.search(lowered) is not None and not (variable and lowered == "shard")


def _trains(site: CallSite) -> bool:
    """A call that only training does: ``loss.backward()``, ``optimizer.step()``/``zero_grad()``."""
    name = last_name(site.func)
    receiver = (dotted(site.func.base) or "") if isinstance(site.func, Attr) else ""
    return name == "backward" or (name in ("step", "zero_grad") and "optim" in receiver.lower())


def kept_arguments(site: CallSite, shift: int = 0) -> list:
    """(value, span, note) of the arguments of a call building an outside object that it may keep."""
    out = [(value, span, "argument") for value, span in zip(site.args[shift:], site.arg_spans[shift:])]
    out += [(value, span, f"argument `{key}`" if key else "argument")
            for (key, value), span in zip(site.keywords, site.keyword_spans) if key not in externals.CONSUMED_KEYWORDS]
    return out


def is_test_module(path: str) -> bool:
    """A module of a test suite: under a ``tests``/``test`` folder, or ``test_*.py``,
    ``*_test.py``, ``conftest.py``."""
    parts = path.replace("\\", "/").split("/")
    name = parts[-1].rsplit(".", 1)[0]
    return (any(p in ("tests", "test", "testing") for p in parts[:-1]) or name.startswith("test_")
            or name.endswith("_test") or name == "conftest")


def _on_self(function: Optional[FunctionSummary], value: Attr) -> bool:
    """``value`` is ``<first parameter>.<name>`` in a method."""
    return function is not None and function.scope_kind == "class" and bool(function.params) \
        and type(value.base) is Name and value.base.id == function.params[0].name


def _bound_by_import(summary, function, name: str) -> bool:
    """Whether ``name`` is bound by an import in ``function`` (or, when it binds nothing
    there, in its module)."""
    bindings = function.bindings.get(name) if function is not None else None
    if not bindings:
        bindings = summary.bindings.get(name, ())
    return any(binding.kind == "import" for binding in bindings)


class Iteration(NamedTuple):
    """A place where a loader is iterated (which starts its workers)."""

    loader: object  # Inst or Managed
    module: str
    scope: str
    span: object  # the loop header or the call
    loop: Optional[int]  # index of the loop in its module, None for iter()/next()
    call: Optional[int]  # index of the iterating call, None for a loop
    trail: Trail


class Epochs(NamedTuple):
    """What repeats an iteration once per epoch: a loop (``index`` into the module's loops)
    or a function taking the epoch as parameter ``parameter`` (``index`` -1, ``loop`` None);
    or a framework hook called for every batch (``hook``: Lightning's ``training_step``); or
    a method a framework calls again and again (``hook`` its qualified name, ``runner`` who
    calls it and how often: Flower's client ``fit``, once per round)."""

    module: str
    index: int
    loop: Optional[Loop]
    parameter: Optional[str]
    trail: Trail
    hook: str = ""
    runner: str = ""


# Methods a framework calls again and again on the project's subclass, which keeps its loaders
# between the calls: (bases, method names, who calls them and how often).
REPEATED_METHODS = (
    (("flwr.client.NumPyClient", "flwr.client.Client", "flwr.client.numpy_client.NumPyClient",
      "flwr.client.client.Client"), ("fit", "evaluate"), "Flower calls it once per round"),
    (("ray.tune.Trainable", "ray.tune.trainable.Trainable"), ("step",), "Ray Tune calls it once per training iteration"),
)


class Move(NamedTuple):
    """A copy of a loader's host batch to a device."""

    loader: object
    module: str
    index: int  # the call site
    site: CallSite
    method: str
    non_blocking: str  # true | false | unknown
    trail: Trail


class FreshIterator(NamedTuple):
    """A new iterator of a loader made, and drawn from, on every pass of a loop that repeats."""

    loader: object  # Inst or Managed
    module: str
    scope: str
    span: object  # the ``iter()`` call
    call: int  # its index in the module's call table
    drawn: Step  # the ``next()`` that takes one batch from it
    repeat: Epochs  # what runs it again and again (a loop, or a caller's loop)
    trail: Trail


class DatasetChange(NamedTuple):
    """The main process changing, once per epoch, an object the loader's workers use."""

    module: str
    span: object  # the assignment or the call
    obj: Inst  # the dataset (or transform) changed
    attr: str  # the attribute the workers read
    store: bool  # an assignment (else a call of a method that assigns it)
    trail: Trail  # the calls from the epoch loop to it, then where the method assigns


# Arrays made in the process that calls them: their items changed in place stay in that process
LOCAL_ARRAYS = frozenset(f"{library}.{name}" for library in ("numpy", "torch")
                         for name in ("zeros", "ones", "full", "empty", "zeros_like", "ones_like", "full_like",
                                      "empty_like", "array", "asarray", "arange"))
# Attributes code sets on a library object after building it that pickle then carries to the
# workers: a dataset's transforms (``full.transform = ...`` after ``random_split(full, ...)``).
SET_AFTER_ATTRS = ("transform", "target_transform", "transforms")
INPLACE_SETTERS = (("set_transform", "transform"),)  # (method, its keyword): ``ds.set_transform(f)``
CUSTOM_PICKLING = ("__getstate__", "__reduce__", "__reduce_ex__")


MAX_CALLABLE_NESTING = 5  # containers and library wrappers followed into a callable


def _dispatches(call: CallSite, loop, summary=None) -> bool:
    """``for cb in self.callbacks: cb.on_train_start(self)`` (or ``getattr(cb, hook)(self)``,
    with the module's ``summary``): the loop calls the method once on each of its elements,
    not the same object's again and again."""
    if loop.target is None:
        return False
    if isinstance(call.func, Attr):
        return root_name(call.func.base) == loop.target
    if type(call.func) is Call and summary is not None:
        lookup = summary.calls[call.func.index]
        return last_name(lookup.func) == "getattr" and bool(lookup.args) and root_name(lookup.args[0]) == loop.target
    return False


class WorkerFunction(NamedTuple):
    """A function a loader's workers run, reached through ``trail`` (entry first)."""

    func: Func
    self_obj: object
    role: str  # dataset | collate_fn | worker_init_fn | transform | called
    trail: Trail
    # the context binding its parameters: the ``functools.partial(func, ...)`` holding it, or the
    # call that reached it from a worker function whose instance or arguments are known
    bound: Optional[Ctx] = None

    def ctx(self) -> Ctx:
        """The context its body is evaluated in."""
        bound = self.bound
        if bound is None:
            return Ctx(self.func.module, self.func.qualname, None, None, self.self_obj)
        return Ctx(self.func.module, self.func.qualname, bound.call, bound.caller, self.self_obj, bound.shift)


class Model:
    def __init__(self, project: Project, resolver: Resolver, settings=None):
        self.project = project
        self.resolver = resolver
        self.settings = settings
        self._loaders: Optional[List[Inst]] = None
        self._entries: Dict[tuple, List[WorkerFunction]] = {}
        self._arguments: Dict[tuple, Optional[Results]] = {}
        self._callees: Dict[tuple, list] = {}
        self._children: Dict[object, list] = {}
        self._process_modules: Dict[str, bool] = {}
        self._spawning: Dict[str, bool] = {}
        self._targets: Optional[List[Tuple[object, str, Trail]]] = None  # ``process_targets``: DSL102, DSL103
        self._given_loader_callables: Optional[List[Tuple[object, str, Trail]]] = None
        self._sites: Optional[List[SiteRef]] = None
        self._iterations: Optional[List[Iteration]] = None
        self._wrapped: Dict[object, List[Tuple[object, Trail]]] = {}  # wrapper instance → the loaders its __iter__ goes through
        self._moves: Optional[List[Move]] = None
        self._handoffs: List[str] = []  # see ``_handoff_modules`` (set with the iterations)
        self._worker_code: Dict[object, List[WorkerFunction]] = {}
        self._held: Dict[object, List[Tuple[Found, Step]]] = {}
        self._own_moves: Dict[Tuple[object, str], bool] = {}
        self._workers: Dict[object, loader_facts.Workers] = {}
        self._contexts: Dict[Tuple[str, str, int], List[Ctx]] = {}
        self._is_dataset: Dict[object, bool] = {}
        self._managed_scopes: Dict[Tuple[str, str], bool] = {}

    # contexts ---------------------------------------------------------------------------
    def contexts(self, module: str, scope: str, depth: int = 2) -> List[Ctx]:
        """The contexts code of ``scope`` runs in: one per call site of its function (up to
        ``depth`` levels of callers), or the free context when nothing calls it."""
        key = (module, scope, depth)
        found = self._contexts.get(key)
        if found is not None:
            return found
        self._contexts[key] = [self.resolver.context(module, scope)]  # recursion guard
        result = [self.resolver.context(module, scope)]
        function = self.project.function(module, scope) if scope else None
        if function is not None and depth > 0:
            callers = self.resolver.callers(Func(module, scope))
            if callers and self.resolver.all_callers_known(Func(module, scope)):
                result = []
                for site, self_obj in callers:
                    call_site = self.project.call(site)
                    for caller_ctx in self.contexts(site.module, call_site.scope, depth - 1):
                        bound_self = self_obj
                        if isinstance(self_obj, Inst) and self_obj.site is None and caller_ctx.self_obj is not None \
                                and self._runs_method(caller_ctx.self_obj, module, function):
                            bound_self = caller_ctx.self_obj
                        result.append(Ctx(module, scope, site, caller_ctx, bound_self))
                if len(result) > MAX_CONTEXTS:
                    result = [self.resolver.context(module, scope)]
        self._contexts[key] = result
        return result

    def _runs_method(self, obj, module: str, function) -> bool:
        """Whether ``obj`` (the caller's ``self``) can run ``function``, a method of ``module``:
        an instance of its class or of a subclass (a base class's ``self.build_train_loader(...)``
        runs a subclass's override only on instances of that subclass)."""
        if function.scope_kind != "class" or not isinstance(obj, Inst) or not isinstance(obj.cls, Cls):
            return True
        return Cls(module, function.scope) in self.resolver.mro(obj.cls)

    # loaders ----------------------------------------------------------------------------
    def loaders(self) -> List[Inst]:
        """Every loader construction of the project, once per context."""
        if self._loaders is not None:
            return self._loaders
        found: List[Inst] = []
        seen: Set[Inst] = set()
        for ref in self._candidate_sites():
            site = self.project.call(ref)
            for ctx in self.contexts(ref.module, site.scope):
                for result in self.resolver.eval(Call(ref.index), ctx):
                    obj = result.obj
                    if isinstance(obj, Inst) and obj.site == ref and obj not in seen and self.resolver.is_loader(obj):
                        seen.add(obj)
                        found.append(obj)
        for obj in mmconfig.config_loaders(self.resolver):
            if obj not in seen:
                seen.add(obj)
                found.append(obj)
        self._loaders = found
        return found

    def _candidate_sites(self) -> List[SiteRef]:
        """Call sites whose last name is a loader name (computed once: the eager index is fixed)."""
        if self._sites is not None:
            return self._sites
        names = self._loader_names()
        refs: List[SiteRef] = []
        seen: Set[SiteRef] = set()
        for name in sorted(names):
            for ref in self.project.calls_named(name):
                if ref not in seen:
                    seen.add(ref)
                    refs.append(ref)
        self._sites = refs
        return refs

    def _loader_names(self) -> Set[str]:
        """Last names a loader construction can be called by: library names, project
        subclasses of them, and names bound to them (aliases, ``functools.partial``, what a
        factory returning such a partial hands back: ``make = loader_fn(cfg)`` ... ``make(ds)``;
        ``f()`` stands for the result of calling ``f``)."""
        names = {spec_name.rpartition(".")[2] for spec in self.resolver.libraries.loaders for spec_name in spec.names}
        entries = self._naming_entries()
        for _ in range(3):
            before = len(names)
            for is_class, name, keys in entries:
                if (is_class or name not in names) and any(key in names for key in keys):
                    names.add(name)
            if len(names) == before:
                break
        return names

    def _naming_entries(self) -> List[Tuple[bool, str, Tuple[str, ...]]]:
        """What ``_loader_names`` examines, once: (is a class, the name it may add, the last
        names that add it), in the order it examines them (a class by its bases' last names;
        a binding by the names its assignments and imports refer to). Entries that can
        never add a name are left out."""
        entries: List[Tuple[bool, str, Tuple[str, ...]]] = []
        factories: Set[str] = set()  # functions returning what a loader name may name (``partial(DataLoader)``)
        for info in self.project.eager_modules():
            summary = info.summary
            for function in summary.functions.values():
                keys = tuple(key for key in (self._naming_key(v, summary) for v in function.returns
                                             if isinstance(v, Call)) if key)
                if keys:  # ``return partial(DataLoader, ...)``
                    factories.add(function.name)
                    entries.append((False, f"{function.name}()", keys))
        for info in self.project.eager_modules():
            summary = info.summary
            for klass in summary.classes.values():
                keys = tuple(last_name(base) for base in klass.bases)
                if keys:
                    entries.append((True, klass.name, keys))
            naming_key = self._naming_key
            for bindings in [summary.bindings] + [f.bindings for f in summary.functions.values()]:
                for name, items in bindings.items():  # every binding of the project: a plain loop
                    keys = []
                    for binding in items:
                        if binding.kind == "assign" or binding.kind == "import":
                            key = naming_key(binding.value, summary, factories)
                            if key:
                                keys.append(key)
                    if keys:
                        entries.append((False, name, tuple(keys)))
        return entries

    @staticmethod
    def _naming_key(value, summary, factories=frozenset()) -> str:
        """The last name whose being a loader name makes ``value`` one ("": none); ``f()`` for
        what a call of one of the ``factories`` returns."""
        kind = type(value)
        if kind is Name:
            return value.id
        if kind is Attr:
            return value.name
        if kind is Imported:
            return last_name(value)
        if kind is Call:
            site = summary.calls[value.index]
            called = last_name(site.func)
            if called == "partial" and site.args:
                return last_name(site.args[0])
            return f"{called}()" if called in factories else ""
        return ""

    def construction(self, loader, note: str = "the loader is built here") -> Optional[Step]:
        return loader_facts.construction_step(self.resolver, loader, note)

    def workers(self, loader) -> loader_facts.Workers:
        """The loader's workers (asked by most rules: kept once per loader)."""
        found = self._workers.get(loader)
        if found is None:
            found = self._workers[loader] = loader_facts.workers(self.resolver, loader)
        return found

    def argument(self, loader, name: str) -> Optional[Results]:
        """What the loader's construction passes for ``name`` (None: not given); memoised: the
        rules ask each loader for the same few arguments thousands of times."""
        key = (loader, name)
        found = self._arguments.get(key, self)
        if found is self:
            found = self._arguments[key] = loader_facts.loader_argument(self.resolver, loader, name)
        return found

    def value(self, loader, name: str) -> Results:
        return loader_facts.loader_value(self.resolver, loader, name)

    def spec(self, loader):
        return loader_facts.spec_of(self.resolver, loader)

    def managed(self, loader) -> Optional[str]:
        """The framework that moves this loader's batches, shards it and sets its epoch, if any."""
        if isinstance(loader, Managed):
            return loader.library
        base = loader_facts.base_loader(loader)
        if base is None or base.site is None:
            return None
        spec = self.spec(base)
        if spec is not None and spec.iterated_by_framework:
            return spec.library
        return self._framework_hook(base)

    def _framework_hook(self, base: Inst) -> Optional[str]:
        """The framework whose hook built ``base`` when the framework calls that hook; a hook
        the project calls itself hands its loop and its batches to the project."""
        ctx = base.ctx
        if ctx is None:
            return self._hooked(base.site.module, self.project.call(base.site).scope)
        while ctx is not None:
            library = self._hooked(ctx.module, ctx.scope)
            if library is not None:
                return library if ctx.call is None else None
            if ctx.call is None:
                return None
            ctx = ctx.caller
        return None

    def building_hook(self, loader) -> Optional[FunctionSummary]:
        """The framework hook (Lightning's ``train_dataloader``) the loader is built in,
        whoever iterates it; None when it is built elsewhere."""
        base = loader_facts.base_loader(loader)
        if base is None or base.site is None:
            return None
        scope = self.project.call(base.site).scope
        return self.project.function(base.site.module, scope) if self._hooked(base.site.module, scope) else None

    def _hooked(self, module: str, scope: str) -> Optional[str]:
        """A loader built in a framework hook (Lightning's ``train_dataloader``) is the framework's."""
        function = self.project.function(module, scope) if scope else None
        if function is None or function.scope_kind != "class":
            return None
        for hooks in HOOKS:
            if function.name not in hooks.methods:
                continue
            for item in self.resolver.mro(Cls(module, function.scope)):
                if isinstance(item, Ext) and matches(item.qualname, hooks.bases):
                    return hooks.library
        return None

    # iterations ---------------------------------------------------------------------------
    def iterations(self) -> List[Iteration]:
        """Every place a loader is iterated: a loop over it, or ``iter``/``next``/``list``/
        ``tuple`` of it; then the loops of the modules it is handed off to."""
        if self._iterations is not None:
            return self._iterations
        found: List[Iteration] = []
        seen = set()
        self._loop_iterations(((info.key, index, loop) for info, index, loop in self.project.all_loops()), found, seen)
        for name in ("iter", "next", "list", "tuple"):
            for ref in self.project.calls_named(name):
                site = self.project.call(ref)
                if site.args and isinstance(site.func, Name):
                    self._add_iterations(found, seen, self._call_loaders(ref, site), ref.module, site.scope,
                                         site.span, None, ref.index)
        self._handoffs = self._handoff_modules(found)
        self._loop_iterations(((module, index, loop) for module in self._handoffs
                               for index, loop in enumerate(self.project.summary(module).loops)), found, seen)
        self._iterations = found
        return found

    def _loop_iterations(self, loops, found: List[Iteration], seen: set) -> None:
        """The iterations of ``loops``: (module, index, loop) of each."""
        for module, index, loop in loops:
            if loop.iter is not None:
                self._add_iterations(found, seen, self._loop_loaders(module, loop), module, loop.scope,
                                     loop.span, index, None)

    @staticmethod
    def _add_iterations(found: List[Iteration], seen: set, loaders, module: str, scope: str, span: Span,
                        loop: Optional[int], call: Optional[int]) -> None:
        for obj, trail in loaders:
            key = (obj, module, loop if loop is not None else -1 - call)
            if key not in seen:
                seen.add(key)
                found.append(Iteration(obj, module, scope, span, loop, call, trail))

    def _loop_loaders(self, module: str, loop: Loop) -> List[Tuple[object, Trail]]:
        return self._iterated_loaders(self.resolver.eval(loop.iter, self.resolver.context(module, loop.scope)))

    def _call_loaders(self, ref: SiteRef, site: CallSite) -> List[Tuple[object, Trail]]:
        """What ``iter``/``next``/``list``/``tuple`` (the builtins, not a name shadowing
        them) iterate at ``site``."""
        ctx = self.resolver.context(ref.module, site.scope)
        if not any(isinstance(f.obj, Ext) and f.obj.qualname in ITERATING_CALLS
                   for f in self.resolver.eval(site.func, ctx)):
            return []
        return self._iterated_loaders(self.resolver.eval(site.args[0], ctx))

    def handoff_modules(self) -> List[str]:
        """The modules ``_handoff_modules`` found (found with the iterations, which it starts from)."""
        self.iterations()
        return self._handoffs

    def _handoff_modules(self, iterations: List[Iteration]) -> List[str]:
        """Project modules summarised on demand (the pre-filter found no loader word in them)
        that define a function the code holding a loader calls, directly or through up to
        ``HANDOFF_DEPTH - 1`` other project functions: a loader or its batches handed to
        ``run_epoch(model, batches, ...)`` in ``engine.py`` or to ``to_device(batch)`` in
        ``utils.py``. Code holding a loader: where one is built, the callers of that code
        (a factory's result lands there), and where one is iterated. Their loops and
        batch copies are examined like those of the modules summarised up front."""
        starts: List[Func] = []
        for ref in self._candidate_sites():
            scope = self.project.call(ref).scope
            starts.append(Func(ref.module, scope))
            if scope:
                starts.extend(Func(site.module, self.project.call(site).scope)
                              for site, _ in self.resolver.callers(Func(ref.module, scope)))
        starts.extend(Func(iteration.module, iteration.scope) for iteration in iterations)
        seen: Set[Func] = set()
        frontier: List[Func] = []
        for func in starts:
            if func not in seen:
                seen.add(func)
                frontier.append(func)
        out: List[str] = []
        for _ in range(HANDOFF_DEPTH):
            following: List[Func] = []
            for func in frontier:
                for callee in self._named_callees(func):
                    info = self.project.modules.get(callee.module)
                    if info is None or callee in seen:
                        continue
                    seen.add(callee)
                    following.append(callee)
                    if not info.eager and callee.module not in out:
                        out.append(callee.module)
            frontier = following
        return out

    def _named_callees(self, func: Func) -> List[Func]:
        """Project functions (and classes' ``__init__``) ``func`` calls by a plain name or
        through an imported module (``to_device(batch)``, ``engine.run_epoch(...)``), and the
        methods it calls on its own ``self`` (``self.train_step(batch)`` of a base trainer's
        loop: the class's method and its subclasses' overrides): how code reaches another
        module's functions. Method calls on other objects are not evaluated here, which keeps
        ``_handoff_modules`` cheap."""
        summary = self.project.summary(func.module)
        if summary is None:
            return []
        function = summary.functions.get(func.qualname) if func.qualname else None
        ctx = self.resolver.context(func.module, func.qualname)
        out: List[Func] = []
        for index in sites_in_scope(self.project, func.module, func.qualname):
            value = summary.calls[index].func
            if type(value) is Attr and _on_self(function, value):
                out.extend(self._self_methods(Cls(func.module, function.scope), value.name))
                continue
            if type(value) is Attr:
                if type(value.base) is not Name or not _bound_by_import(summary, function, value.base.id):
                    continue
            elif type(value) is not Name:
                continue
            for found in self.resolver.eval(value, ctx):
                obj = found.obj
                if isinstance(obj, Func):
                    out.append(obj)
                elif isinstance(obj, Cls):
                    out.append(Func(obj.module, f"{obj.qualname}.__init__"))
        return out

    def _self_methods(self, cls: Cls, name: str) -> List[Func]:
        """The project methods ``self.<name>(...)`` may run in a method of ``cls``: its own
        (or inherited) one and the overrides of its subclasses."""
        found = [self.resolver.method(cls, name)] + [self.resolver.method(sub, name)
                                                     for sub in self.resolver.subclasses(cls)]
        return list(dict.fromkeys(f for f in found if f is not None))

    def _iterated_loaders(self, results: Results) -> List[Tuple[object, Trail]]:
        out = []
        for found in results:
            if self._batch_items(found):
                continue  # going through a batch's items is not iterating the loader
            for element in self.resolver.iterate(found):
                if isinstance(element.obj, Batch):
                    out.append((element.obj.loader, element.trail))
            for obj in self._through_wrappers(found.obj):
                out.extend((loader, found.trail + trail) for loader, trail in self._wrapped_loaders(obj))
        return out

    def _through_wrappers(self, obj) -> List[object]:
        """``obj`` and, for an iteration wrapper (``enumerate(x)``, ``tqdm(x)``), what it goes through."""
        if type(obj) is Inst and type(obj.cls) is Ext:
            wrapped = self.resolver.libraries.wrapped_iterables(self.resolver, obj)
            return [obj] + [f.obj for f in wrapped or ()]
        return [obj]

    def _wrapped_loaders(self, obj) -> List[Tuple[object, Trail]]:
        """The loaders an instance of a project wrapper goes through in its own ``__iter__``
        (a prefetcher's ``for batch in self.loader:``): iterating the wrapper iterates them,
        once per pass over the wrapper. One level: a wrapper's wrapper is not followed."""
        if type(obj) is not Inst or type(obj.cls) is not Cls:
            return []
        found = self._wrapped.get(obj)
        if found is None:
            found = self._wrapped[obj] = []  # recursion guard
            method = self.resolver.method(obj.cls, "__iter__")
            summary = self.project.summary(method.module) if method is not None else None
            if summary is None:
                return found
            ctx = Ctx(method.module, method.qualname, None, None, obj)
            for loop in summary.loops:
                if loop.scope != method.qualname or loop.iter is None:
                    continue
                step = Step(method.module, loop.span, "iterated by the wrapper's `__iter__`")
                for element in join(self.resolver.iterate(f) for f in self.resolver.eval(loop.iter, ctx)):
                    if isinstance(element.obj, Batch):
                        found.append((element.obj.loader, (step,) + element.trail))
        return found

    def _batch_items(self, found, depth: int = 0) -> bool:
        """Batch data, not a loader: a batch, a container of what came out of batches
        (``kept = [t[:n] for t, n in zip(targets, lengths)]``), or either wrapped for iteration
        (``enumerate(lengths)`` of a batch's field). Wrappers are followed ``MAX_WRAPPERS`` deep:
        one rebound in a loop (``pairs = zip(pairs, xs)``) wraps itself."""
        obj = found.obj
        if isinstance(obj, Batch):
            return True
        if isinstance(obj, Container):
            items = self.resolver.iterate(found)
            return bool(items) and all(isinstance(item.obj, Batch) for item in items)
        if not isinstance(obj, Inst) or not isinstance(obj.cls, Ext) or depth > MAX_WRAPPERS:
            return False
        wrapped = self.resolver.libraries.wrapped_iterables(self.resolver, obj)
        if not wrapped:
            return False
        items = [self._batch_items(f, depth + 1) for f in wrapped]
        if all(items):
            return True
        # ``zip(embedding, instance)`` of a model output and a batch's field: batch data, unless
        # another wrapped iterable goes through a loader (``zip(loader_a, loader_b)``)
        return any(items) and not any(
            any(isinstance(element.obj, Batch) for element in self.resolver.iterate(f))
            for f, item in zip(wrapped, items) if not item)

    def iterations_of(self, loader) -> List[Iteration]:
        base = loader_facts.base_loader(loader)
        return [it for it in self.iterations() if loader_facts.base_loader(it.loader) == base]

    def epoch_loop(self, iteration: Iteration, depth: int = 2, same_loader: bool = False) -> Optional[Epochs]:
        """What runs ``iteration`` once per epoch: a loop around it in its function, a loop
        around a call of that function (up to ``depth`` callers away), or a function that
        takes the epoch as a parameter (a framework's per-epoch hook). A loop that rebuilds
        the loader each pass, or goes through several loaders, does not count. With
        ``same_loader`` (one loader object iterated pass after pass) the callers of a function
        taking the epoch are searched for the loop (``self.train_one_epoch(epoch)`` in
        ``fit()``'s loop), and a loop calling the function that builds the loader, which
        makes a new one each pass, does not count."""
        summary = self.project.summary(iteration.module)
        parent = summary.loops[iteration.loop].parent if iteration.loop is not None else summary.calls[iteration.call].loop
        found = self._enclosing_loop(iteration.module, parent)
        while found is not None and self._over_loaders(iteration.module, found[1]):
            found = self._enclosing_loop(iteration.module, found[1].parent)  # ``for loader in loaders.values():``
        if found is not None:
            index, loop = found
            if not self.built_inside(iteration.loader, iteration.module, loop):
                return Epochs(iteration.module, index, loop, None, ())
            return None
        carried = self._loader_parameter(iteration) if same_loader else None
        frontier = [(iteration.module, iteration.scope, (), carried)]
        by_parameter: Optional[Epochs] = None
        where_built = self._built_in(iteration.loader)
        built = where_built if same_loader else None
        for _ in range(depth + 1):
            next_frontier = []
            for module, scope, trail, carried in frontier:
                function = self.project.function(module, scope) if scope else None
                if function is None or (module, scope) == built:
                    continue
                epoch = next((p for p in function.params if p.name in EPOCH_PARAMETERS), None)
                if epoch is not None and where_built == (module, scope):
                    return by_parameter  # it builds a new loader for each epoch it is given
                if epoch is not None:
                    by_parameter = by_parameter or Epochs(
                        module, -1, None, epoch.name, trail + (Step(module, epoch.span, "called once per epoch"),))
                    if not same_loader:
                        return by_parameter
                runner = self._framework_repeats(module, function)
                if runner is not None:  # a new loader each call, when the method builds it
                    return None if where_built == (module, scope) else by_parameter or Epochs(
                        module, -1, None, None, trail + (Step(module, function.span, f"`{function.name}`: {runner}"),),
                        function.qualname, runner)
                runs = [(site, f"calls `{scope.rpartition('.')[2]}()`", own)
                        for site, own in self.resolver.callers(Func(module, scope))]
                runs += [(site, f"reads `{function.name}`", None) for site in self._property_reads(module, function)]
                for site, note, own in runs:
                    call = self.project.call(site)
                    if carried is not None and not self._passes_loader(module, function, carried, site, own,
                                                                          iteration.loader):
                        continue  # this caller hands the function another iterable: not this loader's path
                    step = Step(site.module, call.span, note)
                    found = self._enclosing_loop(site.module, call.loop)
                    while found is not None and _dispatches(call, found[1], self.project.summary(site.module)):
                        found = self._enclosing_loop(site.module, found[1].parent)
                    if found is not None:
                        index, loop = found
                        if not self.built_inside(iteration.loader, site.module, loop):
                            return Epochs(site.module, index, loop, None, trail + (step,))
                        continue
                    next_frontier.append((site.module, call.scope, trail + (step,),
                                          self._argument_parameter(function, carried, site, call)))
            frontier = next_frontier
        return by_parameter

    def _converts_parameter(self, iteration: Iteration) -> bool:
        """The iterating call (``list(generator)``) takes a parameter of its function, or a
        generator over one (``generator = (f(x) for x in data)``)."""
        function = self.project.function(iteration.module, iteration.scope) if iteration.scope else None
        summary = self.project.summary(iteration.module)
        if function is None or iteration.call is None or not summary.calls[iteration.call].args:
            return False
        return _parameter_named(summary, function, summary.calls[iteration.call].args[0]) is not None

    def _loader_parameter(self, iteration: Iteration) -> Optional[str]:
        """The parameter of the iterating function the loop's iterable is (``for obj in
        iterable``, also through ``enumerate(iterable)``): the loader arrives through it."""
        if iteration.loop is None or not iteration.scope:
            return None
        summary = self.project.summary(iteration.module)
        function = self.project.function(iteration.module, iteration.scope)
        return _parameter_named(summary, function, summary.loops[iteration.loop].iter)

    def runs_for_loader(self, iteration: Iteration, row: int) -> bool:
        """Whether code at ``row`` of the function holding ``iteration``'s loop runs for its
        loader: False when a test of a parameter around it (``if train:``) fails for every call
        handing this loader in (a shared ``run_epoch(loader, train)`` called with
        ``train=False`` for the evaluation loader). Unknown callers: it runs."""
        function = self.project.function(iteration.module, iteration.scope) if iteration.scope else None
        if function is None or not function.param_tests:
            return True
        block = innermost_block(function.blocks, row)
        parameter = self._loader_parameter(iteration) if block >= 0 else None
        func = Func(iteration.module, iteration.scope)
        if parameter is None or not self.resolver.all_callers_known(func):
            return True
        handing = []
        for site, own in self.resolver.callers(func):
            bound = Ctx(iteration.module, function.qualname, site, self.resolver.context(site.module, self.project.call(site).scope), own)
            given = self.resolver.param(function, parameter, bound)
            if any(isinstance(f.obj, Top) or f.obj == iteration.loader for f in given):
                handing.append(bound)  # this very loader (built in this context), or perhaps it
        return not handing or any(self.resolver.branch_taken(function, block, ctx) for ctx in handing)

    def _passes_loader(self, module: str, function: FunctionSummary, parameter: str, site: SiteRef, own,
                       loader) -> bool:
        """Whether the call at ``site`` passes ``loader`` (or something unknown) as ``parameter``
        of ``function`` (defined in ``module``)."""
        call = self.project.call(site)
        bound = Ctx(module, function.qualname, site, self.resolver.context(site.module, call.scope), own)
        given = self.resolver.param(function, parameter, bound)
        return any(isinstance(f.obj, Top) or same_object(f.obj, loader) for f in given)

    def _argument_parameter(self, function: FunctionSummary, carried: Optional[str], site: SiteRef,
                            call) -> Optional[str]:
        """The caller's own parameter the call passes as ``carried`` (the loader keeps coming
        through parameters), else None."""
        if carried is None:
            return None
        caller = self.project.function(site.module, call.scope) if call.scope else None
        if caller is None:
            return None
        names = [p.name for p in function.params]
        position = names.index(carried) if carried in names else -1
        for name, value in call.keywords:
            if name == carried:
                return _parameter_named(self.project.summary(site.module), caller, value)
        skip = 1 if names and names[0] in ("self", "cls") and isinstance(call.func, Attr) else 0
        index = position - skip
        if 0 <= index < len(call.args):
            return _parameter_named(self.project.summary(site.module), caller, call.args[index])
        return None

    def _framework_repeats(self, module: str, function: FunctionSummary) -> Optional[str]:
        """Who calls ``function`` again and again, and how often (``REPEATED_METHODS``), or None."""
        if function.scope_kind != "class":
            return None
        for bases, names, runner in REPEATED_METHODS:
            if function.name in names and any(isinstance(item, Ext) and matches(item.qualname, bases)
                                              for item in self.resolver.mro(Cls(module, function.scope))):
                return runner
        return None

    def _built_in(self, loader) -> Optional[Tuple[str, str]]:
        """(module, scope) of the function that builds ``loader`` (its base loader), or None."""
        base = loader_facts.base_loader(loader) if loader is not None else None
        if base is None or base.site is None:
            return None
        return base.site.module, self.project.call(base.site).scope

    def _property_reads(self, module: str, function) -> List[SiteRef]:
        """The calls in the other methods of a property's class that read it on ``self``
        (``self.next_batch.to(device)``, ``model(self.next_batch)``): what runs its body."""
        if function.scope_kind != "class" or not self.resolver.is_property(function):
            return []
        summary = self.project.summary(module)
        out = []
        for method in summary.functions.values():
            if method.scope != function.scope or method is function or function.name not in method.self_reads \
                    or not method.params:
                continue
            receiver = method.params[0].name
            for index in sites_in_scope(self.project, module, method.qualname):
                site = summary.calls[index]
                if any(_reads_attribute(value, receiver, function.name)
                       for value in (site.func, *site.args, *(v for _, v in site.keywords))):
                    out.append(SiteRef(module, index))
        return out

    def _over_loaders(self, module: str, loop: Loop) -> bool:
        """``for loader in (train_loader, val_loader):`` goes through loaders, it is no epoch loop."""
        if loop.iter is None:
            return False
        for found in self.resolver.eval(loop.iter, self.resolver.context(module, loop.scope)):
            for element in self.resolver.iterate(found):
                if isinstance(element.obj, Container) and element.obj.kind == "pair":  # ``loaders.items()``
                    element = next(iter(self.resolver.element_at(element, 1)), element)
                if isinstance(element.obj, Managed) or (isinstance(element.obj, Inst) and self.resolver.is_loader(element.obj)):
                    return True
        return False

    def _enclosing_loop(self, module: str, index: int) -> Optional[Tuple[int, Loop]]:
        loops = self.project.summary(module).loops
        while index >= 0:
            loop = loops[index]
            if loop.kind in ("for", "while"):
                return index, loop
            index = loop.parent
        return None

    def built_inside(self, loader, module: str, loop: Loop) -> bool:
        """Whether the loader is constructed inside ``loop`` (directly or by a call in it); not
        one cached on first use (``if self._loader is None: self._loader = DataLoader(...)``),
        which every later pass reuses."""
        base = loader_facts.base_loader(loader)
        if base is None or base.site is None or self._cached_once(base):
            return False
        sites = [base.site]
        ctx = base.ctx
        while ctx is not None:
            if ctx.call is not None:
                sites.append(ctx.call)
            ctx = ctx.caller
        for site in sites:
            if site.module == module:
                span = self.project.call(site).span
                if loop.span.row <= span.row <= loop.end_row:
                    return True
        return self._called_in_loop(base, module, loop)

    def _cached_once(self, base: Inst) -> bool:
        """The construction's value is stored on an attribute only while that attribute is
        None (a lazily built loader kept for the next calls)."""
        summary = self.project.summary(base.site.module)
        scope = self.project.call(base.site).scope
        return any(store.scope == scope and store.none_guarded and store.kind == "assign" and type(store.value) is Call
                   and store.value.index == base.site.index for store in summary.stores)

    def _called_in_loop(self, base: Inst, module: str, loop: Loop, depth: int = 3) -> bool:
        """Whether a call in ``loop`` runs the function that builds the loader, up to ``depth``
        calls away (``itr = epoch_itr.next_epoch_itr()`` in the loop, whose helper builds a
        new ``DataLoader`` each time), whichever way the loader value reached the loop."""
        scope = self.project.call(base.site).scope
        if not scope:
            return False
        frontier, seen = [Func(base.site.module, scope)], set()
        for _ in range(depth):
            following = []
            for func in frontier:
                for site, _ in self.resolver.callers(func):
                    call = self.project.call(site)
                    if site.module == module and call.scope == loop.scope and \
                            loop.span.row <= call.span.row <= loop.end_row:
                        return True
                    caller = Func(site.module, call.scope)
                    if call.scope and caller not in seen:
                        seen.add(caller)
                        following.append(caller)
            frontier = following
        return False

    def calls_in_loop(self, module: str, loop: Loop, names) -> List[Tuple[SiteRef, CallSite]]:
        """Calls named ``names`` inside ``loop``'s body, or one call away from it: in a function
        it calls by name, or a method it calls on ``self`` (``self._begin_epoch(epoch)``, in a
        base class of the trainer)."""
        summary = self.project.summary(module)
        found = []
        for index, site in enumerate(summary.calls):
            if site.scope != loop.scope or not (loop.span.row <= site.span.row <= loop.end_row):
                continue
            ref = SiteRef(module, index)
            if last_name(site.func) in names:
                found.append((ref, site))
                continue
            ctx = self.resolver.context(module, site.scope)
            func = site.func
            on_self = isinstance(func, Attr) and isinstance(func.base, Name) and func.base.id == "self"
            for found_callee in self.resolver.eval(func, ctx) if isinstance(func, Name) or on_self else ():
                callee = found_callee.obj
                if isinstance(callee, Bound):
                    callee = callee.func
                if isinstance(callee, Func):
                    inner = self.project.summary(callee.module)
                    for inner_index in sites_in_scope(self.project, callee.module, callee.qualname):
                        inner_site = inner.calls[inner_index]
                        if last_name(inner_site.func) in names:
                            found.append((SiteRef(callee.module, inner_index), inner_site))
        return found

    # what the main process does between steps and epochs (issue 17) ---------------------------
    def fresh_iterators(self) -> List["FreshIterator"]:
        """Where a loader's iterator is created and drawn from in the same pass of a loop that
        repeats (``next(iter(loader))``, or ``it = iter(loader)`` then ``next(it)`` every pass):
        each pass starts the loader's workers anew for one batch. An iterator created only on
        some passes (under an ``if``, in an ``except StopIteration``) and kept across them, or
        one drained by an inner loop, is a normal epoch, not this."""
        found = getattr(self, "_fresh", None)
        if found is not None:
            return found
        found = []
        for ref in self.project.calls_named("iter"):
            site = self.project.call(ref)
            if len(site.args) != 1 or not isinstance(site.func, Name):
                continue
            ctx = self.resolver.context(ref.module, site.scope)
            if not any(isinstance(f.obj, Ext) and f.obj.qualname == "builtins.iter"
                       for f in self.resolver.eval(site.func, ctx)):
                continue
            loaders = [(f.obj, f.trail) for f in self.resolver.eval(site.args[0], ctx)
                       if isinstance(f.obj, Managed) or (isinstance(f.obj, Inst) and self.resolver.is_loader(f.obj))]
            if not loaders:
                continue
            drawn = self._drawn_in_same_pass(ref, site)
            if drawn is None or self._filled_once(ref.module, site):
                continue
            for loader, trail in loaders:
                iteration = Iteration(loader, ref.module, site.scope, site.span, None, ref.index, trail)
                repeat = self.epoch_loop(iteration) or self._step_hook(ref.module, site.scope)
                if repeat is not None:
                    found.append(FreshIterator(loader, ref.module, site.scope, site.span, ref.index, drawn, repeat, trail))
        self._fresh = found
        return found

    def _step_hook(self, module: str, scope: str) -> Optional[Epochs]:
        """A framework's per-batch hook (Lightning's ``training_step``, a Hugging Face
        ``Trainer``'s ``compute_loss``: ``libraries.STEP_HOOKS``), or an ignite engine's process
        function: the framework calls it for every batch, like the body of a loop."""
        function = self.project.function(module, scope) if scope else None
        if function is not None and self.resolver.engines.is_process_function(Func(module, scope)):
            return Epochs(module, -1, None, None, (), function.name, "an ignite engine calls it for every batch")
        if function is None or function.scope_kind != "class":
            return None
        for bases, methods, caller in STEP_HOOKS:
            if function.name in methods and any(isinstance(item, Ext) and matches(item.qualname, bases)
                                                for item in self.resolver.mro(Cls(module, function.scope))):
                return Epochs(module, -1, None, None, (), function.name, caller)
        return None

    def _drawn_in_same_pass(self, ref: SiteRef, site: CallSite) -> Optional[Step]:
        """The ``next()`` that takes a batch from the iterator ``iter()`` made at ``ref`` in the
        same pass: the call around it (``next(iter(loader))``), or, for an iterator created on
        every pass of a loop (not conditionally) or on every call of a function without a loop
        around it, a ``next(it)`` in that same loop (or function) and not in a loop inside it."""
        summary = self.project.summary(ref.module)
        for index in sites_in_scope(self.project, ref.module, site.scope):
            outer = summary.calls[index]
            if outer.args and outer.args[0] == Call(ref.index) and self._is_next(outer, ref.module):
                return Step(ref.module, outer.span, "one batch taken from it")
        loop = self._enclosing_loop(ref.module, site.loop)
        if not self._every_pass(ref.module, site, loop[1] if loop else None):
            return None
        drawn = None
        for index in sites_in_scope(self.project, ref.module, site.scope):
            outer = summary.calls[index]
            if index == ref.index:
                continue
            receiver = outer.args[0] if outer.args and self._is_next(outer, ref.module) else (
                outer.func.base if isinstance(outer.func, Attr) and outer.func.name in ("next", "__next__") else None)
            if receiver is None or not any(isinstance(f.obj, Inst) and f.obj.site == ref for f in
                                           self.resolver.eval(receiver, self.resolver.context(ref.module, site.scope))):
                continue
            if self._enclosing_loop(ref.module, outer.loop) != loop:
                return None  # drawn from in a loop of its own too: drained batch after batch, an epoch
            drawn = drawn or Step(ref.module, outer.span, "one batch taken from it")
        return drawn

    def _filled_once(self, module: str, site: CallSite) -> bool:
        """``site`` sits in the body of ``if preview is None:`` (or ``== 0``, ``not preview``) that
        sets ``preview``: the body runs until the name is set, once."""
        function = self.project.function(module, site.scope) if site.scope else None
        if function is None or not function.fills:
            return False
        block = innermost_block(function.blocks, site.span.row)
        fills = set(function.fills)
        return block >= 0 and any(binding.block == block and (name, binding.pos) in fills
                                  for name, bindings in function.bindings.items() for binding in bindings)

    def _is_next(self, site: CallSite, module: str) -> bool:
        return isinstance(site.func, Name) and site.func.id == "next" and any(
            isinstance(f.obj, Ext) and f.obj.qualname == "builtins.next"
            for f in self.resolver.eval(site.func, self.resolver.context(module, site.scope)))

    def _every_pass(self, module: str, site: CallSite, loop: Optional[Loop]) -> bool:
        """Whether ``site`` runs on every pass of ``loop`` (every call of its function when
        ``loop`` is None): no branch, handler or inner loop holds it."""
        function = self.project.function(module, site.scope) if site.scope else None
        blocks = function.blocks if function is not None else self.project.summary(module).blocks
        if loop is None:
            return function is not None and not any(b[1] <= site.span.row <= b[2] for b in blocks)
        inside = [b for b in blocks if b[1] <= site.span.row <= b[2] and loop.span.row <= b[1] and b[2] <= loop.end_row]
        return len(inside) <= 1

    def worker_state(self, loader) -> Dict[Tuple[object, SiteRef], Tuple[Inst, Set[str]]]:
        """The objects whose methods the loader's workers run (the dataset, the datasets it
        wraps, transforms), by (class, construction site), with the ``self`` attributes those
        methods read: what every worker holds its own copy of."""
        out: Dict[Tuple[object, SiteRef], Tuple[Inst, Set[str]]] = {}
        for function in self.worker_code(loader):
            obj = function.self_obj
            if not isinstance(obj, Inst) or not isinstance(obj.cls, Cls) or obj.site is None:
                continue
            summary = self.function_summary(function.func)
            entry = out.setdefault((obj.cls, obj.site), (obj, set()))
            if summary is not None:
                entry[1].update(summary.self_reads)
        state = {key: (obj, self.through_properties(obj.cls, reads)) for key, (obj, reads) in out.items()}
        for found in self.value(loader, "dataset"):  # ``ImageFolder(root, transform)``: its item code reads these
            obj = found.obj
            if isinstance(obj, Inst) and isinstance(obj.cls, Ext) and obj.site is not None \
                    and obj.cls.qualname.startswith(TORCHVISION_DATASETS):
                state.setdefault((obj.cls, obj.site), (obj, set(TORCHVISION_ITEM_ATTRIBUTES)))
        return state

    def through_properties(self, cls: Cls, names: Set[str], depth: Optional[int] = None) -> Set[str]:
        """``names`` (attributes read on ``self``) with what the properties among them read on
        ``self`` in turn (``self.segment_len`` computed from ``self.segment_seconds``; a lazy
        ``env`` property reading ``self._env``), ``depth`` properties deep (None: all of them)."""
        out = set(names)
        frontier = set(names)
        while frontier and (depth is None or depth > 0):
            following: Set[str] = set()
            for name in frontier:
                method = self.resolver.method(cls, name)
                function = self.function_summary(method) if method is not None else None
                if function is not None and self.resolver.is_property(function):
                    following |= function.self_reads - out
            out |= following
            frontier = following
            depth = None if depth is None else depth - 1
        return out

    def dataset_changes(self, loader, repeat: Epochs) -> List["DatasetChange"]:
        """What the main process does once per epoch (in the loop ``repeat`` or the function
        called once per epoch, and in the functions they call) to an object the loader's
        workers use: assigning one of its attributes (``loader.dataset.epoch = e``) or calling
        one of its methods that assigns ``self.<attr>`` (``dataset.set_epoch(e)``), itself or
        through a helper it calls on ``self``, where the workers' code reads that attribute."""
        return self.changes_in_regions(loader, self._epoch_regions(repeat, loader))

    def lightning_epoch_changes(self, loader) -> List[Tuple[str, "DatasetChange"]]:
        """(hook, change) for the changes to a Lightning loader's dataset that the epoch hooks
        (``on_train_epoch_start``...) of the module defining its ``*_dataloader`` hook make."""
        base = loader_facts.base_loader(loader)
        if base is None or base.site is None:
            return []
        module = base.site.module
        hook = self.project.function(module, self.project.call(base.site).scope)
        owner = self.project.klass(module, hook.scope) if hook is not None and hook.scope_kind == "class" else None
        out = []
        for name in LIGHTNING_EPOCH_HOOKS if owner is not None else ():
            function = self.project.function(module, f"{hook.scope}.{name}") if name in owner.methods else None
            if function is not None:
                region = (module, function.qualname, function.span.row, function.end_row)
                out.extend((name, change) for change in self.changes_in_regions(loader, [region]))
        for callback_module, function in self._callback_epoch_hooks() if owner is not None else ():
            region = (callback_module, function.qualname, function.span.row, function.end_row)
            out.extend((function.name, change) for change in self.changes_in_regions(loader, [region]))
        return out

    def _callback_epoch_hooks(self) -> List[Tuple[str, FunctionSummary]]:
        """(module, method) of the epoch hooks of the project's Lightning callbacks
        (``Callback`` subclasses), which the Trainer calls every epoch with itself: found once."""
        found = self.__dict__.get("_callback_hooks")
        if found is None:
            found = self.__dict__["_callback_hooks"] = []
            for info in self.project.eager_modules():
                for qualname, klass in info.summary.classes.items():
                    hooks = [n for n in LIGHTNING_EPOCH_HOOKS if n in klass.methods]
                    if hooks and any(isinstance(item, Ext) and item.qualname in LIGHTNING_CALLBACKS
                                     for item in self.resolver.mro(Cls(info.key, qualname))):
                        found.extend((info.key, info.summary.functions[f"{qualname}.{n}"]) for n in hooks
                                     if f"{qualname}.{n}" in info.summary.functions)
        return found

    def reloads_dataloaders(self) -> bool:
        """A call given ``reload_dataloaders_every_n_epochs`` (a Trainer rebuilding its loaders);
        DSL302 and DSL404 both ask, the calls are scanned once."""
        found = getattr(self, "_reloads", None)
        if found is None:
            found = self._reloads = any(key == "reload_dataloaders_every_n_epochs" for info in self.project.eager_modules()
                                        for site in info.summary.calls for key, _ in site.keywords)
        return found

    def changes_in_regions(self, loader, regions) -> List["DatasetChange"]:
        """``dataset_changes`` in the code of ``regions``: (module, scope, first row, last row)
        run once per epoch."""
        state = self.worker_state(loader)
        if not state:
            return []
        found: List[DatasetChange] = []
        for region in regions:
            for module, scope, first, last, ctx, trail in self._code_run_by(*region, depth=2):
                own = ctx.self_obj
                if isinstance(own, Inst) and (own.cls, own.site) in state:
                    continue  # the object's own method: its call is the change (``set_epoch``)
                found.extend(change for change in self._changes_in(module, scope, first, last, ctx, trail, state)
                             if not self._rebuilt_after(loader, change, scope, ctx))
        return found

    def _rebuilt_after(self, loader, change: "DatasetChange", scope: str, ctx: Ctx) -> bool:
        """The function making ``change`` builds the loader again after it, whenever it makes
        it (``self.train_ds.set_steps(n)`` then ``self.train_loader = build_loader(...)``), or
        drops its iterator (``loader._iterator = None``, mmengine's way: the next ``iter()``
        starts new workers): the next epoch's workers start from the changed dataset."""
        base = loader_facts.base_loader(loader)
        summary = self.project.summary(change.module)
        function = summary.functions.get(scope) if scope else None
        if base is None or base.site is None or function is None:
            return False
        row = change.span.row
        changed_in = innermost_block(function.blocks, row)
        later = [store.value for store in summary.stores if store.scope == scope and store.kind == "assign"
                 and store.span.row > row and _encloses(function.blocks, store.block, changed_in)]
        later += [binding.value for bindings in function.bindings.values() for binding in bindings
                  if binding.kind == "assign" and binding.pos // 65536 > row
                  and _encloses(function.blocks, binding.block, changed_in)]
        if any(isinstance(found.obj, Inst) and getattr(loader_facts.base_loader(found.obj), "site", None) == base.site
               for value in later for found in self.resolver.eval(value, ctx)):
            return True
        return any(getattr(loader_facts.base_loader(found.obj), "site", None) == base.site
                   for store in summary.stores if store.scope == scope and store.attr == "_iterator"
                   and store.kind == "assign" and store.value == Const(None) and store.span.row > row
                   for found in self.resolver.eval(store.target, ctx))  # ``loader._iterator = None``: new workers

    def _epoch_regions(self, repeat: Epochs, loader=None) -> List[Tuple[str, str, int, int]]:
        """(module, scope, first row, last row) of the code run between two passes over the
        loader: the epoch loop and the loops around it that keep the same loader (rounds of
        pseudo-labelling around the epochs); or the function taking the epoch as a parameter
        and the loops of its callers around the call."""
        if repeat.loop is not None:
            regions = [(repeat.module, repeat.loop.scope, repeat.loop.span.row, repeat.loop.end_row)]
            around = self._enclosing_loop(repeat.module, repeat.loop.parent)
            while around is not None and loader is not None:
                outer = around[1]
                if self.built_inside(loader, repeat.module, outer) or self._over_loaders(repeat.module, outer):
                    break  # each pass makes its own loader, or goes through other loaders
                regions.append((repeat.module, outer.scope, outer.span.row, outer.end_row))
                around = self._enclosing_loop(repeat.module, outer.parent)
            function = self.project.function(repeat.module, repeat.loop.scope) if repeat.loop.scope else None
            built = self._built_in(loader)
            if function is not None and around is None and built is not None \
                    and built != (repeat.module, function.qualname) \
                    and self._framework_repeats(repeat.module, function) is not None:
                regions.append((repeat.module, function.qualname, function.span.row, function.end_row))  # Flower's ``fit``
            return regions
        summary = self.project.summary(repeat.module)
        if repeat.runner:  # the method a framework calls again and again: its own body
            function = summary.functions.get(repeat.hook)
            return [(repeat.module, function.qualname, function.span.row, function.end_row)] if function else []
        where = repeat.trail[-1].span if repeat.trail else None
        for function in summary.functions.values():
            if any(p.name == repeat.parameter and p.span == where for p in function.params):
                break
        else:
            return []
        regions = [(repeat.module, function.qualname, function.span.row, function.end_row)]
        for site, _ in self.resolver.callers(Func(repeat.module, function.qualname)):
            around = self._enclosing_loop(site.module, self.project.call(site).loop)
            if around is not None:
                loop = around[1]
                regions.append((site.module, loop.scope, loop.span.row, loop.end_row))
        return regions

    def _code_run_by(self, module: str, scope: str, first: int, last: int, depth: int, self_obj=None,
                     trail: Trail = (), ctx: Optional[Ctx] = None):
        """(module, scope, first row, last row, context, calls that lead there) of the code
        between rows ``first`` and ``last`` of ``scope``, then of the project functions it
        calls, ``depth`` levels down. A callee runs in the context of its call, its parameters
        bound to that call's arguments: ``self._fire("on_train_epoch_start", epoch)`` runs
        ``getattr(callback, hook)(self, epoch)`` with that hook only."""
        ctx = ctx or Ctx(module, scope, None, None, self_obj)
        yield module, scope, first, last, ctx, trail
        if depth <= 0:
            return
        for callee, bound, ref in self.callees_in(ctx):
            call = self.project.call(ref)
            function = self.function_summary(callee)
            if function is None or not first <= call.span.row <= last:
                continue
            step = Step(ref.module, call.span, f"calls `{callee.qualname.rpartition('.')[2]}()`")
            inner = self.resolver.call_context(callee, ref, ctx, bound)
            yield from self._code_run_by(callee.module, callee.qualname, function.span.row, function.end_row,
                                         depth - 1, bound, trail + (step,), inner)

    def _calls_between(self, module: str, scope: str, first: int, last: int):
        summary = self.project.summary(module)
        for index in sites_in_scope(self.project, module, scope):
            site = summary.calls[index]
            if first <= site.span.row <= last:
                yield SiteRef(module, index), site

    def _changes_in(self, module: str, scope: str, first: int, last: int, ctx: Ctx, trail: Trail,
                    state) -> List["DatasetChange"]:
        """Assignments to the attributes the workers read, and calls of methods that assign
        them, between rows ``first`` and ``last`` of ``scope``."""
        found = []
        for store in self.project.summary(module).stores:
            if store.scope != scope or not first <= store.span.row <= last or store.kind == "del":
                continue
            target, attr = store.target, store.attr
            if attr == "[]" and type(target) is Attr:  # ``dataset.labels[idx] = new``: the array changed in place
                target, attr = target.base, target.name
            for obj, reads in self._state_objects(target, ctx, state):
                if attr in reads and (store.attr != "[]" or self._process_local(obj, attr)):
                    found.append(DatasetChange(module, store.span, obj, attr, True, trail))
        for _, site in self._calls_between(module, scope, first, last):
            for obj, reads, method in self._state_methods(site, ctx, state):
                for attr, store, via in self._assigned_by(method, obj):
                    if attr in reads and (store[1].attr != "[]" or self._process_local(obj, attr)):
                        how = "changed in place" if store[1].attr == "[]" else "assigned"
                        assigned = Step(store[0], store[1].span, f"`self.{attr}` {how} here")
                        found.append(DatasetChange(module, site.span, obj, attr, False, trail + via + (assigned,)))
        return found

    def assigned_values(self, obj: Inst, attr: str, skip: Set[Func] = frozenset()) -> list:
        """What the methods of ``obj``'s class and its project bases (but those in ``skip``)
        assign to ``self.<attr>``, evaluated for ``obj``."""
        values = []
        for cls in self.resolver.mro(obj.cls):
            if not isinstance(cls, Cls):
                continue
            for function, store in self.resolver.self_stores(cls).get(attr, ()):
                if store.kind == "assign" and Func(cls.module, function.qualname) not in skip:
                    ctx = self.resolver.method_ctx(obj, cls.module, function)
                    values.extend(self.resolver.eval(store.value, ctx))
        return values

    def _process_local(self, obj: Inst, attr: str) -> bool:
        """Whether every value the class stores in ``self.<attr>`` is an array or container of
        the process that holds it (``np.full(n, -1)``, ``[]``): its items changed in place in
        the main process stay there (a tensor in shared memory, a ``Manager`` proxy, would not)."""
        values = self.assigned_values(obj, attr)
        return bool(values) and all(
            (type(f.obj) is Container and f.obj.kind in ("list", "dict"))
            or (type(f.obj) is Inst and type(f.obj.cls) is Ext and f.obj.cls.qualname in LOCAL_ARRAYS) for f in values)

    def _state_methods(self, site: CallSite, ctx: Ctx, state) -> List[Tuple[Inst, Set[str], Optional[Func]]]:
        """(object of ``state``, what the workers read of it, the method called) for a call of
        one of its methods: ``dataset.set_epoch(e)``, or one looked up by name first
        (``set_epoch = getattr(dataset, "set_epoch", None)`` ... ``set_epoch(e)``)."""
        if isinstance(site.func, Attr):
            return [(obj, reads, self.resolver.method(obj.cls, site.func.name))
                    for obj, reads in self._state_objects(site.func.base, ctx, state)]
        if type(site.func) is not Name:
            return []
        out = []
        for found in self.resolver.eval(site.func, ctx):
            bound = found.obj
            own = bound.self_obj if isinstance(bound, Bound) else None
            if isinstance(own, Inst) and (own.cls, own.site) in state:
                obj, reads = state[(own.cls, own.site)]
                out.append((obj, reads, bound.func))
        return out

    def _state_objects(self, value, ctx: Ctx, state) -> List[Tuple[Inst, Set[str]]]:
        """The objects of ``state`` (see ``worker_state``) that ``value`` may be."""
        out = []
        for found in self.resolver.eval(value, ctx):
            obj = found.obj
            if isinstance(obj, Inst) and (obj.cls, obj.site) in state:
                out.append(state[(obj.cls, obj.site)])
        return out

    def _assigned_by(self, method: Optional[Func], obj: Inst, depth: int = 2) -> List[Tuple[str, object, Trail]]:
        """(attribute, (module, store), calls leading there) for every ``self.<attribute> = ...``
        in ``method``'s body and in the methods it calls on the same object, ``depth`` calls
        down: a setter that rebuilds the state through a helper (``self._build()``) changes it too."""
        if method is None:
            return []
        owner = Cls(method.module, method.qualname.rpartition(".")[0])
        found = [(attr, (method.module, store), ()) for attr, stores in self.resolver.self_stores(owner).items()
                 for function, store in stores if function.qualname == method.qualname and store.kind != "del"]
        function = self.project.function(method.module, method.qualname)
        own = function.params[0].name if function is not None and function.params else None
        found.extend((store.target.name, (method.module, store), ())  # ``self.labels[idx] = new``: in place
                     for _, store in self.resolver.stores_by_scope(method.module).get(method.qualname, ())
                     if store.attr == "[]" and store.kind in ("assign", "aug")
                     and type(store.target) is Attr and type(store.target.base) is Name
                     and store.target.base.id == own)
        if depth > 0:
            for callee, bound, ref in self.callees(method, obj):
                if bound == obj and callee != method:
                    step = Step(ref.module, self.project.call(ref).span, f"calls `{callee.qualname.rpartition('.')[2]}()`")
                    found.extend((attr, store, (step,) + via) for attr, store, via in
                                 self._assigned_by(callee, obj, depth - 1))
        return found

    def distributed_training(self, iteration: Iteration) -> Optional[Tuple[Step, Step]]:
        """(the call of the model, where it is wrapped) when the loop of ``iteration`` trains
        (``backward``, an optimizer's ``step``/``zero_grad``, in the loop or one call away) a
        model wrapped for distributed data parallel training (``DistributedDataParallel``,
        FSDP), called in the loop or up to two calls away (``dpo_step(policy, ...)`` calling
        ``seq_logps(policy, ...)``): one process per rank runs this loop."""
        region = self._training_region(iteration)
        if region is None:
            return None
        model_call, trains = None, False
        for module, scope, first, last, ctx, trail in self._code_run_by(iteration.module, *region, MODEL_CALL_DEPTH):
            for ref, site in self._calls_between(module, scope, first, last):
                trains = trains or (len(trail) <= 1 and _trains(site))  # the step: in the loop or one call away
                model_call = model_call or self._data_parallel_call(ref, site, ctx)
        return model_call if trains else None

    def _training_region(self, iteration: Iteration) -> Optional[Tuple[str, int, int]]:
        """(scope, first row, last row) of the code that trains on the iteration's batches: the
        loop over the loader; for a batch drawn with ``next(iter(loader))``, the loop around the
        draw, or the step function from the draw to its end when a loop calls that function
        (``run_step()`` in ``train()``'s loop over iterations)."""
        summary = self.project.summary(iteration.module)
        if iteration.loop is not None:
            loop = summary.loops[iteration.loop]
            return loop.scope, loop.span.row, loop.end_row
        site = summary.calls[iteration.call]
        if site.loop >= 0:  # ``batch = next(iter(loader))`` on each pass of a step loop
            loop = summary.loops[site.loop]
            return loop.scope, loop.span.row, loop.end_row
        function = self.project.function(iteration.module, site.scope) if site.scope else None
        if function is None:
            return None
        if not any(self.project.call(caller).loop >= 0 for caller, _ in self.resolver.callers(Func(iteration.module,
                                                                                                 site.scope))):
            return None
        return site.scope, site.span.row, function.end_row

    def _data_parallel_call(self, ref: SiteRef, site: CallSite, ctx: Ctx) -> Optional[Tuple[Step, Step]]:
        """(the call, the wrapping) when ``site`` calls a model wrapped for distributed data
        parallel training (``model(x)``, ``model.forward(x)``)."""
        if not isinstance(site.func, (Name, Attr)):
            return None
        called = site.func.base if isinstance(site.func, Attr) and site.func.name == "forward" else site.func
        for found in self.resolver.eval(called, ctx):
            obj = found.obj
            if isinstance(obj, Inst) and isinstance(obj.cls, Ext) and obj.site is not None \
                    and obj.cls.qualname in DATA_PARALLEL:
                wrapped = Step(obj.site.module, self.project.call(obj.site).span,
                               f"the model is wrapped in `{obj.cls.qualname.rpartition('.')[2]}`")
                return Step(ref.module, site.span, "the distributed model trains on its batches"), wrapped
        return None

    def lightning_sampler_off(self) -> Optional[Step]:
        """A Lightning ``Trainer(...)`` told not to put a ``DistributedSampler`` in
        (``use_distributed_sampler=False``) with a data-parallel strategy (``"ddp"``,
        ``"fsdp"``...) or several nodes: the hooks' loaders then reach every rank as they
        are."""
        found = self.lightning_data_parallel()
        return found[0] if found is not None and found[1] else None

    def lightning_data_parallel(self) -> Optional[Tuple[Step, bool]]:
        """A Lightning ``Trainer(...)`` running data-parallel ranks (a ``"ddp"``, ``"fsdp"``...
        strategy, or several nodes): where it is built, and whether it is told
        ``use_distributed_sampler=False`` (such a one first). Found once per run."""
        found = self.__dict__.get("_lightning_ranks", self)
        if found is self:
            found = self.__dict__["_lightning_ranks"] = self._find_lightning_data_parallel()
        return found

    def _find_lightning_data_parallel(self) -> Optional[Tuple[Step, bool]]:
        from .libraries import DATA_PARALLEL_STRATEGIES, LIGHTNING_SAMPLER_SWITCHES, LIGHTNING_TRAINERS

        plain = None
        for ref in self.project.calls_named("Trainer"):
            site = self.project.call(ref)
            keywords = dict(site.keywords)
            ctx = self.resolver.context(ref.module, site.scope)
            if not any(isinstance(f.obj, Ext) and f.obj.qualname in LIGHTNING_TRAINERS for f in self.resolver.eval(site.func, ctx)):
                continue
            strategy = self.resolver.eval(keywords["strategy"], ctx) if "strategy" in keywords else ()
            nodes = self.resolver.eval(keywords["num_nodes"], ctx) if "num_nodes" in keywords else ()
            if not (any(isinstance(f.obj, Lit) and isinstance(f.obj.value, str)
                        and f.obj.value.startswith(DATA_PARALLEL_STRATEGIES) for f in strategy)
                    or any(isinstance(f.obj, Lit) and type(f.obj.value) is int and f.obj.value > 1 for f in nodes)):
                continue
            switch = next((keywords[k] for k in LIGHTNING_SAMPLER_SWITCHES if k in keywords), None)
            if switch is not None and externals.truthiness(self.resolver.eval(switch, ctx)) == "false":
                return Step(ref.module, site.span, "the Trainer, told `use_distributed_sampler=False`"), True
            if plain is None:
                plain = Step(ref.module, site.span, "the Trainer, running data-parallel ranks"), False
        return plain

    def rank_split(self, loader, framework: bool = True) -> Tuple[str, Trail]:
        """How a loader's data is split across distributed ranks: ("none", why) when nothing
        splits it (no sampler, or only samplers that ignore the rank, and a dataset whose
        code and construction never mention a rank), ("split", where) when something does
        (a ``DistributedSampler``, a rank-aware sampler, a dataset sharded by rank, a
        framework unless ``framework`` is false), ("unknown", ()) when the model cannot tell."""
        if framework and self.managed(loader):
            return "split", ()
        spec = self.spec(loader)
        if spec is None or (spec.library not in ("torch", "torchdata") and not TORCH_SAMPLING.intersection(spec.names)):
            return "unknown", ()
        why: Trail = ()
        for name in ("sampler", "batch_sampler"):
            given = self.argument(loader, name)
            if given is None:
                continue
            verdict, trail = self._sampler_split(given, 0)
            if verdict != "none":
                return verdict, trail
            why += trail
        for found in self.value(loader, "dataset"):
            if isinstance(found.obj, Lit) and found.obj.value is None:
                continue  # ``self.train_ds = None`` until ``setup()`` builds it: no loader is made of that
            verdict, trail = self._dataset_split(found, 0)
            if verdict != "none":
                return verdict, trail
            why += trail
        return "none", why

    def _sampler_split(self, results: Results, depth: int) -> Tuple[str, Trail]:
        if not results:
            return "unknown", ()  # nothing known of it: not a sampler known to ignore the rank
        why: Trail = ()
        for found in results:
            obj = found.obj
            if isinstance(obj, Lit) and obj.value is None:
                continue
            if not isinstance(obj, Inst) or obj.site is None or depth > 2:
                return "unknown", found.trail
            step = Step(obj.site.module, self.project.call(obj.site).span, "a sampler that ignores the rank")
            if isinstance(obj.cls, Ext):
                last = obj.cls.qualname.rpartition(".")[2]
                if not obj.cls.qualname.startswith("torch.utils.data") or last not in RANK_BLIND_SAMPLERS:
                    return ("split" if "Distributed" in last else "unknown"), found.trail + (step._replace(
                        note="the sampler"),)
                if last == "BatchSampler":
                    inner = self.resolver.keyword_at(obj.site, obj.ctx, "sampler", 0)
                    verdict, trail = self._sampler_split(inner or UNKNOWN_RESULT, depth + 1)
                    if verdict != "none":
                        return verdict, trail
                why += (step,)
                continue
            if any(isinstance(i, Ext) and "Distributed" in i.qualname.rpartition(".")[2] for i in self.resolver.mro(obj.cls)):
                return "split", (step._replace(note="a `DistributedSampler` subclass"),)
            if self._rank_aware(obj.cls) or self._mentions_rank(obj.site, obj.ctx):
                return "split", (step._replace(note="a rank-aware sampler"),)
            inner = self.wrapped_samplers(obj)
            if inner:  # ``BucketBatchSampler(DistributedSampler(ds), lengths, 64)`` draws from the one it wraps
                verdict, trail = self._sampler_split(inner, depth + 1)
                if verdict != "none":
                    return verdict, trail + (step._replace(note="a sampler drawing from it"),)
            if any(isinstance(i, Ext) and not i.qualname.startswith(("torch.utils.data", "builtins"))
                   for i in self.resolver.mro(obj.cls)):
                return "unknown", ()
            why += (step,)
        return "none", why

    def wrapped_samplers(self, obj: Inst) -> Results:
        """The samplers a project sampler is built with (the one it draws its indexes from)."""
        def is_sampler(cls) -> bool:
            chain = self.resolver.mro(cls) if isinstance(cls, Cls) else (cls,)
            return any(isinstance(item, Ext) and item.qualname.rpartition(".")[2].endswith("Sampler") for item in chain)

        return tuple(f for f in self.constructor_arguments(obj) if isinstance(f.obj, Inst) and is_sampler(f.obj.cls))

    def _dataset_split(self, found: Found, depth: int) -> Tuple[str, Trail]:
        obj = found.obj
        if isinstance(obj, Inst) and obj.site is None and isinstance(obj.cls, Ext) \
                and obj.cls.qualname.startswith(HF_DATASETS) and obj.cls.qualname.endswith("[]") \
                and _rank_blind(obj.cls.qualname):
            return "none", ()  # ``load_from_disk(path)["train"]``: a split of a Hugging Face dataset, whole
        if not isinstance(obj, Inst) or obj.site is None or depth > 3:
            return "unknown", ()
        step = Step(obj.site.module, self.project.call(obj.site).span, "the dataset, whole on every rank")
        if self._mentions_rank(obj.site, obj.ctx):
            return "split", (step._replace(note="the dataset is built for its rank"),)
        if isinstance(obj.cls, Cls):
            if self._rank_aware(obj.cls):
                return "split", (step._replace(note="the dataset splits itself by rank"),)
            if any(isinstance(i, Ext) and not _rank_blind(i.qualname)
                   for i in self.resolver.mro(obj.cls)):
                return "unknown", ()
        elif not _rank_blind(obj.cls.qualname):
            return "unknown", ()
        # the datasets it wraps: Subset(dataset, ...), ConcatDataset([...]), a project stream over
        # another (``PackedBlocks(JsonlDocuments(files))``, the inner one split by rank)
        for inner in self.constructor_arguments(obj):
            parts = self.resolver.container_values(inner.obj) if isinstance(inner.obj, Container) else (inner,)
            for part in parts:
                if isinstance(part.obj, Inst) and self._is_dataset_object(part.obj):
                    verdict, trail = self._dataset_split(part, depth + 1)
                    if verdict != "none":
                        return verdict, trail
                elif isinstance(part.obj, Inst) and self._is_sampler_object(part.obj):
                    # a stream drawing its indexes from a sampler (``ToIterableDataset(ds, sampler)``)
                    verdict, trail = self._sampler_split((part,), depth + 1)
                    if verdict == "split":
                        return verdict, trail
        return "none", (step,)

    def _is_sampler_object(self, obj: Inst) -> bool:
        return any(isinstance(item, Ext) and item.qualname.startswith("torch.utils.data")
                   and item.qualname.rpartition(".")[2] == "Sampler" for item in self.resolver.mro(obj.cls)) \
            if isinstance(obj.cls, Cls) else (obj.cls.qualname.startswith("torch.utils.data")
                                              and obj.cls.qualname.endswith("Sampler"))

    def _is_dataset_object(self, obj: Inst) -> bool:
        if isinstance(obj.cls, Cls):
            return self.is_dataset_class(obj.cls)
        return isinstance(obj.cls, Ext) and obj.cls.qualname.startswith(("torch.utils.data", "torchvision.datasets")) \
            and obj.cls.qualname.rpartition(".")[2][:1].isupper()

    def _rank_aware(self, cls: Cls) -> bool:
        """Whether the code of a project class (and of its project bases) mentions a rank,
        a world size, replicas or shards (``dist.get_rank()``, ``self.rank``, ``RANK``), itself
        or in the project functions its methods call, two calls down (a stream handing its
        file list to ``shards_for_this_process(self.shards)``, which splits it by rank)."""
        for item in self.resolver.mro(cls):
            if not isinstance(item, Cls):
                continue
            klass = self.project.klass(item.module, item.qualname)
            for method in klass.methods if klass is not None else ():
                if self._mentions_rank_in(Func(item.module, f"{item.qualname}.{method}"), Inst(cls), 2):
                    return True
        return False

    def _mentions_rank_in(self, func: Func, self_obj, depth: int) -> bool:
        """The code of ``func`` names a rank (see ``_rank_aware``), or a function it calls does."""
        summary = self.project.summary(func.module)
        function = summary.functions.get(func.qualname) if summary is not None else None
        if function is None:
            return False
        variables = set(function.loads) | {p.name for p in function.params}
        if any(_rank_word(n) for n in function.attr_loads) or any(_rank_word(n, variable=True) for n in variables):
            return True
        for index in sites_in_scope(self.project, func.module, func.qualname):
            site = summary.calls[index]
            if any(isinstance(a, Const) and isinstance(a.value, str) and _rank_word(a.value) for a in site.args):
                return True
        return depth > 0 and any(self._mentions_rank_in(callee, bound, depth - 1)
                                 for callee, bound, _ in self.callees(func, self_obj) if callee != func)

    def _mentions_rank(self, ref: SiteRef, ctx: Optional[Ctx], depth: int = 2) -> bool:
        """Whether the call at ``ref`` is written with a rank or a world size, directly or
        through the names it uses (what they are assigned, what callers pass for them)."""
        site = self.project.call(ref)
        return self._source_mentions_rank(ref.module, site.scope, site.span, depth)

    def _source_mentions_rank(self, module: str, scope: str, span, depth: int) -> bool:
        """The source at ``span`` names a rank (``rank``, ``get_world_size()``, ``"RANK"``,
        ``num_shards``), or uses a name bound to something that does. Read from the text,
        which keeps what values do not (``files[rank::world_size]``)."""
        text = self.project.text_of(module, span)
        words = sorted(set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)))
        if any(_rank_word(word) for word in words):
            return True
        names = sorted(set(re.findall(r"(?<![\w.])[A-Za-z_][A-Za-z0-9_]*", text)))  # not ``args.model``'s ``model``
        return depth > 0 and any(self._name_mentions_rank(module, scope, name, depth - 1) for name in names[:32])

    def _name_mentions_rank(self, module: str, scope: str, name: str, depth: int) -> bool:
        """What ``name`` is assigned in ``scope`` (or in the module) mentions a rank; for a
        parameter, what its callers pass."""
        memo = self.__dict__.setdefault("_rank_names", {})
        key = (module, scope, name, depth)
        if key not in memo:
            memo[key] = False  # recursion guard
            memo[key] = self._binding_mentions_rank(module, scope, name, depth)
        return memo[key]

    def _binding_mentions_rank(self, module: str, scope: str, name: str, depth: int) -> bool:
        function = self.project.function(module, scope) if scope else None
        owner = function.bindings if function is not None else self.project.summary(module).bindings
        for binding in owner.get(name, ())[:8]:
            if binding.kind in ("assign", "loop", "with"):
                if binding.kind == "assign" and self._is_device(binding.value, module, scope):
                    continue  # ``device = torch.device(f"cuda:{local_rank}")``: where it computes, not what it reads
                statement = Span(binding.span.row, 1, max(binding.span.row, binding.pos // 65536) + 1, 1)
                if self._source_mentions_rank(module, scope, statement, depth):
                    return True
        params = [p.name for p in function.params] if function is not None else []
        if name not in params:
            return False
        position = params.index(name) - (1 if function.scope_kind == "class" else 0)
        for ref, _ in self.resolver.callers(Func(module, scope))[:8]:
            if self.resolver.launcher(ref) is not None:
                continue  # ``mp.spawn(run, args=(world_size, args))``: its arguments are not ``run``'s by name or place
            call = self.project.call(ref)
            spans = [span for (key, _), span in zip(call.keywords, call.keyword_spans) if key == name]
            if 0 <= position < len(call.args) and not any(isinstance(a, Starred) for a in call.args[:position + 1]):
                spans.append(call.arg_spans[position])
            if any(self._source_mentions_rank(ref.module, call.scope, span, depth) for span in spans):
                return True
        return False

    def _is_device(self, value, module: str, scope: str) -> bool:
        """``value`` is a device (the model keeps ``torch.device("cuda:1")`` as its string)."""
        results = self.resolver.eval(value, self.resolver.context(module, scope))
        return bool(results) and all(isinstance(f.obj, Lit) and type(f.obj.value) is str
                                     and device_kind(f.obj) in ("cuda", "cpu") for f in results)

    # batches --------------------------------------------------------------------------------
    def batch_moves(self) -> List[Move]:
        """Copies of host batches to a device, each with the loader the batch came from: in
        the modules summarised up front, and in the modules the code holding a loader hands
        it or its batches to (``batch = to_device(batch, device)`` from ``utils.py``, a file
        the pre-filter skips because nothing in it names a loader; see ``_handoff_modules``)."""
        if self._moves is not None:
            return self._moves
        found: List[Move] = []
        for method in MOVE_METHODS:
            for ref in self.project.calls_named(method):
                found.extend(self._moves_at(ref, method))
        for module in self.handoff_modules():
            for index, site in enumerate(self.project.summary(module).calls):
                if isinstance(site.func, Attr) and site.func.name in MOVE_METHODS:
                    found.extend(self._moves_at(SiteRef(module, index), site.func.name))
        self._moves = found
        return found

    def _moves_at(self, ref: SiteRef, method: str) -> List[Move]:
        site = self.project.call(ref)
        if not isinstance(site.func, Attr):
            return []
        ctx = self.resolver.context(ref.module, site.scope)
        if method == "to" and device_target(self.resolver, ref, ctx) in (None, "cpu"):
            return []
        if method == "type" and not self._cuda_type(site, ctx):
            return []
        return [Move(result.obj.loader, ref.module, ref.index, site, method,
                     self._non_blocking(site, ref, ctx, method), result.trail)
                for result in self.resolver.eval(site.func.base, ctx)
                if isinstance(result.obj, Batch) and not result.obj.on_device
                and not self._collated_with_own(result.obj.loader, method)]

    def _collated_with_own(self, loader, method: str) -> bool:
        """The loader's ``collate_fn`` returns instances of project classes that define
        ``method`` themselves (a batch dataclass with its own ``to(device)``): calling it runs
        the project's method, whose own copies are examined where they are written."""
        key = (loader, method)
        found = self._own_moves.get(key)
        if found is None:
            found = False
            for given in self.argument(loader, "collate_fn") or ():
                if not isinstance(given.obj, Func):
                    continue
                function = self.project.function(given.obj.module, given.obj.qualname)
                ctx = self.resolver.context(given.obj.module, given.obj.qualname)
                made = [f.obj for value in (function.returns if function is not None else ())
                        for f in self.resolver.eval(value, ctx)]
                if made and all(self._has_own(obj, method) for obj in made):
                    found = True
                elif function is not None and self._builds_own(given.obj, method):
                    found = True  # ``(NestedTensor(...), targets)``: which part is moved is not told apart
            self._own_moves[key] = found
        return found

    def _has_own(self, obj, method: str) -> bool:
        return isinstance(obj, Inst) and isinstance(obj.cls, Cls) and self.resolver.method(obj.cls, method) is not None

    def _builds_own(self, func: Func, method: str) -> bool:
        """A ``collate_fn`` that puts an instance of a project class with its own ``method`` into
        the batch it returns (DETR's ``batch[0] = nested_tensor_from_tensor_list(batch[0])``)."""
        summary = self.project.summary(func.module)
        ctx = self.resolver.context(func.module, func.qualname)
        return any(self._has_own(found.obj, method)
                   for index in sites_in_scope(self.project, func.module, func.qualname)
                   for found in self.resolver.eval(Call(index), ctx)) if summary is not None else False

    def _cuda_type(self, site: CallSite, ctx: Ctx) -> bool:
        """``x.type(torch.cuda.FloatTensor)`` copies to the GPU."""
        if not site.args:
            return False
        for found in self.resolver.eval(site.args[0], ctx):
            obj = found.obj
            if isinstance(obj, Ext) and ".cuda." in obj.qualname:
                return True
            if isinstance(obj, Inst) and isinstance(obj.cls, Ext) and ".cuda." in obj.cls.qualname:
                return True
        return False

    def _non_blocking(self, site: CallSite, ref: SiteRef, ctx: Ctx, method: str) -> str:
        for name, value in site.keywords:
            if name == "non_blocking":
                return truthiness(self.resolver.eval(value, ctx))
            if name is None:
                return "unknown"
        positional = {"cuda": 1, "to": 2, "type": 1}[method]
        if len(site.args) > positional:
            return truthiness(self.resolver.eval(site.args[positional], ctx))
        if method == "to" and len(site.args) == 2:
            second = self.resolver.eval(site.args[1], ctx)
            if all(isinstance(f.obj, type(None)) for f in second):
                return "false"
            if any(device_kind(f.obj) != "dtype" for f in second) and truthiness(second) != "unknown":
                return truthiness(second)
        return "false"

    # what workers run -------------------------------------------------------------------
    def worker_code(self, loader) -> List[WorkerFunction]:
        """The functions ``loader``'s workers run, entry points first."""
        base = loader_facts.base_loader(loader)
        key = base
        if key in self._worker_code:
            return self._worker_code[key]
        entries: List[WorkerFunction] = []
        trail = self._given_trail(base)
        for found in self.value(base, "dataset"):
            entries.extend(self.dataset_entries(found.obj, trail + found.trail))
        result = self.worker_closure(entries + self._loader_callables(base, trail))
        self._worker_code[key] = result
        return result

    def worker_code_with(self, loader, dataset) -> List[WorkerFunction]:
        """The functions ``loader``'s workers run when its dataset is ``dataset``, one of the
        datasets it may be given (a config's choice): that dataset's code and the loader's own
        callables, not the other choices'."""
        base = loader_facts.base_loader(loader)
        trail = self._given_trail(base)
        return self.worker_closure(self.dataset_entries(dataset, trail) + self._loader_callables(base, trail))

    def _given_trail(self, base) -> Trail:
        """The first step of a worker entry's trail: the loader it is given to."""
        step = loader_facts.construction_step(self.resolver, base, "given to this loader")
        return (step,) if step else ()

    def _loader_callables(self, base, trail: Trail) -> List[WorkerFunction]:
        """The callables a loader hands its workers besides the dataset: ``collate_fn``,
        ``worker_init_fn``, and a library loader's per-sample functions (detectron2's mapper)."""
        entries: List[WorkerFunction] = []
        for role in ("collate_fn", "worker_init_fn"):
            for found in self.argument(base, role) or ():
                entries.extend(self.callable_entries(found.obj, role, trail + found.trail))
        spec = self.spec(base)
        for name in spec.kept_by_dataset if spec is not None else ():  # detectron2's mapper runs per sample
            for found in self.argument(base, name) or ():
                entries.extend(self.callable_entries(found.obj, name, trail + found.trail))
        return entries

    def dataset_entries(self, obj, trail: Trail, depth: int = 0,
                        expanded: Optional[Dict[object, int]] = None) -> List[WorkerFunction]:
        """The methods a worker calls on a dataset object (and on datasets it wraps).
        ``expanded``: the depth each object was expanded at in this walk; one reached again no
        shallower adds nothing new (wrapper datasets of wrapper datasets fan out)."""
        entries: List[WorkerFunction] = []
        if depth > 3:
            return entries
        expanded = {} if expanded is None else expanded
        if expanded.get(obj, 99) <= depth:
            return entries
        expanded[obj] = depth
        if isinstance(obj, Inst) and isinstance(obj.cls, Cls):
            for name in WORKER_METHODS + self._library_item_hooks(obj.cls):
                method = self.resolver.method(obj.cls, name)
                if method is not None:
                    entries.append(WorkerFunction(method, obj, "dataset", trail))
            for held, step in self.held_datasets(obj):  # a wrapper (RepeatDataset) indexes what it holds
                entries.extend(self.dataset_entries(held.obj, trail + (step,) + held.trail, depth + 1, expanded))
        elif isinstance(obj, Inst) and isinstance(obj.cls, Ext) and obj.site is not None:
            # a library dataset (ImageFolder(transform=...), ConcatDataset([...])): what it was given runs in workers
            for found in self.constructor_arguments(obj):
                if found.obj == obj:
                    continue
                entries.extend(self.callable_entries(found.obj, "transform", trail + found.trail, depth + 1))
                entries.extend(self.dataset_entries(found.obj, trail + found.trail, depth + 1, expanded))
        elif isinstance(obj, Container):
            for found in self.resolver.container_values(obj):
                entries.extend(self.dataset_entries(found.obj, trail + found.trail, depth + 1, expanded))
        return entries

    def _library_item_hooks(self, cls: Cls) -> Tuple[str, ...]:
        """The methods a library base's ``__getitem__`` calls on the project's subclass, when
        the subclass does not define ``__getitem__`` itself (``LIBRARY_ITEM_HOOKS``)."""
        method = self.resolver.method(cls, "__getitem__")
        if method is not None:
            return ()
        return tuple(hook for item in self.resolver.mro(cls) if isinstance(item, Ext)
                     for hook in LIBRARY_ITEM_HOOKS.get(item.qualname, ()))

    def held_datasets(self, dataset: Inst) -> List[Tuple[Found, Step]]:
        """The datasets a project dataset keeps on ``self`` (a wrapper's ``self.dataset``, the list a
        concatenating dataset holds), each with the step that stores it: the wrapper's
        ``__getitem__`` indexes them, so their code runs where the wrapper's does."""
        found = self._held.get(dataset)
        if found is None:
            found = self._held[dataset] = self._held_datasets(dataset)
        return found

    def _held_datasets(self, dataset: Inst) -> List[Tuple[Found, Step]]:
        out = []
        for child, step in self._pickled_children(dataset):
            if step is None:
                continue
            parts = self.resolver.container_values(child.obj) if isinstance(child.obj, Container) else (child,)
            for part in parts:
                if isinstance(part.obj, Inst) and part.obj != dataset and self._is_dataset_object(part.obj):
                    out.append((part, step))
        return out

    def constructor_arguments(self, inst: Inst) -> Results:
        """What an outside object keeps of the arguments it was built with (nothing, for a call
        that computes a value: ``torch.ByteTensor(list(map(f, ...)))`` keeps no ``f``)."""
        if isinstance(inst.cls, Ext) and externals.computes_value(inst.cls.qualname):
            return ()
        site = self.project.call(inst.site)
        ctx = inst.ctx or self.resolver.context(inst.site.module, site.scope)
        name = inst.cls.qualname.rpartition(".")[2]
        return join(extend(self.resolver.eval(value, ctx), Step(inst.site.module, span, f"{note} of `{name}(...)`"))
                    for value, span, note in kept_arguments(site))

    def callable_entries(self, obj, role: str, trail: Trail, depth: int = 0) -> List[WorkerFunction]:
        """The project functions a callable object runs when a worker calls it (memoised with
        the trails from ``obj`` on: a transform list reached from every function of a
        pipeline was walked again for each, 44,000 walks of 317 objects in timm)."""
        memo = self._entries
        key = (obj, role, depth)
        found = memo.get(key)
        if found is None:
            found = memo[key] = self._callable_entries(obj, role, depth)
        if not trail:
            return list(found)
        return [entry._replace(trail=trail + entry.trail) for entry in found]

    def _callable_entries(self, obj, role: str, depth: int) -> List[WorkerFunction]:
        trail: Trail = ()
        if depth > MAX_CALLABLE_NESTING:  # a list in a ``RandomApply`` in a ``Compose``'s list: 4
            return []
        if isinstance(obj, Func):
            return [WorkerFunction(obj, None, role, trail)]
        if isinstance(obj, Bound):
            return [WorkerFunction(obj.func, obj.self_obj, role, trail)]
        if isinstance(obj, Inst) and isinstance(obj.cls, Cls):
            method = self.resolver.called_method(obj.cls)
            return [WorkerFunction(method, obj, role, trail)] if method is not None else []
        if isinstance(obj, Inst) and isinstance(obj.cls, Ext) and obj.cls.qualname == "functools.partial" and obj.site:
            held = obj.ctx or self.resolver.context(obj.site.module, self.project.call(obj.site).scope)
            return [WorkerFunction(found.obj, None, role, trail + found.trail,  # its arguments bind parameters
                                   Ctx(found.obj.module, found.obj.qualname, obj.site, held, None, 1))
                    for found in self.resolver.keyword_at(obj.site, obj.ctx, "func", 0) or ()
                    if isinstance(found.obj, Func)]
        if isinstance(obj, Inst) and isinstance(obj.cls, Ext) and obj.site is not None:
            out: List[WorkerFunction] = []
            for found in self.constructor_arguments(obj):  # Compose([...]), Lambda(f)
                out.extend(self.callable_entries(found.obj, role, trail + found.trail, depth + 1))
            return out
        if isinstance(obj, Container):
            out = []
            for found in self.resolver.container_values(obj):
                out.extend(self.callable_entries(found.obj, role, trail + found.trail, depth + 1))
            return out
        return []

    def worker_closure(self, entries: List[WorkerFunction]) -> List[WorkerFunction]:
        """Entries and everything they call (project code only), breadth first; not what they
        call only on a path the main process alone takes. A function called from one whose
        instance or arguments are known is bound to that call's arguments (``_get_pixels(...,
        device=self.device)`` in the worker's own transform), not to every caller's."""
        result: List[WorkerFunction] = []
        seen: Set[Tuple[Func, object, object]] = set()
        queue = list(entries)
        while queue and len(result) < MAX_WORKER_FUNCTIONS:
            entry = queue.pop(0)
            key = (entry.func, entry.self_obj, entry.bound)
            if key in seen:
                continue
            seen.add(key)
            result.append(entry)
            function = self.function_summary(entry.func)
            for callee in self.worker_callees(entry.func, entry.self_obj):
                span = self.project.call(callee[2]).span
                if main_process_only(function, span):
                    continue  # ``if get_worker_info() is None: self._decode_all(...)``: not in a worker
                step = Step(entry.func.module, span, "called here")
                known = callee[1] is None and (entry.self_obj is not None or entry.bound is not None)
                bound = Ctx(callee[0].module, callee[0].qualname, callee[2], entry.ctx()) if known else None
                queue.append(WorkerFunction(callee[0], callee[1], "called", entry.trail + (step,), bound))
        return result

    def callees(self, func: Func, self_obj) -> List[Tuple[Func, object, SiteRef]]:
        """Project functions called from ``func`` (with the instance for methods), also those a
        library callable it calls was built with (the transforms of a ``Compose``); memoised:
        each rule walks the workers' code again."""
        key = (func, self_obj)
        found = self._callees.get(key)
        if found is None:
            found = self._callees[key] = self._callees_of(func, self_obj)
        return found

    def callees_in(self, ctx: Ctx) -> List[Tuple[Func, object, SiteRef]]:
        """``callees`` of the function ``ctx`` runs, evaluated in ``ctx`` (with its call's
        arguments when it has one); memoised per context."""
        if ctx.call is None:
            return self.callees(Func(ctx.module, ctx.scope), ctx.self_obj)
        found = self._callees.get(ctx)
        if found is None:
            found = self._callees[ctx] = self._callees_of(Func(ctx.module, ctx.scope), ctx.self_obj, ctx)
        return found

    def worker_callees(self, func: Func, self_obj) -> List[Tuple[Func, object, SiteRef]]:
        """``callees``, and the ``__init__`` of each project class ``func`` constructs: a worker
        building an object runs its constructor there (``VectorEnv(...)`` in ``__getitem__``
        starting simulator processes). Kept to worker code, whose every call runs in the worker;
        code the main process runs is followed through the calls it makes by name."""
        key = ("worker", func, self_obj)
        found = self._callees.get(key)
        if found is None:
            found = self._callees[key] = self._callees_of(func, self_obj, constructions=True)
        return found

    def _callees_of(self, func: Func, self_obj, ctx: Optional[Ctx] = None,
                    constructions: bool = False) -> List[Tuple[Func, object, SiteRef]]:
        out = []
        summary = self.project.summary(func.module)
        if summary is None:
            return out
        ctx = ctx or Ctx(func.module, func.qualname, None, None, self_obj)
        for index in sites_in_scope(self.project, func.module, func.qualname):
            site = summary.calls[index]
            ref = SiteRef(func.module, index)
            parent = self.resolver.super_method(site.func.base, site.func.name, ctx) \
                if isinstance(site.func, Attr) else None
            if parent is not None:
                targets = (Found(parent),)
            elif isinstance(site.func, Attr):
                receivers = self.resolver.eval(site.func.base, ctx)
                targets = join(self.resolver.attribute(r, site.func.name, ctx) for r in receivers)
            else:
                targets = self.resolver.eval(site.func, ctx)
            for found in targets:
                obj = found.obj
                if isinstance(obj, Func):
                    out.append((obj, None, ref))
                elif isinstance(obj, Bound):
                    out.append((obj.func, obj.self_obj, ref))
                elif isinstance(obj, Inst) and isinstance(obj.cls, Cls):
                    method = self.resolver.called_method(obj.cls)
                    if method is not None:
                        out.append((method, obj, ref))
                elif constructions and isinstance(obj, Cls):  # runs ``__init__`` on the new object
                    method = self.resolver.method(obj, "__init__")
                    if method is not None:
                        out.append((method, Inst(obj, ref, ctx), ref))
                elif isinstance(obj, Inst) and isinstance(obj.cls, Ext) and obj.site is not None:
                    # a library callable built from project ones (``self.base_transform(x)`` holding a
                    # ``Compose([Blur(), ...])``): calling it runs what it was built with
                    out.extend((entry.func, entry.self_obj, ref) for entry in self.callable_entries(obj, "called", ()))
            if not any(isinstance(found.obj, (Func, Bound)) for found in targets):
                out.extend(self._callbacks(site, ref, ctx, self_obj))
        return out

    def _callbacks(self, site: CallSite, ref: SiteRef, ctx: Ctx, self_obj) -> List[Tuple[Func, object, SiteRef]]:
        """Functions a call outside the project is handed to run (``map(lambda p: load(p, 224),
        paths)``, ``pool.map(self.decode, frames)``, ``executor.submit(read, path)``): a lambda or
        a nested ``def`` given as an argument, and a project function or method given to a
        higher-order call (a project callee's own calls of its parameter are followed there)."""
        out: List[Tuple[Func, object, SiteRef]] = []
        higher_order = last_name(site.func) in HIGHER_ORDER_CALLS
        for value in [*site.args, *(v for _, v in site.keywords)]:
            if type(value) is FunctionRef:
                out.append((Func(ref.module, value.qualname), self_obj, ref))
            elif higher_order and type(value) in (Name, Attr):
                for found in self.resolver.eval(value, ctx):
                    if isinstance(found.obj, Func):
                        out.append((found.obj, None, ref))
                    elif isinstance(found.obj, Bound):
                        out.append((found.obj.func, found.obj.self_obj, ref))
        return out

    # what spawn pickles ----------------------------------------------------------------------
    def pickled(self, loader) -> List[Tuple[object, str, Trail]]:
        """Every object spawn/forkserver pickle to start ``loader``'s workers: the dataset and
        what it holds, ``collate_fn``, ``worker_init_fn`` (with the role and the path)."""
        base = loader_facts.base_loader(loader)
        spec = self.spec(base)
        step = loader_facts.construction_step(self.resolver, base, "given to this loader")
        roots = [(f, "dataset") for f in self.value(base, "dataset")]
        for name in spec.kept_by_dataset if spec is not None else ():
            roots.extend((f, "dataset") for f in self.argument(base, name) or ())
        for role in ("collate_fn", "worker_init_fn"):
            if role == "collate_fn" and spec is not None and spec.ignores_collate:
                continue
            roots.extend((f, role) for f in self.argument(base, role) or ())
        return self.object_graph([(f.obj, role, ((step,) if step else ()) + f.trail) for f, role in roots])

    def set_on_given_loaders(self) -> List[Tuple[object, str, Trail]]:
        """Callables set as ``loader.collate_fn`` (or ``worker_init_fn``) on a loader the
        function does not build and then iterates itself (sentence-transformers' ``fit``
        replaces the collate function of each loader its caller hands it): no construction in
        the project says its workers, so they are unknown. A loader the analysis knows is
        judged by its construction, where the same store counts (``loaders.loader_argument``)."""
        if self._given_loader_callables is not None:
            return self._given_loader_callables
        out: List[Tuple[object, str, Trail]] = []
        for info in self.project.eager_modules():
            summary = info.summary
            for store in summary.stores:
                if store.attr not in loader_facts.SETTABLE or store.kind != "assign" or not store.scope \
                        or type(store.target) is not Name or not _iterated_in(summary, store.scope, store.target.id):
                    continue
                ctx = self.resolver.context(info.key, store.scope)
                if any(not isinstance(f.obj, Top) for f in self.resolver.eval(store.target, ctx)):
                    continue
                step = Step(info.key, store.span, f"set as `.{store.attr}` of a loader the caller gives, then iterated")
                out.extend((found.obj, store.attr, (step,) + found.trail)
                           for found in self.resolver.eval(store.value, ctx))
        self._given_loader_callables = out  # asked by DSL102 and by ``worker_runs``
        return out

    def process_targets(self) -> List[Tuple[object, str, Trail]]:
        """Callables handed to what starts processes and pickles them for each (``mp.spawn(fn)``,
        ``Process(target=fn)``, ``pool.map(fn, ...)``, ``Pool(initializer=fn)``), a context's
        starters too (``mp.get_context("spawn").Process``), with what they hold, as ``pickled``
        gives them; the role names the starter (``process:<starter>``, ``initializer:<starter>``).
        Only in modules that import ``multiprocessing`` or ``concurrent``, at module level or in
        a function (where such a call can be), or where the call names it
        (``torch.multiprocessing.spawn`` after ``import torch``)."""
        if self._targets is not None:
            return self._targets
        out: List[Tuple[object, str, Trail]] = []
        for name in sorted(PROCESS_TARGET_NAMES):
            for ref in self.project.calls_named(name):
                site = self.project.call(ref)
                if not self._imports_processes(ref.module) and ".multiprocessing." not in f".{dotted(site.func)}.":
                    continue
                ctx = self.resolver.context(ref.module, site.scope)
                for found in self.resolver.eval(site.func, ctx):
                    handed = self._handed_over(ref, found.obj) if isinstance(found.obj, Ext) else None
                    if handed is None:
                        continue
                    role, (position, keyword) = handed
                    given = self.resolver.keyword_at(ref, ctx, keyword, position) or ()
                    step = Step(ref.module, site.span, f"pickled by `{role.partition(':')[2]}`")
                    out.extend(self.object_graph([(f.obj, role, (step,) + f.trail) for f in given]))
                    break
        self._targets = out
        return out

    def spawns_processes(self, module: str) -> bool:
        """The program ``module`` starts processes that import it afresh (``mp.spawn``,
        ``start_processes`` not told fork, a spawn context's ``Process``): its own code, or a
        module it imports, makes such a call. Code under its main guard does not run in them."""
        found = self._spawning.get(module)
        if found is None:
            closure = self.import_closure(module)
            found = self._spawning[module] = any(
                role.startswith("process:") and role.rpartition(".")[2] in LAUNCHERS and trail
                and trail[0].module in closure for _obj, role, trail in self.process_targets())
        return found

    def _handed_over(self, ref: SiteRef, callee: Ext) -> Optional[Tuple[str, Tuple[int, str]]]:
        """(role, (position, keyword) of the callable) when the call pickles a callable for
        the processes it starts: a target or a pool's task (``process:<starter>``), a pool's
        initializer (``initializer:<starter>``). A pool's tasks travel through a queue,
        pickled whatever the start method; targets and initializers not when forked by choice."""
        plain = without_context(callee.qualname)
        starter = plain.replace("()", "")
        where = process_target(plain)
        if where is not None:
            task = "()." in plain
            return None if not task and self.forks(ref, callee.qualname) else (f"process:{starter}", where)
        where = POOL_INITIALIZERS.get(plain)
        if where is not None and not self.forks(ref, callee.qualname):
            return f"initializer:{starter}", where
        return None

    def _imports_processes(self, module: str) -> bool:
        found = self._process_modules.get(module)
        if found is None:
            summary = self.project.summary(module)
            scopes = [summary, *summary.functions.values()] if summary else []
            paths = [b.value.path for scope in scopes for items in scope.bindings.values() for b in items
                     if b.kind == "import" and isinstance(b.value, Imported)]
            paths += [i.path for i in (summary.imports if summary else ()) if isinstance(i, Imported)]
            found = self._process_modules[module] = any("multiprocessing" in p or p.startswith("concurrent")
                                                        for p in paths)
        return found

    def forks(self, ref: SiteRef, qualname: str, ctx: Optional[Ctx] = None) -> bool:
        """Whether the call of ``qualname`` at ``ref`` starts its processes with fork by
        choice: torch's spawn told ``start_method="fork"``, or a context that says fork
        (``mp.get_context("fork").Process``, ``Pool(context=...)``,
        ``ProcessPoolExecutor(mp_context=...)``). Nothing is pickled to start them and the
        main module is not imported again; the platform's default is not a choice."""
        ctx = ctx or self.resolver.context(ref.module, self.project.call(ref).scope)
        if qualname.startswith("torch.multiprocessing."):
            given = self.resolver.keyword_at(ref, ctx, "start_method")
            if given is not None:
                return all(isinstance(f.obj, Lit) and f.obj.value == "fork" for f in given)
        contexts = self._start_contexts(ref, qualname, ctx)
        return bool(contexts) and all(self._start_method_of(f.obj) == "fork" for f in contexts)

    def _start_contexts(self, ref: SiteRef, qualname: str, ctx: Ctx) -> Results:
        """The start-method contexts a process starter is called with: the one it is a
        member of (``ctx.Process``), or the one its ``context=``/``mp_context=`` gives."""
        site = self.project.call(ref)
        found: List[Found] = []
        if CONTEXT in qualname and isinstance(site.func, Attr):
            found.extend(self.resolver.eval(site.func.base, ctx))
        where = CONTEXT_ARGUMENTS.get(without_context(qualname))
        if where is not None:
            found.extend(self.resolver.keyword_at(ref, ctx, where[1], where[0]) or ())
        return tuple(found)

    def object_graph(self, roots, limit: int = 200) -> List[Tuple[object, str, Trail]]:
        """The objects reachable from ``roots`` the way pickle reaches them (attributes,
        constructor arguments of library objects, container items), breadth first."""
        out: List[Tuple[object, str, Trail]] = []
        seen = set()
        queue = [(obj, role, trail, 0) for obj, role, trail in roots]
        while queue and len(out) < limit:
            obj, role, trail, depth = queue.pop(0)
            if obj in seen:
                continue
            seen.add(obj)
            out.append((obj, role, trail))
            if depth >= 6 or self._pickles_itself(obj):
                continue
            for child, step in self._pickled_children(obj):
                queue.append((child.obj, role, trail + ((step,) if step else ()) + child.trail, depth + 1))
        return out

    def _pickles_itself(self, obj) -> bool:
        """A project class that decides what pickle takes of it (``__getstate__``,
        ``__reduce__``, ``__reduce_ex__``): what its attributes hold is not what is pickled."""
        if not (isinstance(obj, Inst) and isinstance(obj.cls, Cls)):
            return False
        return any(self.resolver.method(obj.cls, name) is not None for name in CUSTOM_PICKLING)

    def _pickled_children(self, obj) -> list:
        """What pickle takes of ``obj`` (with the step that stores each), memoised: the same
        dataset and transforms are in the graph of every loader built with them."""
        found = self._children.get(obj)
        if found is None:
            found = self._children[obj] = list(self._pickled_children_of(obj))
        return found

    def _pickled_children_of(self, obj):
        if isinstance(obj, Inst) and isinstance(obj.cls, Cls):
            outside = self.resolver.outside_init_call(obj)
            if outside is not None:  # what an outside base class (ImageFolder) stores from its arguments
                site, ctx, shift = outside
                call = self.project.call(site)
                for value, _, _ in kept_arguments(call, shift):
                    for found in self.resolver.eval(value, ctx or self.resolver.context(site.module, call.scope)):
                        yield found, None
            for item in self.resolver.mro(obj.cls):
                if not isinstance(item, Cls):
                    continue
                for attr, stores in self.resolver.self_stores(item).items():
                    for function, store in stores:
                        if function.name in WORKER_METHODS or store.kind == "del":
                            continue
                        ctx = self.resolver.method_ctx(obj, item.module, function)
                        if not self.resolver.branch_taken(function, store.block, ctx):
                            continue  # ``if video_loader is None:`` when this construction passes one
                        step = Step(item.module, store.span, f"stored as `self.{attr}`")
                        for found in self.resolver.eval(store.value, ctx):
                            yield found, step
            for name in SET_AFTER_ATTRS:  # ``dataset.transform = lambda d: ...`` once it is built
                for found in self.resolver.set_after(obj, name):
                    yield found, None
        elif isinstance(obj, Inst) and isinstance(obj.cls, Ext) and obj.site is not None:
            for found in self.constructor_arguments(obj):
                yield found, None
            for name in SET_AFTER_ATTRS:  # ``full.transform = Compose([...])`` after ``ImageFolder(root)``
                for found in self.resolver.set_after(obj, name):
                    yield found, None
            yield from self._set_by_method(obj)
        elif isinstance(obj, Inst) and isinstance(obj.cls, Ext):  # ``ds["train"]`` of a dataset dict
            yield from self._set_by_method(obj)
        elif isinstance(obj, Container):
            for found in self.resolver.container_values(obj):
                yield found, None
        elif isinstance(obj, Bound):
            yield Found(obj.self_obj), None
        elif isinstance(obj, Managed):
            yield Found(obj.loader), None

    def _set_by_method(self, obj: Inst):
        """What a method of an outside object stores into it after it is built: the transform of
        a Hugging Face dataset's ``ds.set_transform(f)`` (formatted items go through ``f`` in the
        worker, and the dataset pickles it)."""
        for name, keyword in INPLACE_SETTERS:
            for ref in self.project.calls_named(name):
                site = self.project.call(ref)
                if type(site.func) is not Attr:
                    continue
                ctx = self.resolver.context(ref.module, site.scope)
                if not any(same_object(f.obj, obj) for f in self.resolver.eval(site.func.base, ctx)):
                    continue
                value = site.args[0] if site.args else next((v for k, v in site.keywords if k == keyword), None)
                if value is not None:
                    step = Step(ref.module, site.span, f"stored by `.{name}(...)`")
                    for found in self.resolver.eval(value, ctx):
                        yield found, step

    def worker_runs(self) -> List[Tuple[object, Optional[loader_facts.Workers], WorkerFunction]]:
        """(loader, its workers, function) for every function worker processes may run;
        loader None for the datasets no loader of the project uses (library code), and for
        the callables set on a loader the caller gives (``set_on_given_loaders``)."""
        found = getattr(self, "_worker_runs", None)
        if found is not None:
            return found
        found = []
        for loader in self.all_loaders():
            workers = self.workers(loader)
            if not workers.processes:
                continue
            for function in self.worker_code(loader):
                found.append((loader, workers, function))
        for dataset in self.datasets_without_loader():
            for function in self.worker_closure(self.dataset_entries(dataset, ())):
                found.append((None, None, function))
        for obj, role, trail in self.set_on_given_loaders():  # a caller's loader: workers unknown
            for function in self.worker_closure(self.callable_entries(obj, role, trail)):
                found.append((None, None, function))
        self._worker_runs = found
        return found

    def fork_started(self, loader) -> bool:
        """Whether the loader's workers may be forked (no spawn/forkserver chosen for it)."""
        if loader is None:
            return True
        context = self.argument(loader, "multiprocessing_context")
        for found in context or ():
            method = self._start_method_of(found.obj)
            if method in ("spawn", "forkserver"):
                return False
        _, methods = self._start_methods_for(loader)
        return not any(method in ("spawn", "forkserver") for method in methods)

    def fork_chosen(self, loader) -> bool:
        """Whether the code chooses fork for the loader's workers explicitly: its
        ``multiprocessing_context`` is ``"fork"`` (or ``get_context("fork")``), or, without
        one, every ``set_start_method`` of its project asks for fork. Nothing is pickled
        for them and the main module is not imported again (the default start method, fork
        on Linux before Python 3.14, is not a choice: it changes with the platform)."""
        context = self.argument(loader, "multiprocessing_context")
        if context:
            return all(self._start_method_of(found.obj) == "fork" for found in context)
        known, methods = self._start_methods_for(loader)
        return known and bool(methods) and all(method == "fork" for method in methods)

    def _start_methods_for(self, loader) -> Tuple[bool, List[Optional[str]]]:
        """Whether the loader's project is known, and what the ``set_start_method`` calls of
        that project ask for (of every project when it is not)."""
        base = loader_facts.base_loader(loader)
        info = self.project.modules.get(base.site.module) if base is not None and base.site else None
        return info is not None, [call[2] for call in self.start_method_calls()
                                  if info is None or self.project.modules[call[0]].boundary == info.boundary]

    def _start_method_of(self, obj) -> Optional[str]:
        if isinstance(obj, Lit) and isinstance(obj.value, str):
            return obj.value
        if isinstance(obj, Inst) and isinstance(obj.cls, Ext) and obj.cls.qualname.endswith("get_context") and obj.site:
            first = self.resolver.keyword_at(obj.site, obj.ctx, "method", 0) or ()
            return next((f.obj.value for f in first if isinstance(f.obj, Lit) and isinstance(f.obj.value, str)), None)
        return None

    def start_method_calls(self) -> List[Tuple[str, int, Optional[str]]]:
        """(module, call index, literal method) of every ``set_start_method`` call; not that of a
        context (``mp.get_context("fork").set_start_method(...)`` sets nothing: it raises)."""
        found = getattr(self, "_start_methods", None)
        if found is None:
            found = []
            for ref in self.project.calls_named("set_start_method"):
                site = self.project.call(ref)
                ctx = self.resolver.context(ref.module, site.scope)
                names = [f.obj.qualname for f in self.resolver.eval(site.func, ctx) if isinstance(f.obj, Ext)]
                if not any(n.endswith("set_start_method") and CONTEXT not in n for n in names):
                    continue
                method = None
                if site.args:
                    values = self.resolver.eval(site.args[0], ctx)
                    method = next((f.obj.value for f in values if isinstance(f.obj, Lit)), None)
                found.append((ref.module, ref.index, method if isinstance(method, str) else None))
            self._start_methods = found
        return found

    def direct_imports(self, module: str) -> List[str]:
        """The project modules ``module``'s own import statements name (one hop)."""
        info = self.project.modules.get(module)
        summary = self.project.summary(module) if info is not None else None
        out: List[str] = []
        for imported in summary.imports if summary is not None else ():
            target, _ = self.project.split_import(info, self.project.absolute(info, imported))
            if target is not None and target.key != module and target.key not in out:
                out.append(target.key)
        return out

    def import_closure(self, module: str) -> Set[str]:
        """Project modules executed when ``module`` is imported (its packages too)."""
        memo = self.__dict__.setdefault("_closures", {})
        if module in memo:
            return memo[module]
        seen: Set[str] = set()
        todo = [module]
        while todo and len(seen) < 2000:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            info = self.project.modules.get(current)
            if info is None:
                continue
            parts = info.name.split(".")
            for cut in range(1, len(parts)):
                parent = self.project.find_module(info, ".".join(parts[:cut]))
                if parent is not None:
                    todo.append(parent.key)
            todo.extend(self.direct_imports(current))
            summary = self.project.summary(current)
            for star in summary.star_imports if summary is not None else ():
                target, rest = self.project.split_import(info, self.project.absolute(info, star))
                if target is not None and not rest:
                    todo.extend(self._all_submodules(target))
        memo[module] = seen
        return seen

    def _all_submodules(self, package) -> List[str]:
        """The submodules a package's ``__all__`` names (``__all__ = ["cvenv", ...]``): ``from
        package import *`` imports them."""
        summary = self.project.summary(package.key)
        if summary is None or not package.is_package:
            return []
        out = []
        for binding in summary.bindings.get("__all__", ()):
            value = binding.value
            for item in value.items if type(value) is Seq else ():
                if type(item) is Const and isinstance(item.value, str):
                    found = self.project.find_module(package, f"{package.name}.{item.value}")
                    if found is not None:
                        out.append(found.key)
        return out

    # processes -------------------------------------------------------------------------------
    def process_start(self, module: str, index: int) -> Optional[str]:
        """Why the call at ``index`` starts processes directly (None: it does not); a context's
        ``Process``/``Pool`` too, unless it forks (forked processes do not import the main module)."""
        site = self.project.summary(module).calls[index]
        ctx = self.resolver.context(module, site.scope)
        name = last_name(site.func)
        if isinstance(site.func, Attr):
            if name == "start":
                for found in self.resolver.eval(site.func.base, ctx):
                    obj = found.obj
                    if isinstance(obj, Inst) and isinstance(obj.cls, Ext) \
                            and without_context(obj.cls.qualname) in PROCESS_CLASSES \
                            and not (obj.site is not None and self.forks(obj.site, obj.cls.qualname, obj.ctx)):
                        return "starts a `multiprocessing.Process`"
            entries = self._entry_points()
            if name in entries:
                for found in self.resolver.eval(site.func.base, ctx):
                    obj = found.obj
                    if isinstance(obj, Inst) and isinstance(obj.cls, Ext):
                        matched = entry_point(obj.cls.qualname, name, entries[name])
                        how = self.resolver.libraries.trainer_start(self.resolver, obj) if matched else None
                        if how == "spawn":
                            return (f"calls `{matched}(...).{name}()`, whose strategy starts a process per device "
                                    f"with spawn")
                        if matched and how != "" and not self._told_no_workers(site, ctx):
                            return f"calls `{matched}(...).{name}()`, which starts DataLoader workers"
        if datasets_pool(self, site, ctx):  # spawned pool processes import the main module too
            return f"calls `.{name}(num_proc=...)` of a `datasets` dataset, which starts a process pool"
        if name == "run" and isinstance(site.func, Attr) and self._spawning_parallel(site.func.base, ctx):
            return "calls `idist.Parallel(nproc_per_node=...).run()`, which spawns a process per device"
        if name == "LightningCLI" and self._runs_cli(site, ctx):
            return "builds `LightningCLI(...)`, which runs its subcommand (`fit`) and starts DataLoader workers"
        if name in PROCESS_STARTERS_LAST:
            here = SiteRef(module, index)
            for found in self.resolver.eval(site.func, ctx):
                qualname = found.obj.qualname if isinstance(found.obj, Ext) else ""
                if without_context(qualname) in PROCESS_STARTERS and not self.forks(here, qualname, ctx):
                    return f"calls `{qualname}`"
        return None

    def _runs_cli(self, site: CallSite, ctx: Ctx) -> bool:
        """``site`` builds Lightning's ``LightningCLI`` and lets it run (no ``run=False``)."""
        if not any(isinstance(f.obj, Ext) and f.obj.qualname in CLI_RUNNERS for f in self.resolver.eval(site.func, ctx)):
            return False
        told = dict((k, v) for k, v in site.keywords if k).get("run")
        return told is None or not all(type(f.obj) is Lit and f.obj.value is False for f in self.resolver.eval(told, ctx))

    def _spawning_parallel(self, value, ctx: Ctx) -> bool:
        """``value`` is an ignite ``Parallel`` told ``nproc_per_node``: its ``run`` spawns the
        processes itself (without it, a launcher such as torchrun started them)."""
        for found in self.resolver.eval(value, ctx):
            obj = found.obj
            if isinstance(obj, Inst) and isinstance(obj.cls, Ext) and obj.site is not None \
                    and obj.cls.qualname in IGNITE_PARALLEL:
                given = self.resolver.keyword_at(obj.site, obj.ctx or ctx, "nproc_per_node")
                if given and not any(type(f.obj) is Lit and f.obj.value is None for f in given):
                    return True
        return False

    def _told_no_workers(self, site: CallSite, ctx: Ctx) -> bool:
        """An entry point given zero workers (``model.val(data=..., workers=0)``): its loaders
        start no processes."""
        for key, value in site.keywords:
            if key in ("workers", "num_workers"):
                found = self.resolver.eval(value, ctx)
                return bool(found) and all(type(f.obj) is Lit and f.obj.value == 0 for f in found)
        return False

    def _entry_points(self) -> Dict[str, List[Tuple[str, str]]]:
        found = getattr(self, "_entry_table", None)
        if found is None:
            extra = tuple(getattr(self.settings, "trainer_entry_points", ()) or ())
            found = {}
            for entry in ENTRY_POINTS + tuple(e for e in extra if isinstance(e, str) and e.count(".") >= 2):
                package, cls, method = split_entry_point(entry)
                found.setdefault(method, []).append((package, cls))
            self._entry_table = found
        return found

    def starts_workers(self, func: Func) -> Optional[Tuple[str, Trail]]:
        """Why calling ``func`` starts worker processes (iterates a loader with workers,
        starts a pool or a trainer), directly or through what it calls. Further down, a
        generic helper turning what its caller hands it into a list or tuple
        (``type(obj)(*list(generator))``) counts only as ``func`` itself: which loader may
        reach such a helper depends on its callers, not on this chain."""
        own = self._direct_start(func.module, func.qualname)
        if own is not None:
            return own
        memo = self.__dict__.setdefault("_starts", {})
        found = self.through_calls(func, lambda f: self._direct_start(f.module, f.qualname, nested=True), memo)
        if found is None:
            return None
        (reason, trail), names, steps = found
        for name in reversed(names):
            reason = f"calls `{name}()`, which {reason}"
        return reason, steps + trail

    def through_calls(self, func: Func, direct, memo: dict, depth: Optional[int] = None):
        """(``direct``'s answer, names of the functions called on the way, their call steps)
        for the first function that ``direct`` answers for: ``func`` itself, else the
        project functions it calls, depth first in call order, up to ``depth`` calls down
        (None: no bound). ``memo`` keeps the answers per function and guards recursion."""
        if func in memo:
            return memo[func]
        memo[func] = None  # recursion guard
        answer = direct(func)
        result = (answer, (), ()) if answer is not None else None
        if result is None and (depth is None or depth > 0):
            for callee, _, ref in self.callees(func, None):
                inner = self.through_calls(callee, direct, memo, None if depth is None else depth - 1)
                if inner is not None:
                    name = callee.qualname.rpartition(".")[2]
                    step = Step(ref.module, self.project.call(ref).span, f"calls `{name}()`")
                    result = (inner[0], (name,) + inner[1], (step,) + inner[2])
                    break
        memo[func] = result
        return result

    def _direct_start(self, module: str, scope: str, nested: bool = False) -> Optional[Tuple[str, Trail]]:
        """Why ``scope`` itself starts workers (``nested``: reached through calls, where its
        conversions of a parameter to a list do not count)."""
        for iteration in self.iterations():
            if iteration.module != module or iteration.scope != scope:
                continue
            if nested and iteration.loop is None and self._converts_parameter(iteration):
                continue
            workers = self.workers(iteration.loader)
            if workers.processes:
                step = Step(module, iteration.span, "iterates the loader")
                return (f"iterates a DataLoader with {workers.describe()} workers",
                        (step, loader_facts.construction_step(self.resolver, iteration.loader)))
        for index in sites_in_scope(self.project, module, scope):
            reason = self.process_start(module, index)
            if reason is not None:
                return reason, (Step(module, self.project.summary(module).calls[index].span, "here"),)
        return None

    # datasets -------------------------------------------------------------------------------
    def is_dataset_class(self, cls) -> bool:
        found = self._is_dataset.get(cls)
        if found is None:
            found = any(isinstance(item, Ext) and (item.qualname in DATASET_BASES
                                                   or item.qualname.startswith(DATASET_PACKAGES))
                        for item in self.resolver.mro(cls))
            self._is_dataset[cls] = found
        return found

    def is_iterable_dataset(self, cls) -> bool:
        return any(isinstance(item, Ext) and item.qualname in ITERABLE_BASES for item in self.resolver.mro(cls))

    def dataset_classes(self) -> List[Cls]:
        out = []
        for info in self.project.eager_modules():
            for qualname in info.summary.classes:
                cls = Cls(info.key, qualname)
                if self.is_dataset_class(cls):
                    out.append(cls)
        return out

    def loaders_of_dataset(self, cls: Cls) -> List[object]:
        """The loaders whose dataset may be an instance of ``cls`` (or of a subclass)."""
        out = []
        for loader in self.all_loaders():
            for found in self.value(loader, "dataset"):
                obj = found.obj
                if isinstance(obj, Inst) and isinstance(obj.cls, Cls) and cls in self.resolver.mro(obj.cls):
                    out.append(loader)
                    break
        return out

    def datasets_without_loader(self) -> List[Inst]:
        """Dataset classes no loader of the project uses (library code): instances of them
        stand for the datasets users will hand to loaders with workers.

        Not assumed for: classes of test modules (fixtures of a test suite, not for users);
        stubs; classes the project builds around a DataLoader (a wrapper iterated in the main
        process); and the datasets of a project that splits work by worker itself (it calls
        ``get_worker_info`` or a splitter elsewhere: its datasets are stages composed with
        that mechanism, not handed to workers as they are)."""
        found = getattr(self, "_unused_datasets", None)
        if found is not None:
            return found
        used = set()
        for loader in self.all_loaders():
            for found in self.value(loader, "dataset"):
                for dataset in self._wrapped_datasets(found.obj):
                    used.update(i for i in self.resolver.mro(dataset.cls) if isinstance(i, Cls))
        splitting = self._splitting_boundaries()
        out = []
        for cls in self.dataset_classes():
            info = self.project.modules[cls.module]
            if cls in used or self.project.klass(cls.module, cls.qualname).scope_kind == "function" \
                    or self.in_tests(info) or info.path.endswith(".pyi") or info.boundary in splitting \
                    or self._wraps_loader(cls):
                continue
            out.append(Inst(cls))
        self._unused_datasets = out
        return out

    def _wrapped_datasets(self, obj, depth: int = 0) -> List[Inst]:
        """The project datasets a loader's dataset is or wraps (held by a project wrapper, or
        given to a library one: ``Subset(Images(...))``)."""
        if not isinstance(obj, Inst) or depth > 3:
            return []
        if isinstance(obj.cls, Cls):
            inner = [held.obj for held, _ in self.held_datasets(obj)]
            return [obj] + [d for held in inner for d in self._wrapped_datasets(held, depth + 1)]
        if obj.site is None or not self._is_dataset_object(obj):
            return []
        out = []
        for found in self.constructor_arguments(obj):
            parts = self.resolver.container_values(found.obj) if isinstance(found.obj, Container) else (found,)
            for part in parts:
                out.extend(self._wrapped_datasets(part.obj, depth + 1))
        return out

    def _splitting_boundaries(self) -> Set[str]:
        """Project boundaries whose code calls a per-worker splitter (``get_worker_info``...)."""
        out = set()
        for name in SHARDING_NAMES:
            for ref in self.project.calls_named(name):
                out.add(self.project.modules[ref.module].boundary)
        return out

    def _wraps_loader(self, cls: Cls) -> bool:
        """Whether the project builds ``cls`` around a DataLoader (``Iterator(loader, fn)``)."""
        klass = self.project.klass(cls.module, cls.qualname)
        for ref in self.project.calls_named(klass.name)[:MAX_CONTEXTS]:
            site = self.project.call(ref)
            ctx = self.resolver.context(ref.module, site.scope)
            for value in list(site.args) + [v for _, v in site.keywords]:
                if any(isinstance(f.obj, Inst) and self.resolver.is_loader(f.obj) for f in self.resolver.eval(value, ctx)):
                    return True
        return False

    def defined_in_tests(self, obj) -> bool:
        """Whether a function or class is defined in a test module."""
        module = getattr(obj, "module", None) or getattr(getattr(obj, "cls", None), "module", None)
        info = self.project.modules.get(module) if module else None
        return info is not None and self.in_tests(info)

    @staticmethod
    def in_tests(info) -> bool:
        """Whether a module belongs to a test suite (by its path inside its project)."""
        return is_test_module(os.path.relpath(info.key, info.boundary))

    def all_loaders(self) -> List[object]:
        """Loaders built (in every context) and loaders reached by iterating them."""
        seen = set()
        out = []
        for loader in list(self.loaders()) + [it.loader for it in self.iterations()]:
            base = loader_facts.base_loader(loader)
            if base not in seen:
                seen.add(base)
                out.append(loader)
        return out

    def function_summary(self, func: Func) -> Optional[FunctionSummary]:
        return self.project.function(func.module, func.qualname)

    # where batches are kept (issue 17) ------------------------------------------------------
    def kept_batches(self) -> List["Kept"]:
        """Tensors of a multi-worker loader's host batches (or views of them) that a loop over
        the loader keeps across its passes (``preds.append(y.numpy())``), where the sharing
        strategy is the default ``file_descriptor``: each holds an open descriptor."""
        found = getattr(self, "_kept", None)
        if found is None:
            found = self._kept = [kept for iteration in self.iterations() for kept in _kept_in_loop(self, iteration)]
        return found

    def sharing_strategy_set(self, module: str) -> bool:
        """Whether a ``set_sharing_strategy`` call may run in the program ``module`` is part of:
        in a module it imports, or in one that imports it (an entry script)."""
        for ref in self.project.calls_named("set_sharing_strategy"):
            if ref.module in self.import_closure(module) or module in self.import_closure(ref.module):
                return True
        return False


class Kept(NamedTuple):
    """A tensor of a loader's batch kept across the passes of the loop over that loader."""

    iteration: Iteration
    module: str
    span: Span  # what keeps it: the ``append``/``extend``/``insert`` call, ``ys += [y]``, ``d[i] = x``
    value_span: Span  # the kept value as written
    holder: str  # the container, as written
    evidence: str  # why the kept value is a tensor
    trail: Trail


LAUNCHERS = frozenset({"spawn", "start_processes", "Process"})  # what starts a program's training processes
KEEPING_METHODS = frozenset({"append", "extend", "insert", "appendleft"})
# methods that return a tensor sharing the batch's storage (no copy); the first group exists
# only on tensors, so it also proves the value is one
TENSOR_VIEWS = frozenset({"numpy", "cpu", "detach", "contiguous", "permute", "unsqueeze", "view", "view_as", "narrow"})
SHARED_VIEWS = TENSOR_VIEWS | {"squeeze", "reshape", "transpose", "flatten"}
VIEW_ATTRIBUTES = frozenset({"data", "T", "mT"})
TENSOR_USES = frozenset({"cuda", "to", "size", "numel", "dim", "float", "long", "half", "double", "int", "numpy",
                         "cpu", "detach", "unsqueeze", "view", "permute", "contiguous", "pin_memory", "type"})
CONCATENATORS = frozenset({"torch.cat", "torch.stack", "torch.vstack", "torch.hstack", "torch.concat",
                           "torch.concatenate", "torch.row_stack", "torch.column_stack"})


def _unwrapped(summary, value):
    """``value``, or the first argument of the wrapping call it is (``enumerate(loader)``,
    ``tqdm(loader, ...)``, ``logger.log_every(loader, ...)``)."""
    if type(value) is Call:
        args = summary.calls[value.index].args
        return args[0] if args else None
    return value


def _parameter_named(summary, function, value) -> Optional[str]:
    """The parameter of ``function`` that ``value`` is, directly or through a wrapping call."""
    value = _unwrapped(summary, value)
    if function is not None and type(value) is Name and any(p.name == value.id for p in function.params):
        return value.id
    return None


def _iterated_in(summary, scope: str, name: str) -> bool:
    """A ``for`` loop of ``scope`` runs over the variable ``name``, directly or through a
    wrapping call."""
    for loop in summary.loops:
        if loop.scope == scope and loop.kind == "for":
            source = _unwrapped(summary, loop.iter)
            if type(source) is Name and source.id == name:
                return True
    return False


def _callee_of(obj) -> Tuple[object, int]:
    """What a call of ``obj`` runs and how many parameters the call does not pass (a bound
    method's ``self``)."""
    return (obj.func, 1) if isinstance(obj, Bound) else (obj, 0)


def _kept_in_loop(model: Model, iteration: Iteration) -> List[Kept]:
    """What the loop over the loader keeps, or the loop around a ``next()`` that draws from it
    (``batch = next(iter(loader))`` on every pass)."""
    summary = model.project.summary(iteration.module)
    index = iteration.loop
    if index is None:
        site = summary.calls[iteration.call]
        if site.loop < 0 or not (isinstance(site.func, Name) and site.func.id == "next"):
            return []
        index = site.loop
        iteration = iteration._replace(loop=index)
    loop = summary.loops[index]
    if loop.kind == "comp" or _moved_by_framework(model, iteration.loader):
        return []
    workers = model.workers(iteration.loader)
    if not workers.positive or workers.threads:
        return []
    if externals.truthiness(model.value(iteration.loader, "pin_memory")) != "false":
        return []  # pinned batches are copies (on a machine with an accelerator)
    if model.sharing_strategy_set(iteration.module):
        return []
    function = model.project.function(iteration.module, loop.scope) if loop.scope else None
    ctx = model.resolver.context(iteration.module, loop.scope)
    out = []
    for index in sites_in_scope(model.project, iteration.module, loop.scope):
        site = summary.calls[index]
        call = site.func
        if not (isinstance(call, Attr) and call.name in KEEPING_METHODS and site.args
                and loop.span.row <= site.span.row <= loop.end_row):
            continue
        if not _outlives_pass(call.base, function, loop) or _counted(model, ctx, function, iteration.loop, site) \
                or _bounded_holder(model, iteration.module, function, call.base):
            continue
        kept = _kept_tensor(model, site.args[-1], ctx, function, loop, iteration, call.base)
        if kept is None:
            continue
        trail, evidence = kept
        text = " ".join(model.project.text_of(iteration.module, site.span).split())
        holder = text.rsplit(f".{call.name}(", 1)[0] if f".{call.name}(" in text else "a list"
        out.append(Kept(iteration, iteration.module, site.span, site.arg_spans[-1], holder, evidence, trail))
    out.extend(_kept_by_statements(model, iteration, loop, function, ctx))
    out.extend(_kept_by_callees(model, iteration, loop, function, ctx))
    return out


def _moved_by_framework(model: Model, loader) -> bool:
    """A framework hands out the loader's batches on the device (a loader it prepared without
    moving, Ray's ``prepare_data_loader(loader, move_to_device=False)``, hands out host batches)."""
    return bool(model.managed(loader)) and not (isinstance(loader, Managed) and not loader.moves_batches)


def _kept_by_callees(model: Model, iteration: Iteration, loop: Loop, function, ctx: Ctx) -> List[Kept]:
    """Batch tensors a project function the loop hands the batch to keeps in an attribute of
    its own object: a callback's ``on_batch_end(trainer, batch)`` doing
    ``self.seen.append(batch["actions"])``, a trainer's ``self.validation_step(batch)`` doing
    ``self.targets.append(batch["target"])``. The object outlives the call, so every pass adds one."""
    summary = model.project.summary(iteration.module)
    out: List[Kept] = []
    for index in sites_in_scope(model.project, iteration.module, loop.scope):
        site = summary.calls[index]
        if not loop.span.row <= site.span.row <= loop.end_row or last_name(site.func) in KEEPING_METHODS:
            continue
        given = [(i, None) for i, arg in enumerate(site.args)
                 if _batch_view(model, arg, ctx, function, iteration.loader, 0) is not None]
        given += [(-1, name) for name, arg in site.keywords
                  if name and _batch_view(model, arg, ctx, function, iteration.loader, 0) is not None]
        if not given or any(type(arg) is Starred for arg in site.args):
            continue
        step = Step(iteration.module, site.span, "the batch is handed on here")
        for found in model.resolver.eval(site.func, ctx):
            callee, shift = _callee_of(found.obj)
            if isinstance(callee, Func):
                kept = _kept_by_callee(model, iteration, callee, given, shift, (step,))
                if not kept:
                    own = found.obj.self_obj if isinstance(found.obj, Bound) else None
                    kept = _kept_by_forwarded(model, iteration, callee, own, SiteRef(iteration.module, index), ctx,
                                              given, shift, step)
                out.extend(kept)
    return out


def _kept_by_forwarded(model: Model, iteration: Iteration, callee: Func, own, ref: SiteRef, ctx: Ctx, given,
                       shift: int, step: Step) -> List[Kept]:
    """What the methods keep that a dispatcher forwards the batch to through its ``*args`` or
    ``**kwargs``: mmengine's ``call_hook("after_val_iter", data_batch=batch)`` doing
    ``getattr(hook, fn_name)(self, **kwargs)`` for each hook. The forwarding call is evaluated
    in the dispatcher's context at the loop's call (the method name and the hooks are that
    call's), one level deep."""
    function = model.function_summary(callee)
    if function is None:
        return []
    star = next((p.name for p in function.params if p.kind == "vararg"), None)
    double = next((p.name for p in function.params if p.kind == "kwarg"), None)
    named = [p.name for p in function.params if p.kind in ("posonly", "pos")]
    everyone = {p.name for p in function.params}
    into_star = [i + shift - len(named) for i, name in given if name is None and i + shift >= len(named)] \
        if star is not None else []
    into_double = [name for i, name in given if name is not None and name not in everyone] if double is not None else []
    if not into_star and not into_double:
        return []
    inner = Resolver.call_context(callee, ref, ctx, own)
    summary = model.project.summary(callee.module)
    out: List[Kept] = []
    for index in sites_in_scope(model.project, callee.module, callee.qualname):
        site = summary.calls[index]
        forwarded: List[Tuple[int, Optional[str]]] = []
        stars = [k for k, arg in enumerate(site.args) if type(arg) is Starred]
        if into_star and len(stars) == 1 and stars[0] == len(site.args) - 1 \
                and type(site.args[-1].value) is Name and site.args[-1].value.id == star:
            forwarded += [(stars[0] + j, None) for j in into_star]
        if into_double and any(name is None and type(value) is Name and value.id == double
                               for name, value in site.keywords):
            forwarded += [(-1, name) for name in into_double]
        if not forwarded:
            continue
        hop = Step(callee.module, site.span, "and forwarded here")
        for found in model.resolver.eval(site.func, inner):
            target, skip = _callee_of(found.obj)
            if isinstance(target, Func) and target != callee:
                out.extend(_kept_by_callee(model, iteration, target, forwarded, skip, (step, hop)))
    return out


def _kept_by_callee(model: Model, iteration: Iteration, callee: Func, given, shift: int, trail: Trail) -> List[Kept]:
    function = model.function_summary(callee)
    if function is None or function.scope_kind != "class" or not function.params:
        return []
    params = [p.name for p in function.params]
    names = {params[i + shift] for i, name in given if name is None and 0 <= i + shift < len(params)
             and function.params[i + shift].kind in ("posonly", "pos")}
    names |= {name for i, name in given if name is not None and name in params}
    names = {name for name in names  # not replaced (``batch = to_device(batch)``)
             if all(binding.kind == "param" for binding in function.bindings.get(name, ()))}
    own = params[0]
    summary = model.project.summary(callee.module)
    ctx = model.resolver.context(callee.module, callee.qualname)
    reset = {store.attr for store in summary.stores if store.scope == callee.qualname and store.kind == "assign"
             and type(store.target) is Name and store.target.id == own}
    out = []
    for index in sites_in_scope(model.project, callee.module, callee.qualname):
        site = summary.calls[index]
        call = site.func
        if not (type(call) is Attr and call.name in KEEPING_METHODS and site.args and type(call.base) is Attr
                and type(call.base.base) is Name and call.base.base.id == own and call.base.name not in reset):
            continue
        if _counted(model, ctx, function, -3, site):
            continue
        for part in _held_parts(site.args[-1]):
            path = _param_path(model, part, names, ctx)
            if path is None:
                continue
            evidence = _tensor_field(model, iteration.loader, path) if any(type(key) is FieldKey for key in path) \
                else _tensor_batches(model, iteration.loader) or _tensor_field(model, iteration.loader, path)
            evidence = evidence or _concatenated_on_self(model, callee, function, call.base.name)
            if evidence:
                out.append(Kept(iteration, callee.module, site.span, site.arg_spans[-1], f"self.{call.base.name}",
                                evidence, trail))
                break
    return out


def _concatenated_on_self(model: Model, method: Func, function, attr: str) -> str:
    """"`torch.cat(self.targets)` at line N" when a method of the class of ``method`` joins the
    list ``self.<attr>`` as tensors (an out-of-fold collector's ``compute()``)."""
    klass = model.project.klass(method.module, function.scope)
    for name in klass.methods if klass is not None else ():
        other = model.project.function(method.module, f"{function.scope}.{name}")
        if other is not None and other.params:
            found = _concatenated(model, method.module, other.qualname, Attr(Name(other.params[0].name), attr))
            if found:
                return found
    return ""


def _param_path(model: Model, value, names: Set[str], ctx: Ctx, depth: int = 0) -> Optional[Tuple[object, ...]]:
    """The keys that lead from a parameter among ``names`` (a batch handed on) to ``value``,
    through views that share its storage (``batch["actions"]``: ``("actions",)``; a row of a
    field, ``batch["target"][:, 0]``, as ``_batch_path`` keeps it); None when ``value`` is not
    such a part."""
    if depth > 8:
        return None
    kind = type(value)
    if kind is Name:
        return () if value.id in names else None
    if kind is Item and type(value.key) is Const:
        base = _param_path(model, value.base, names, ctx, depth + 1)
        return None if base is None else base + (value.key.value,)
    if kind is Item:
        base = _param_path(model, value.base, names, ctx, depth + 1) if _basic_key(model, value.key, ctx) else None
        return None if not base or not isinstance(base[-1], (str, FieldKey)) else base + (ANY_ROW,)
    if kind is Attr and value.name in VIEW_ATTRIBUTES:
        return _param_path(model, value.base, names, ctx, depth + 1)
    if kind is Attr and value.name.isidentifier() and not value.name.startswith("_"):
        base = _param_path(model, value.base, names, ctx, depth + 1)
        return None if base is None else base + (FieldKey(value.name),)
    if kind is Call:
        call = model.project.summary(ctx.module).calls[value.index].func
        return _param_path(model, call.base, names, ctx, depth + 1) \
            if type(call) is Attr and call.name in SHARED_VIEWS else None
    return None


def _kept_by_statements(model: Model, iteration: Iteration, loop: Loop, function, ctx: Ctx) -> List[Kept]:
    """Batch tensors kept without a method call: ``ys += [y]`` on a list made before the loop,
    and ``by_batch[i] = x`` into a container that outlives the pass (a key that changes from
    pass to pass: a constant key keeps one tensor at a time)."""
    out = []
    spans = lambda span: loop.span.row <= span.row <= loop.end_row  # noqa: E731
    for name, bindings in (function.bindings.items() if function is not None else ()):
        for binding in bindings:
            value = binding.value
            if binding.kind != "aug" or not spans(binding.span) or type(value) is not Op or value.op != "+" \
                    or len(value.args) != 2 or type(value.args[1]) is not Seq:
                continue
            if not _outlives_pass(Name(name), function, loop):
                continue
            kept = _kept_tensor(model, value.args[1], ctx, function, loop, iteration, Name(name))
            if kept is not None:
                statement = Span(binding.span.row, binding.span.col, binding.span.row, 1 << 20)  # ``ys += [y]``
                out.append(Kept(iteration, iteration.module, binding.span, statement, name, kept[1], kept[0]))
    summary = model.project.summary(iteration.module)
    for store in summary.stores:
        if store.scope != loop.scope or store.attr != "[]" or store.kind != "assign" or not spans(store.span) \
                or type(store.key) is Const or not _outlives_pass(store.target, function, loop):
            continue
        if any(_made_tensor(f.obj) or _numpy_value(f.obj) for f in model.resolver.eval(store.target, ctx)):
            continue  # ``mem_y[j] = y[i]`` into a preallocated tensor or array copies the values
        kept = _kept_tensor(model, store.value, ctx, function, loop, iteration, store.target)
        if kept is not None:
            out.append(Kept(iteration, iteration.module, store.span, store.span,
                            _written(model, iteration.module, store.target) or "a container", kept[1], kept[0]))
    return out


def _written(model: Model, module: str, value) -> str:
    """A holder as written, for the message (a name or ``self.attr``)."""
    if type(value) is Name:
        return value.id
    if type(value) is Attr and type(value.base) is Name:
        return f"{value.base.id}.{value.name}"
    return ""


def _kept_tensor(model: Model, value, ctx: Ctx, function, loop: Loop, iteration: Iteration,
                 holder) -> Optional[Tuple[Trail, str]]:
    """(trail, why it is a tensor) for the first part of the kept ``value`` that is a view of a
    host batch known to be a tensor; None when there is none."""
    summary = model.project.summary(ctx.module)
    for part in _held_parts(value, summary.calls if summary is not None else None):
        view = _batch_view(model, part, ctx, function, iteration.loader, 0)
        if view is None:
            continue
        trail, evidence = view
        path = _batch_path(model, part, ctx, function, 0)
        if path is None and _names_field(part):
            continue  # ``batch.shape``, or a field of a batch the analysis cannot tell
        if path is not None and any(type(key) is FieldKey for key in path):
            evidence = _tensor_field(model, iteration.loader, path)  # only the field itself tells
        else:
            evidence = evidence or _concatenated(model, iteration.module, loop.scope, holder) \
                or _used_as_tensor(model, iteration.module, loop, part) or _tensor_batches(model, iteration.loader) \
                or _tensor_field(model, iteration.loader, path)
        if evidence:
            return trail, evidence
    return None


def _names_field(value, depth: int = 0) -> bool:
    """Whether ``value`` reads an attribute that is not a view (``.data``, ``.T``) on its way
    to the batch: a field of a batch of NamedTuples, or a property of a tensor."""
    while depth < 8:
        kind = type(value)
        if kind is Attr:
            if value.name not in VIEW_ATTRIBUTES:
                return True
            value = value.base
        elif kind in (Item, Part):
            value = value.base
        else:
            return False
        depth += 1
    return False


def _held_parts(value, calls=None, depth: int = 0):
    """What keeping ``value`` keeps alive: the value itself, or each item of the tuple, list,
    set or dict display it is (``buffer.append((x, y))`` keeps ``x`` and ``y``), or of the
    ``dict(...)`` call it is, given the module's ``calls`` (``dict(label=y, path=p)``)."""
    if type(value) is Seq and value.kind != "comp" and depth < 4:
        for item in value.items:
            yield from _held_parts(item, calls, depth + 1)
    elif type(value) is DictDisplay and depth < 4:
        for item in value.values:
            yield from _held_parts(item, calls, depth + 1)
    elif type(value) is Call and calls is not None and depth < 4 and type(calls[value.index].func) is Name \
            and calls[value.index].func.id == "dict" and not calls[value.index].args:
        for key, item in calls[value.index].keywords:
            if key is not None:
                yield from _held_parts(item, calls, depth + 1)
    else:
        yield value


TORCHVISION_DATASETS = "torchvision.datasets."
TORCHVISION_ITEM_ATTRIBUTES = frozenset({"transform", "target_transform", "transforms"})  # read by ``__getitem__``


class FieldKey(NamedTuple):
    """A step of a batch path through a named field (``batch.target`` of a batch of
    ``NamedTuple`` items, which the default collate function keeps as that ``NamedTuple``)."""

    name: str


MAX_COUNTED = 256  # kept tensors (descriptors) well under the usual limit of 1024 open files


def _counted(model: Model, ctx: Ctx, function, loop_index: int, site: CallSite) -> bool:
    """The keeping call runs a small counted number of times: under ``if len(kept) < 4:`` or
    ``if i == 0:``, or in a loop that ``if i >= 8: break`` ends, where ``i`` counts the passes
    of the loop over the loader (``if epoch == 0:`` on an outer loop keeps every batch of an epoch)."""
    capped = function.capped if function is not None else model.project.summary(ctx.module).capped if not ctx.scope \
        else ()
    for first, last, loop, bound, counter in capped:
        if counter not in (-1, loop_index):
            continue
        if loop == loop_index or (loop == -1 and first <= site.span.row <= last):
            values = model.resolver.eval(bound, ctx)
            if values and all(isinstance(f.obj, Lit) and type(f.obj.value) is int and f.obj.value <= MAX_COUNTED
                              for f in values):
                return True
    return False


def _bounded_holder(model: Model, module: str, function, holder) -> bool:
    """The container drops old items itself: ``deque(maxlen=n)``."""
    if not isinstance(holder, Name):
        return False
    summary = model.project.summary(module)
    bindings = function.bindings if function is not None else summary.bindings  # a script's top-level loop
    for binding in bindings.get(holder.id, ()):
        value = binding.value
        if type(value) is Part and type(value.base) is Seq and 0 <= value.index < len(value.base.items):
            value = value.base.items[value.index]  # ``kept, recent = [], deque(maxlen=4)``
        if type(value) is Call:
            made = summary.calls[value.index]
            if last_name(made.func) == "deque" and any(name == "maxlen" for name, _ in made.keywords):
                return True
    return False


def _outlives_pass(holder, function, loop: Loop) -> bool:
    """Whether the container outlives one pass of the loop: an attribute, a parameter, a
    global, or a local bound only outside the loop."""
    if isinstance(holder, Item):
        holder = holder.base
    if isinstance(holder, Attr):
        return True
    if not isinstance(holder, Name):
        return False
    bindings = function.bindings.get(holder.id, ()) if function is not None else ()
    return not any(loop.span.row <= b.span.row <= loop.end_row and b.kind != "aug" for b in bindings)


def _batch_view(model: Model, value, ctx: Ctx, function, loader, depth: int):
    """(trail, tensor evidence or "") when ``value`` is a host batch of ``loader`` or a view
    of one (no copy on the way); None otherwise, or when unknown."""
    if depth > 8:
        return None
    if isinstance(value, Call):
        site = model.project.summary(ctx.module).calls[value.index]
        call = site.func
        if isinstance(call, Attr) and call.name in SHARED_VIEWS:
            inner = _batch_view(model, call.base, ctx, function, loader, depth + 1)
            if inner is not None and call.name in TENSOR_VIEWS:
                return inner[0], inner[1] or f"`.{call.name}()`"
            return inner
        if _field_taken(site) is not None:  # ``batch.pop("doc_ids")``: the field itself
            return _batch_view(model, call.base, ctx, function, loader, depth + 1)
        if isinstance(call, Name) and call.id == "next":  # ``batch = next(batches)``: drawn from the loader
            found = _host_batch(model, value, ctx, loader)
            return (found, "") if found is not None else None
        return None
    if isinstance(value, Attr):
        if value.name not in VIEW_ATTRIBUTES:  # a field of a batch of NamedTuples: its tensor must be shown
            return _batch_view(model, value.base, ctx, function, loader, depth + 1) \
                if value.name.isidentifier() and not value.name.startswith("_") else None
        inner = _batch_view(model, value.base, ctx, function, loader, depth + 1)
        return (inner[0], inner[1] or f"`.{value.name}`") if inner is not None else None
    if isinstance(value, Item):
        return _batch_view(model, value.base, ctx, function, loader, depth + 1) \
            if isinstance(value.key, Const) or _basic_key(model, value.key, ctx) else None  # a mask or index tensor copies
    if type(value) is Part:  # ``x, y = batch``: a part of the batch
        return _batch_view(model, value.base, ctx, function, loader, depth + 1)
    if type(value) in (Seq, DictDisplay):  # ``pair = (x, y)``: the display keeps its items
        views = [v for v in (_batch_view(model, part, ctx, function, loader, depth + 1) for part in _held_parts(value))
                 if v is not None]
        return next((v for v in views if v[1]), views[0]) if views else None
    bindings, blocks = _scope_bindings(model, ctx, function)
    if isinstance(value, Name) and value.id in bindings:
        trail = None
        for binding in reaching(bindings[value.id], value.pos, blocks):
            if binding.kind == "loop":
                found = _host_batch(model, binding.value, ctx, loader)
                if found is None:
                    return None
                trail = trail or (found, "")
            elif binding.kind == "assign":
                inner = _batch_view(model, binding.value, ctx, function, loader, depth + 1)
                if inner is None:
                    return None
                trail = trail or inner
            else:
                return None
        return trail
    return None


def _scope_bindings(model: Model, ctx: Ctx, function):
    """(bindings, blocks) of the function, or of the module for a script's top-level loop."""
    if function is not None:
        return function.bindings, function.blocks
    if ctx.scope:
        return {}, ()
    summary = model.project.summary(ctx.module)
    return summary.bindings, summary.blocks


def _basic_key(model: Model, key, ctx: Ctx) -> bool:
    """A subscript key of basic indexing, which returns a view of the same storage: a slice,
    an int, or a tuple of them (``feats[b, :n]``)."""
    if key == SLICE:
        return True
    if type(key) is Seq and key.kind == "tuple":
        return bool(key.items) and all(item == SLICE or isinstance(item, Const) or _int_key(model, item, ctx)
                                       for item in key.items)
    return _int_key(model, key, ctx)


def _int_key(model: Model, key, ctx: Ctx) -> bool:
    """A subscript key known to be an int (``worst = int(loss.argmax())``, the variable of a
    loop over ``range(...)`` or over a flattened tensor's ``.tolist()``)."""
    if isinstance(key, Name):
        bindings, blocks = _scope_bindings(model, ctx, model.project.function(ctx.module, ctx.scope))
        found = reaching(bindings.get(key.id, ()), key.pos, blocks) if key.id in bindings else ()
        if found and all(b.kind == "loop" and _int_elements(model, b.value, ctx) for b in found):
            return True
        if len(found) == 1 and found[0].kind == "assign":
            key = found[0].value
    if isinstance(key, Call):
        site = model.project.summary(ctx.module).calls[key.index]
        if isinstance(site.func, Attr):  # ``loss.argmax().item()``: a Python number; ``names.index("tp")``
            name = site.func.name
            return (name == "item" and not site.args) or (name in ("index", "count") and bool(site.args))
        return any(isinstance(f.obj, Ext) and f.obj.qualname in ("builtins.int", "builtins.len")
                   for f in model.resolver.eval(site.func, ctx))
    found = model.resolver.eval(key, ctx)
    return bool(found) and all(type(f.obj) is Lit and type(f.obj.value) is int for f in found)


MAX_WRAPPERS = 8  # iteration wrappers around wrappers (``enumerate(zip(tqdm(...)))``) followed by ``_batch_items``
FLATTENING = frozenset({"flatten", "ravel", "squeeze", "view", "reshape"})  # methods that can make a tensor 1-D


def _int_elements(model: Model, value, ctx: Ctx) -> bool:
    """A loop's elements are ints: it runs over ``range(...)``, or over ``.tolist()`` of a
    tensor flattened on the way (``torch.nonzero(hits).flatten().tolist()``; a 2-D one's
    ``tolist()`` gives lists, and indexing with a list copies); or the loop variable is the
    counter of ``enumerate(...)``."""
    calls = model.project.summary(ctx.module).calls
    if type(value) is Part and value.index == 0 and type(value.base) is Element and type(value.base.base) is Call:
        counter = calls[value.base.base.index].func  # ``for i, x in enumerate(xs)``: ``i`` counts
        return type(counter) is Name and counter.id == "enumerate" and any(
            isinstance(f.obj, Ext) and f.obj.qualname == "builtins.enumerate" for f in model.resolver.eval(counter, ctx))
    if type(value) is not Element or type(value.base) is not Call:
        return False
    site = calls[value.base.index]
    if type(site.func) is Name and site.func.id == "range":
        return any(isinstance(f.obj, Ext) and f.obj.qualname == "builtins.range" for f in model.resolver.eval(site.func, ctx))
    if type(site.func) is not Attr or site.func.name != "tolist" or site.args:
        return False
    base = site.func.base
    while True:
        if type(base) is Item and type(base.key) is Const and type(base.base) is Call \
                and _index_tuple(calls[base.base.index]):
            return True  # ``hits.nonzero(as_tuple=True)[0]``: each index tensor of the tuple is 1-D
        if type(base) is not Call or type(calls[base.index].func) is not Attr:
            return False
        if calls[base.index].func.name in FLATTENING:
            return True
        base = calls[base.index].func.base


def _index_tuple(site: CallSite) -> bool:
    """A call returning one 1-D index tensor per dimension: ``x.nonzero(as_tuple=True)``,
    ``torch.nonzero(x, as_tuple=True)``, ``torch.where(cond)`` (one argument)."""
    func = site.func
    name = func.name if type(func) is Attr else func.id if type(func) is Name else ""
    if name == "nonzero":
        return any(key == "as_tuple" and type(value) is Const and value.value is True for key, value in site.keywords)
    return name == "where" and len(site.args) == 1 and not site.keywords


def _host_batch(model: Model, value, ctx: Ctx, loader) -> Optional[Trail]:
    """The trail when every answer for ``value`` is host data of a loader, ``loader`` among them
    (a function iterating several loaders keeps the batches of each)."""
    base = loader_facts.base_loader(loader)
    results = model.resolver.eval(value, ctx)
    if not results or not all(isinstance(f.obj, Batch) and not f.obj.on_device for f in results):
        return None
    return next((f.trail for f in results if loader_facts.base_loader(f.obj.loader) == base), None)


def _concatenated(model: Model, module: str, scope: str, holder) -> str:
    """"`torch.cat(preds)`" when the container is concatenated as tensors in the same function,
    itself or a comprehension over it (``torch.cat([p.flatten() for p in preds])``)."""
    summary = model.project.summary(module)
    ctx = model.resolver.context(module, scope)
    for index in sites_in_scope(model.project, module, scope):
        site = summary.calls[index]
        if not site.args or last_name(site.func) not in {q.rpartition(".")[2] for q in CONCATENATORS}:
            continue
        given = site.args[0]
        over = same_value(given, holder) or _comprehension_over(summary, scope, site.span, given, holder)
        if over and any(isinstance(f.obj, Ext) and f.obj.qualname in CONCATENATORS
                        for f in model.resolver.eval(site.func, ctx)):
            text = " ".join(model.project.text_of(module, site.span).split())
            shown = f"`{text}`" if len(text) <= 50 else "a `torch` concatenation"
            return f"{shown} at line {site.span.row}"
    return ""


def _comprehension_over(summary, scope: str, span: Span, value, holder) -> bool:
    """``value`` is a comprehension (written within ``span``) whose only ``for`` runs over ``holder``."""
    if type(value) is not Seq or value.kind != "comp":
        return False
    loops = [loop for loop in summary.loops
             if loop.kind == "comp" and loop.scope == scope and span.row <= loop.span.row <= span.end_row]
    return len(loops) == 1 and same_value(loops[0].iter, holder)


def _used_as_tensor(model: Model, module: str, loop: Loop, value) -> str:
    """"`x.cuda()` at line N" when the loop calls a tensor method on the kept variable."""
    if not isinstance(value, Name):
        return ""
    summary = model.project.summary(module)
    for index in sites_in_scope(model.project, module, loop.scope):
        site = summary.calls[index]
        call = site.func
        if isinstance(call, Attr) and call.name in TENSOR_USES and isinstance(call.base, Name) \
                and call.base.id == value.id and loop.span.row <= site.span.row <= loop.end_row:
            return f"`{value.id}.{call.name}()` at line {site.span.row}"
    return ""


TENSOR_DATASETS = frozenset({"torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset"})
TENSOR_FACTORIES = frozenset({"tensor", "as_tensor", "from_numpy", "rand", "randn", "randint", "randperm", "zeros",
                              "ones", "empty", "full", "arange", "linspace", "stack", "cat"})


def _tensor_batches(model: Model, loader) -> str:
    """"its dataset is a `TensorDataset`" when every batch part is a tensor: the default
    collate function makes the batches of a dataset that is a tensor, a ``TensorDataset``, or
    one of the project's whose ``__getitem__`` returns only tensors and numbers; or the
    loader's ``collate_fn`` is a project function that returns only torch-made tensors, or
    one that regroups the samples unchanged over a dataset whose items are only tensors."""
    collate = model.argument(loader, "collate_fn")
    regrouping = collate is not None and _regrouping_collate(model, collate)
    if collate is not None and not regrouping:
        return _tensor_collate(model, collate)
    names = set()
    for found in model.value(loader, "dataset"):
        obj = found.obj
        method = _tensor_items(model, obj, regrouping) if isinstance(obj, Inst) and isinstance(obj.cls, Cls) else None
        if method is not None:
            gives = "yields" if method == "__iter__" else "returns"
            batched = ("tensors, which the loader's `collate_fn` regroups unchanged" if regrouping else
                       "tensors, arrays and numbers, which the default collate function batches into tensors")
            names.add(f"`{obj.cls.qualname}.{method}` {gives} {batched}")
            continue
        if regrouping:
            return ""
        if not (isinstance(obj, Inst) and isinstance(obj.cls, Ext)):
            return ""
        name = obj.cls.qualname
        labelled = _labelled_images(model, obj)
        if labelled:
            names.add(labelled)
            continue
        if name not in TENSOR_DATASETS and not _made_tensor(obj):
            return ""
        names.add(f"the loader's dataset is a `{name.rpartition('.')[2]}(...)`, so its batches are tensors")
    return sorted(names)[0] if names else ""


# torchvision datasets whose items are (image, class index): the image is what ``transform`` makes
LABELLED_IMAGES = frozenset({"ImageFolder", "CIFAR10", "CIFAR100", "MNIST", "FashionMNIST", "KMNIST", "EMNIST",
                             "SVHN", "STL10", "ImageNet", "Food101", "Flowers102", "OxfordIIITPet", "StanfordCars"})


def _labelled_images(model: Model, obj: Inst, depth: int = 0) -> str:
    """"the loader's dataset is a torchvision `ImageFolder` whose transform ends in a tensor"
    for such a dataset (or a ``Subset`` of one) built with a ``transform`` that ends in a
    tensor (``Compose([..., ToTensor(), Normalize(...)])``): every item is (tensor, int)."""
    name = obj.cls.qualname
    if obj.site is None or depth > 2:
        return ""
    if name in SUBSETS:
        inner = model.resolver.keyword_at(obj.site, obj.ctx, "dataset", 0) or ()
        parts = [_labelled_images(model, f.obj, depth + 1) if isinstance(f.obj, Inst) and isinstance(f.obj.cls, Ext)
                 else "" for f in inner]
        return parts[0] if parts and all(parts) else ""
    if not name.startswith(TORCHVISION_DATASETS) or name.rpartition(".")[2] not in LABELLED_IMAGES:
        return ""
    position = 1 if name.rpartition(".")[2] == "ImageFolder" else None
    transform = model.resolver.keyword_at(obj.site, obj.ctx, "transform", position)
    if not transform or not all(_tensor_transform(model, f.obj, 0) for f in transform):
        return ""
    return (f"the loader's dataset is a torchvision `{name.rpartition('.')[2]}` whose transform ends in a tensor, "
            f"so its batches are tensors")


ANY_ROW = -1  # a step of a batch path: a row (an int key not known) of the field before it


def _field_taken(site: CallSite):
    """The constant key of ``x.pop("key")`` / ``x.get("key")`` (the entry itself, as ``x["key"]``); None otherwise."""
    call = site.func
    if type(call) is Attr and call.name in ("pop", "get") and site.args and not site.keywords \
            and len(site.args) <= 2 and type(site.args[0]) is Const and isinstance(site.args[0].value, str):
        return site.args[0].value
    return None


def _batch_path(model: Model, value, ctx: Ctx, function, depth: int) -> Optional[Tuple[object, ...]]:
    """The keys and positions that lead from a batch to ``value`` (``sample["boxes"]``:
    ``("boxes",)``; ``img`` of ``for img, (lbl, path) in loader``: ``(0,)``), through views
    that share the storage; None when ``value`` is not such a part of the loop's batch."""
    if depth > 8:
        return None
    kind = type(value)
    if kind is Element:
        return ()
    if kind is Part:
        base = _batch_path(model, value.base, ctx, function, depth + 1)
        return None if base is None else base + (value.index,)
    if kind is Item and type(value.key) is not Const:  # ``batch["ids"][i]``: a row of the field, when ``i`` is an int
        base = _batch_path(model, value.base, ctx, function, depth + 1) if _basic_key(model, value.key, ctx) else None
        return None if not base or not isinstance(base[-1], (str, FieldKey)) else base + (ANY_ROW,)
    if kind is Item:
        base = _batch_path(model, value.base, ctx, function, depth + 1)
        return None if base is None else base + (value.key.value,)
    if kind is Attr and value.name in VIEW_ATTRIBUTES:
        return _batch_path(model, value.base, ctx, function, depth + 1)
    if kind is Attr:
        base = _batch_path(model, value.base, ctx, function, depth + 1)
        return None if base is None else base + (FieldKey(value.name),)
    if kind is Call:
        site = model.project.summary(ctx.module).calls[value.index]
        taken = _field_taken(site)
        if taken is not None:
            base = _batch_path(model, site.func.base, ctx, function, depth + 1)
            return None if base is None else base + (taken,)
        call = site.func
        return _batch_path(model, call.base, ctx, function, depth + 1) \
            if isinstance(call, Attr) and call.name in SHARED_VIEWS else None
    bindings, blocks = _scope_bindings(model, ctx, function)
    if kind is not Name or value.id not in bindings:
        return None
    paths = {_batch_path(model, b.value, ctx, function, depth + 1) if b.kind in ("loop", "assign") else None
             for b in reaching(bindings[value.id], value.pos, blocks)}
    return paths.pop() if len(paths) == 1 else None


def _tensor_field(model: Model, loader, path: Optional[Tuple[object, ...]]) -> str:
    """"`Stream.__iter__` yields a tensor or an array at `["boxes"]` of each item, ..." when the
    part of the batch at ``path`` is a tensor: with the default collate function, the same part of every item the
    dataset gives is a tensor or an array (or a number, when items are batched). Samples mix
    kinds (``{"image": ..., "path": str}``): the part kept is what counts."""
    if not path:
        return ""
    collate = model.argument(loader, "collate_fn")
    if collate is not None:
        return _collate_field(model, collate, path)
    batch_size = model.argument(loader, "batch_size")
    unbatched = bool(batch_size) and all(isinstance(f.obj, Lit) and f.obj.value is None for f in batch_size)
    for cut in range(len(path), 0, -1):  # ``batch["target"][0]``: a row of the tensor at ``["target"]``
        names = _field_methods(model, loader, path[:cut], unbatched)
        if names:
            path = path[:cut]
            break
        if type(path[cut - 1]) is not int:
            return ""  # ``batch.target.shape``: only a row of a tensor is a view of it
    else:
        return ""
    where = "".join(f".{key.name}" if type(key) is FieldKey else f'["{key}"]' if isinstance(key, str) else f"[{key}]"
                    for key in path)
    what, made = ("a tensor or an array", "converts") if unbatched else ("a tensor, an array or a number", "batches")
    return f"{sorted(names)[0]} {what} at `{where}` of each item, which the default collate function {made} " \
           f"into a tensor"


def _field_methods(model: Model, loader, path: Tuple[object, ...], unbatched: bool) -> Set[str]:
    """The dataset methods whose every item holds a tensor or an array at ``path`` (empty when
    one of the loader's datasets does not, or is unknown)."""
    names = set()
    for found in model.value(loader, "dataset"):
        method = _field_items(model, found.obj, path, unbatched)
        if method is None:
            return set()
        names.add(method)
    return names


def _field_items(model: Model, dataset, path: Tuple[object, ...], unbatched: bool) -> Optional[str]:
    """"`Cls.__getitem__` returns" when the project dataset's every item holds a tensor or an
    array at ``path``; None otherwise or when unknown."""
    found = _item_method(model, dataset) if isinstance(dataset, Inst) and isinstance(dataset.cls, Cls) else None
    if found is None:
        return None
    name, _method, function, ctx = found
    for value in function.returns:
        results = model.resolver.eval(value, ctx)
        for key in path:
            results = _display_part(model, results, key)
            if results is None:
                return None
        numbers = [f for f in results if isinstance(f.obj, Lit) and type(f.obj.value) in (int, float)]
        if unbatched and (numbers or any(made_number(f.obj) for f in results)):
            return None  # without batching a number stays a number
        rest = [f for f in results if not (isinstance(f.obj, Lit) and type(f.obj.value) in (int, float))]
        if (rest or not numbers) and not _all_tensors(model, rest, 0, collated=True):
            return None
    return f"`{dataset.cls.qualname}.{name}` {'yields' if name == '__iter__' else 'returns'}"


def _display_part(model: Model, results: Results, key) -> Optional[Results]:
    """What every display among ``results`` holds at ``key`` (a dict display's value for a
    constant key, a tuple or list display's item at a position before any ``*spread``);
    None when one of them is something else, or its part cannot be told."""
    out = []
    for found in results:
        obj = found.obj
        if type(key) is FieldKey:
            field = _named_field(model, obj, key.name)
            if field is None:
                return None
            out.append(field)
            continue
        if not isinstance(obj, Container):
            return None
        display = obj.value
        if type(display) is DictDisplay and obj.kind == "dict":
            values = [v for k, v in zip(display.keys, display.values) if type(k) is Const and k.value == key]
            if len(values) != 1 or any(type(k) is not Const for k in display.keys):
                return None
        elif type(display) is Seq and obj.kind in ("tuple", "list") and type(key) is int:
            items = display.items
            if not 0 <= key < len(items) or any(type(v) is Starred for v in items[:key + 1]):
                return None
            values = [items[key]]
        else:
            return None
        out.append(join(model.resolver.eval(v, obj.ctx) for v in values))
    return join(out) if out else None


NAMED_TUPLES = frozenset({"typing.NamedTuple", "collections.namedtuple"})


def _named_field(model: Model, obj, name: str) -> Optional[Results]:
    """What a project ``NamedTuple`` built at a known call holds in field ``name`` (the
    argument, else the default); None for anything else."""
    if not (isinstance(obj, Inst) and isinstance(obj.cls, Cls) and obj.site is not None):
        return None
    if not any(isinstance(item, Ext) and item.qualname in NAMED_TUPLES for item in model.resolver.mro(obj.cls)):
        return None
    return model.resolver.field(obj.cls, obj, name)


def _tensor_collate(model: Model, collate: Results) -> str:
    """"`collate_graphs` returns tensors" when the collate function is one project function
    whose every return is a tensor, or a tuple, list or dict display of tensors made by torch
    (``{"x": torch.cat(xs), "y": torch.stack(ys)}``)."""
    func, function = _collate_function(model, collate, callable_objects=True)
    if function is None:
        return ""
    ctx = model.resolver.context(func.module, func.qualname)
    for value in function.returns:
        for part in _held_parts(value):
            results = model.resolver.eval(part, ctx)
            if not results or not all(_made_tensor(f.obj) for f in results):
                return ""
    return f"the loader's `collate_fn`, `{_collate_name(function)}`, returns tensors made by torch"


def _collate_field(model: Model, collate: Results, path: Tuple[object, ...]) -> str:
    """"the loader's `collate_fn`, ..., returns a tensor made by torch at `["boxes"]`" when the
    one project collate function returns, in every return, a display holding a torch-made
    tensor at the first step of ``path`` (the rest of it only rows of that tensor), whatever
    its other parts are (``{"boxes": padded, "names": list(names)}``)."""
    func, function = _collate_function(model, collate, callable_objects=True)
    if function is None or type(path[0]) is FieldKey or not all(type(key) is int for key in path[1:]):
        return ""
    ctx = model.resolver.context(func.module, func.qualname)
    for value in function.returns:
        part = _display_part(model, model.resolver.eval(value, ctx), path[0])
        if not part or not all(_made_tensor(f.obj) for f in part):
            return ""
    key = f'["{path[0]}"]' if isinstance(path[0], str) else f"[{path[0]}]"
    return f"the loader's `collate_fn`, `{_collate_name(function)}`, returns a tensor made by torch at `{key}`"


def _collate_name(function: FunctionSummary) -> str:
    """A collate function's name; a collator object's class name for its ``__call__``."""
    return function.qualname.rsplit(".", 1)[0] if function.name == "__call__" else function.name


def _collate_function(model: Model, collate: Results,
                      callable_objects: bool = False) -> Tuple[Optional[Func], Optional[FunctionSummary]]:
    """The one project function a ``collate_fn`` is, when it returns (not a generator), else
    Nones; ``callable_objects``: also the ``__call__`` of a project collator object
    (``collate_fn=LeftPadCollator(pad_id)``)."""
    if len(collate) != 1:
        return None, None
    func = collate[0].obj
    if callable_objects and isinstance(func, Inst) and isinstance(func.cls, Cls):
        func = model.resolver.method(func.cls, "__call__")
    if not isinstance(func, Func):
        return None, None
    function = model.function_summary(func)
    if function is None or function.is_generator or not function.returns:
        return None, None
    return func, function


REGROUPING_BUILTINS = {"tuple": "builtins.tuple", "list": "builtins.list", "zip": "builtins.zip"}


def _regrouping_collate(model: Model, collate: Results) -> bool:
    """A ``collate_fn`` that returns its samples regrouped and unchanged: one project function
    whose every return is ``tuple(zip(*batch))`` or ``list(zip(*batch))`` of its parameter
    (the detection loaders' collate function)."""
    func, function = _collate_function(model, collate)
    if function is None or not function.params:
        return False
    calls = model.project.summary(func.module).calls
    ctx = model.resolver.context(func.module, func.qualname)
    for value in function.returns:
        if type(value) is not Call or type(calls[value.index].func) is not Name:
            return False
        outer = calls[value.index]
        if outer.func.id not in ("tuple", "list") or len(outer.args) != 1 or outer.keywords \
                or type(outer.args[0]) is not Call:
            return False
        inner = calls[outer.args[0].index]
        if type(inner.func) is not Name or inner.func.id != "zip" or len(inner.args) != 1 \
                or type(inner.args[0]) is not Starred or type(inner.args[0].value) is not Name \
                or inner.args[0].value.id != function.params[0].name:
            return False
        for site in (outer, inner):
            if not all(isinstance(f.obj, Ext) and f.obj.qualname == REGROUPING_BUILTINS[site.func.id]
                       for f in model.resolver.eval(site.func, ctx)):
                return False
    return True


def _item_method(model: Model, dataset: Inst) -> Optional[Tuple[str, Func, FunctionSummary, Ctx]]:
    """(name, method, summary, context) of what gives a project dataset's items to the default
    collate function: ``__getitem__``, or the ``__iter__`` generator of a stream; None when it
    returns nothing the analysis can read, or ``__getitems__`` gives whole batches."""
    name = "__getitem__"
    method = model.resolver.method(dataset.cls, name)
    if method is None:
        name = "__iter__"
        method = model.resolver.method(dataset.cls, name)
    function = model.project.function(method.module, method.qualname) if method is not None else None
    if function is None or function.is_generator != (name == "__iter__") or not function.returns \
            or model.resolver.method(dataset.cls, "__getitems__") is not None:
        return None
    return name, method, function, model.resolver.method_ctx(dataset, method.module, function)


def _tensor_items(model: Model, dataset: Inst, strict: bool = False) -> Optional[str]:
    """The method (``__getitem__``, or the ``__iter__`` generator of a stream) when every item
    it gives is a tensor, a numpy array or a number (``torch.from_numpy(x), int(label)``,
    ``{"image": self.tf(img)}`` with a ``Compose`` ending in ``ToTensor()``, a dict of them):
    the default collate function makes each a tensor. ``strict``: tensors only (a collate
    function that regroups the samples leaves arrays and numbers as they are). None otherwise."""
    found = _item_method(model, dataset)
    if found is None:
        return None
    name, method, function, ctx = found
    calls = model.project.summary(method.module).calls
    index = function.params[1].name if len(function.params) > 1 and name == "__getitem__" else None
    for value in function.returns:
        for part in _held_parts(value):
            if strict:
                if not _all_tensors(model, model.resolver.eval(part, ctx), 0):
                    return None
                continue
            if type(part) is Const and type(part.value) in (int, float):
                continue
            if type(part) is Name and part.id == index and len(function.bindings.get(index, ())) == 1:
                continue  # the index the sampler gave (an int), returned as it came
            if type(part) is Call and any(isinstance(f.obj, Ext) and f.obj.qualname in NUMBERS
                                          for f in model.resolver.eval(calls[part.index].func, ctx)):
                continue
            if not _all_tensors(model, model.resolver.eval(part, ctx), 0, collated=True):
                return None
    return name


def _all_tensors(model: Model, results, depth: int, collated: bool = False) -> bool:
    """Every answer is a tensor, or a dict/tuple/list display holding only tensors;
    ``collated``: or what the default collate function makes a tensor of (an array, a number)."""
    return bool(results) and all(
        _made_tensor(f.obj) or _vision_tensor(f.obj) or _transformed_tensor(model, f.obj)
        or (collated and (_numpy_value(f.obj) or made_number(f.obj)))
        or (depth < 3 and _tensor_display(f.obj)
            and _all_tensors(model, model.resolver.container_values(f.obj), depth + 1, collated))
        for f in results)


def _tensor_display(obj) -> bool:
    return isinstance(obj, Container) and type(obj.value) in (DictDisplay, Seq) and obj.kind in ("dict", "tuple", "list")


# torchvision functions that return a tensor whatever image they are given
TENSOR_FUNCTIONS = frozenset({
    "torchvision.transforms.functional.to_tensor", "torchvision.transforms.functional.pil_to_tensor",
    "torchvision.transforms.v2.functional.to_image", "torchvision.transforms.v2.functional.pil_to_tensor",
    "torchvision.io.read_image", "torchvision.io.decode_image", "torchvision.io.image.read_image",
    "torchvision.io.image.decode_image"})


def _vision_tensor(obj) -> bool:
    """What one of ``TENSOR_FUNCTIONS`` returns (``TF.to_tensor(img)``), or tensor methods of it."""
    if not (isinstance(obj, Inst) and isinstance(obj.cls, Ext)) or not obj.cls.qualname.startswith("torchvision."):
        return False
    made, _, rest = obj.cls.qualname.partition("().")
    if not rest:
        return obj.cls.qualname in TENSOR_FUNCTIONS
    return made in TENSOR_FUNCTIONS and all(_called(part) in TENSOR_RESULTS for part in rest.split("."))


def _numpy_value(obj) -> bool:
    """A numpy array or an item of one (``self.labels[idx]``): the default collate function
    makes a tensor of it (numpy strings excepted)."""
    if not (isinstance(obj, Inst) and isinstance(obj.cls, Ext)):
        return False
    name = obj.cls.qualname
    return name.startswith("numpy.") and "str" not in name and "char" not in name


# torchvision transforms whose output is a tensor whatever they are given (they convert to one,
# or accept nothing else); v2's others pass what they do not handle through unchanged
TENSOR_TRANSFORMS = frozenset({
    "torchvision.transforms.ToTensor", "torchvision.transforms.PILToTensor", "torchvision.transforms.Normalize",
    "torchvision.transforms.ConvertImageDtype", "torchvision.transforms.v2.ToImage",
    "torchvision.transforms.v2.PILToTensor", "torchvision.transforms.v2.ToTensor"})
COMPOSES = frozenset({"torchvision.transforms.Compose", "torchvision.transforms.v2.Compose"})


def _transformed_tensor(model: Model, obj) -> bool:
    """Whether ``obj`` is what calling such a transform returns (``ToTensor()(img)``), or a
    ``Compose`` whose last step is one (``self.tf(img)`` with ``self.tf = Compose([Resize(64),
    ToTensor()])``): every transform the object may be must end in a tensor."""
    if not (isinstance(obj, Inst) and isinstance(obj.cls, Ext) and obj.cls.qualname.endswith("()")) or obj.site is None:
        return False
    site = model.project.call(obj.site)
    called = model.resolver.eval(site.func, obj.ctx or Ctx(obj.site.module, site.scope))
    return bool(called) and all(_tensor_transform(model, f.obj, 0) for f in called)


def _tensor_transform(model: Model, transform, depth: int) -> bool:
    if not (isinstance(transform, Inst) and isinstance(transform.cls, Ext)) or depth > 3:
        return False
    if transform.cls.qualname in TENSOR_TRANSFORMS:
        return True
    if transform.cls.qualname not in COMPOSES or transform.site is None:
        return False
    steps = model.resolver.keyword_at(transform.site, transform.ctx, "transforms", 0)
    for found in steps or UNKNOWN_RESULT:  # the display's last item, when nothing is appended to it later
        display = found.obj
        if not (isinstance(display, Container) and type(display.value) is Seq and display.value.kind in ("list", "tuple")
                and display.value.items and type(display.value.items[-1]) is not Starred
                and not model.resolver.appended(display)):
            return False
        last = model.resolver.eval(display.value.items[-1], display.ctx)
        if not last or not all(_tensor_transform(model, f.obj, depth + 1) for f in last):
            return False
    return True


# tensor methods that return a tensor (a new one or a view), whatever their arguments
TENSOR_RESULTS = frozenset({
    "permute", "contiguous", "float", "double", "half", "long", "int", "bool", "byte", "view", "view_as", "reshape",
    "unsqueeze", "squeeze", "transpose", "flatten", "clone", "detach", "cpu", "to", "div", "div_", "mul", "mul_",
    "add", "add_", "sub", "sub_", "clamp", "clamp_", "abs", "sum", "mean", "flip", "roll", "repeat", "expand",
})


def _made_tensor(obj) -> bool:
    """What a torch tensor factory returns (``torch.from_numpy(x)``, ``torch.zeros(3)``), an
    item of it (``self.labels[idx]``: indexing a tensor gives a tensor), or what tensor methods
    make of either (``self.data[idx].float().div_(255).view(...)``)."""
    if not (isinstance(obj, Inst) and isinstance(obj.cls, Ext)):
        return False
    parts = obj.cls.qualname.split(".")
    if len(parts) < 2 or parts[0] != "torch" or _called(parts[1]) not in TENSOR_FACTORIES:
        return False
    return all(_called(part) in TENSOR_RESULTS for part in parts[2:])


def _called(part: str) -> str:
    """A part of a chained outside name without its calls and items (``contiguous[]()`` → contiguous)."""
    while part.endswith(("()", "[]", "[:]")):
        part = part[:-3] if part.endswith("[:]") else part[:-2]
    return part
