"""A loader's arguments, defaults and worker count, whatever built it.

A loader instance is a construction (``DataLoader(...)``, a project subclass, a
``functools.partial`` of one, a library factory or configuration) evaluated in the
context that gives its parameters their values. Its arguments are read where they are
really given: the call itself, the ``super().__init__(...)`` of a project subclass, the
keywords a partial bound, or a library's own names (``dataloader_num_workers``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, NamedTuple, Optional, Tuple

from ..analysis.values import Attr, Call, Const, DictDisplay, Item, Name, Op, Starred, last_name, same_value
from . import configfiles, mmconfig
from ..analysis.summary import bound_once
from .externals import overridable, truthiness
from .libraries import DATALOADER_POSITIONAL, TRAINERS, matches
from .objects import (UNKNOWN_RESULT, Cls, Config, Container, Ctx, Ext, Found, Func, Inst, Kwargs, Lit, Managed, Mod,
                      PositiveInt, Results, SiteRef, Step, Trail, Varargs, join)
from .project import sites_in_scope

if TYPE_CHECKING:
    from .libraries import LoaderSpec
    from .resolver import Resolver

DATALOADER_DEFAULTS = {
    "num_workers": 0, "pin_memory": False, "persistent_workers": False, "prefetch_factor": None, "shuffle": None,
    "sampler": None, "batch_sampler": None, "batch_size": 1, "drop_last": False, "collate_fn": None,
    "worker_init_fn": None, "multiprocessing_context": None, "generator": None, "timeout": 0,
}
ZERO, POSITIVE, UNKNOWN = "zero", "positive", "unknown"


class Source(NamedTuple):
    """A call whose arguments are the loader's, the context they are read in, and how
    many of its positional arguments come before the loader's own."""

    site: SiteRef
    ctx: Optional[Ctx]
    shift: int = 0


def base_loader(obj) -> Optional[Inst]:
    if isinstance(obj, Managed):
        return obj.loader
    return obj if isinstance(obj, Inst) else None


def sources(resolver: "Resolver", inst: Inst) -> List[Source]:
    """Where the loader's arguments are given, most specific first."""
    if inst.site is None:
        return []
    if isinstance(inst.cls, Cls):
        own = _own_init_sources(resolver, inst)
        if own is not None:
            return own
    elif mmconfig.configured(inst):
        return mmconfig.sources(resolver, inst)
    found = [Source(inst.site, inst.ctx)]
    partial = _partial_source(resolver, inst)
    if partial is not None:
        found.append(partial)
    return found


def _own_init_sources(resolver: "Resolver", inst: Inst) -> Optional[List[Source]]:
    """The ``super().__init__(...)`` of the first project class defining ``__init__``; None
    when the construction itself gives the arguments (no such class, or a named loader class
    of the project: one in ``loader-classes``, a library's own when its source is linted)."""
    for item in resolver.mro(inst.cls):
        if isinstance(item, Ext) or resolver.libraries.project_spec(resolver, item) is not None:
            return None
        init = resolver.method(item, "__init__") if isinstance(item, Cls) else None
        if init is not None and init.qualname == f"{item.qualname}.__init__":
            return _super_call(resolver, inst, init)
    return None


def _super_call(resolver: "Resolver", inst: Inst, init) -> List[Source]:
    """A project subclass's ``super().__init__(...)`` (or ``Base.__init__(self, ...)``)."""
    summary = resolver.project.summary(init.module)
    for index in sites_in_scope(resolver.project, init.module, init.qualname):
        site = summary.calls[index]
        func = site.func
        if isinstance(func, Attr) and func.name == "__init__":
            ctx = Ctx(init.module, init.qualname, inst.site, inst.ctx, inst)
            shift = 0 if isinstance(func.base, Call) else 1
            return [Source(SiteRef(init.module, index), ctx, shift)]
    return []


def _partial_source(resolver: "Resolver", inst: Inst) -> Optional[Source]:
    """The ``functools.partial(DataLoader, ...)`` a loader was built through, if any (also
    one a factory returns and the caller calls at once: ``loader_factory(cfg)(ds)``)."""
    site = resolver.project.call(inst.site)
    ctx = inst.ctx or Ctx(inst.site.module, site.scope)
    if not isinstance(site.func, (Name, Attr, Call)):
        return None
    for found in resolver.eval(site.func, ctx):
        obj = found.obj
        if isinstance(obj, Inst) and isinstance(obj.cls, Ext) and obj.cls.qualname == "functools.partial":
            return Source(obj.site, obj.ctx, 1)
    return None


def loader_argument(resolver: "Resolver", inst, name: str) -> Optional[Results]:
    """What the loader's construction passes for DataLoader argument ``name`` (None: not given)."""
    inst = base_loader(inst)
    if inst is None:
        return None
    spec = resolver.libraries.loader_spec(resolver, inst)
    if spec is None:
        return None
    renamed = {v: k for k, v in spec.renames.items()}.get(name, name)
    position = spec.positional.index(renamed) if renamed in spec.positional else None
    given = None
    for source in sources(resolver, inst):
        given = resolver.keyword_at(source.site, source.ctx, renamed,
                                    position + source.shift if position is not None else None)
        if given is not None:
            break
    if given is None and spec.kind == "config":
        given = _trainer_argument(resolver, inst, name)
    return _set_later(resolver, inst, name, given) if name in SETTABLE else given


SETTABLE = ("collate_fn", "worker_init_fn")  # attributes a DataLoader lets code replace after it is built


def _set_later(resolver: "Resolver", inst: Inst, name: str, given: Optional[Results]) -> Optional[Results]:
    """``given``, or what code holding the loader sets as ``loader.collate_fn`` after building
    it (sentence-transformers' ``fit`` replaces the collate function of the loaders it is
    given): a store made on every run replaces the construction's, one made on some runs
    joins it."""
    always, sometimes, _, _ = resolver.outside_stores(inst, name)
    if not always and not sometimes:
        return given
    return join(list(always or ([given] if given is not None else [])) + list(sometimes))


def _trainer_argument(resolver: "Resolver", config: Inst, name: str) -> Optional[Results]:
    """What the trainers built with the loader configuration ``config`` give the loaders they
    build (``Trainer(args=config, train_dataset=ds, data_collator=f)``: the dataset, the
    ``collate_fn``)."""
    parts = []
    for spec in TRAINERS:
        keys = [key for key, meaning in spec.loader_arguments.items() if meaning == name]
        if not keys or not spec.config:
            continue
        for site, ctx in trainers_built_with(resolver, spec, config):
            for key in keys:
                found = resolver.keyword_at(site, ctx, key)
                if found is not None:
                    parts.append(found)
    return join(parts) if parts else None


def trainers_built_with(resolver: "Resolver", spec, config: Inst) -> List[Tuple[SiteRef, Ctx]]:
    """Constructions of a trainer of ``spec`` whose configuration argument is ``config``."""
    names = {name.rpartition(".")[2] for name in spec.names}
    out = []
    for name in sorted(names):
        for ref in resolver.project.calls_named(name):
            site = resolver.project.call(ref)
            ctx = Ctx(ref.module, site.scope)
            if not any(isinstance(f.obj, Ext) and resolver.libraries.trainer_spec(f.obj.qualname) is spec
                       for f in resolver.eval(site.func, ctx)):
                continue
            given = resolver.keyword_at(ref, ctx, spec.config, spec.config_position if spec.config_position >= 0 else None)
            if given is not None and any(isinstance(f.obj, Inst) and f.obj.site == config.site for f in given):
                out.append((ref, ctx))
    return out


def loader_value(resolver: "Resolver", inst, name: str) -> Results:
    """The argument, or the library's default for it."""
    found = loader_argument(resolver, inst, name)
    if found is not None:
        return found
    base = base_loader(inst)
    spec = resolver.libraries.loader_spec(resolver, base) if base is not None else None
    if mmconfig.configured(base) and not mmconfig.complete(resolver, base):
        return UNKNOWN_RESULT  # a base config that could not be read may give it
    if spec is not None and name in spec.unknown_defaults:
        return UNKNOWN_RESULT
    own = _own_default(resolver, base, name) if base is not None else None
    if own is not None:
        return own
    default = spec.defaults.get(name, DATALOADER_DEFAULTS.get(name)) if spec is not None else DATALOADER_DEFAULTS.get(name)
    if spec is not None and spec.persistent_auto and name == "persistent_workers":
        return (Found(Lit(False)),)  # the library turns it on only when workers > 0
    return (Found(Lit(default)),)


def _own_default(resolver: "Resolver", inst: Inst, name: str) -> Optional[Results]:
    """The default of parameter ``name`` of a named project loader class's ``__init__``."""
    if resolver.libraries.project_spec(resolver, inst.cls) is None:
        return None
    init = resolver.method(inst.cls, "__init__")
    function = resolver.project.function(init.module, init.qualname) if init is not None else None
    param = next((p for p in function.params if p.name == name), None) if function is not None else None
    return resolver.default(function, param, init.module) if param is not None else None


def classify_workers(obj) -> str:
    if isinstance(obj, Lit):
        value = obj.value
        if value is False or (type(value) is int and value == 0):
            return ZERO
        if type(value) is int and value > 0:
            return POSITIVE
        return UNKNOWN
    if isinstance(obj, PositiveInt):
        return POSITIVE
    return UNKNOWN


class Workers(NamedTuple):
    """The worker count's possibilities ({zero, positive, unknown}), each with its evidence."""

    kinds: Dict[str, Trail]
    threads: bool = False  # workers are threads (nothing is pickled or forked)
    single: bool = False  # every positive count is the literal 1

    @property
    def several(self) -> bool:
        """Several worker processes run, each with its own copy of the dataset: the count is
        known positive and not only 1 (an unknown count stays unknown)."""
        return self.positive and not self.threads and not self.single

    @property
    def zero(self) -> bool:
        return set(self.kinds) == {ZERO}

    @property
    def positive(self) -> bool:
        return set(self.kinds) == {POSITIVE}

    @property
    def maybe_zero(self) -> bool:
        return ZERO in self.kinds

    @property
    def processes(self) -> bool:
        """Worker processes may be started (not known to be zero, not threads)."""
        return not self.zero and not self.threads

    def describe(self) -> str:
        if self.zero:
            return "zero"
        if self.positive:
            return "positive"
        if self.maybe_zero:
            return "possibly zero"
        return "unknown"

    def trail(self, kind: str) -> Trail:
        return self.kinds.get(kind, ())


def workers(resolver: "Resolver", loader) -> Workers:
    kinds: Dict[str, Trail] = {}
    single = True
    values = loader_value(resolver, loader, "num_workers")
    if _built_when_positive(resolver, loader):
        from .resolver import without_unset

        values = without_unset(values)
    for found in values:
        kind = classify_workers(found.obj)
        kinds.setdefault(kind, found.trail)
        if kind == POSITIVE and not (isinstance(found.obj, Lit) and found.obj.value == 1):
            single = False
    return Workers(kinds, uses_threads(resolver, loader), single)


def _built_when_positive(resolver: "Resolver", loader) -> bool:
    """The worker count is a name (or ``x.attr``) the code building the loader has just
    tested positive: ``if workers > 0: DataLoader(ds, num_workers=workers, ...)``."""
    given = argument_source(resolver, loader, "num_workers")
    key = _tested_key(given.value) if given is not None else None
    if key is None:
        return False
    site = resolver.project.call(given.site)
    function = resolver.project.function(given.site.module, site.scope) if site.scope else None
    return function is not None and any(tested == key and first <= site.span.row <= last
                                        for tested, first, last in function.positive)


def _tested_key(value) -> Optional[Tuple[str, ...]]:
    """A worker count as the summaries key what an ``if`` tests: (name,) or (root, attr)."""
    if type(value) is Name:
        return (value.id,)
    if type(value) is Attr and type(value.base) is Name:
        return (value.base.id, value.name)
    return None


def given_when_positive(resolver: "Resolver", loader, given: ArgumentSource) -> bool:
    """The keyword ``given`` is put in by a function other than the one building the loader,
    in the part of it that runs only once the loader's worker count (the same name or
    ``self.<attr>``) has been tested nonzero: ``if self.num_workers == 0: return {}`` then
    ``return {"persistent_workers": True}`` splatted into the loader."""
    if _only_with_workers(resolver, loader, given):
        return True
    count = argument_source(resolver, loader, "num_workers")
    if count is None or given.ctx is None or not given.ctx.scope or count.ctx.scope == given.ctx.scope:
        return False
    key = _tested_key(count.value)
    if key is None:
        return False
    function = resolver.project.function(given.ctx.module, given.ctx.scope)
    return function is not None and any(tested == key and last >= function.end_row
                                        for tested, _, last in function.positive)


def _only_with_workers(resolver: "Resolver", loader, given: ArgumentSource) -> bool:
    """The keyword comes from a ``**`` mapping a helper hands back in two shapes (``if workers
    <= 0: return {"num_workers": 0}`` then ``return {"num_workers": workers,
    "persistent_workers": True}``): every shape holding a worker-only keyword holds the worker
    count too, tested positive by the helper before it, and a shape without them is the
    zero-worker one."""
    for source in sources(resolver, base_loader(loader)):
        site = resolver.project.call(source.site)
        ctx = source.ctx or Ctx(source.site.module, site.scope)
        for (key, value), span in zip(site.keywords, site.keyword_spans):
            if key is not None or (source.site, span) != (given.site, given.span):
                continue
            shapes = [found.obj for found in resolver.eval(value, ctx)]
            if len(shapes) < 2 or not all(type(obj) is Container and type(obj.value) is DictDisplay for obj in shapes):
                return False
            holding = [obj for obj in shapes if _keys_of(obj) & WORKER_ONLY]
            return 0 < len(holding) < len(shapes) and all(_count_tested(resolver, obj) for obj in holding)
    return False


WORKER_ONLY = frozenset({"persistent_workers", "prefetch_factor"})


def _keys_of(container) -> set:
    """The literal keys of a dict display."""
    return {k.value for k in container.value.keys if type(k) is Const and isinstance(k.value, str)}


def _count_tested(resolver: "Resolver", container) -> bool:
    """The display's ``num_workers`` is a name its function tests positive before handing it back."""
    display = container.value
    count = next((v for k, v in zip(display.keys, display.values) if k == Const("num_workers")), None)
    key = _tested_key(count) if count is not None else None
    scope = container.ctx.scope
    function = resolver.project.function(container.ctx.module, scope) if scope else None
    return key is not None and function is not None and any(tested == key for tested, _, _ in function.positive)


def uses_threads(resolver: "Resolver", loader) -> bool:
    base = base_loader(loader)
    spec = resolver.libraries.loader_spec(resolver, base) if base is not None else None
    if spec is None or not spec.thread_workers:
        return False
    if spec.thread_workers == "always":
        return True
    given = loader_argument(resolver, base, spec.thread_workers)
    return given is not None and truthiness(given) == "true"


KEPT_ITERATOR = "one iterator, and its workers, kept for every epoch"  # the note of ``kept_iterator``'s step


def kept_iterator(resolver: "Resolver", loader) -> Optional[Step]:
    """Where a project ``DataLoader`` subclass keeps one iterator of the library loader on the
    object, when it does (YOLOv5's ``InfiniteDataLoader`` and timm's ``MultiEpochsDataLoader``:
    ``self.iterator = super().__iter__()`` over a repeating sampler, in ``__init__`` or on the
    first ``__iter__``): its workers start once and live across epochs, as with
    ``persistent_workers=True``."""
    base = base_loader(loader)
    cls = base.cls if base is not None else None
    if not isinstance(cls, Cls):
        return None
    summary = resolver.project.summary(cls.module)
    for stores in resolver.self_stores(cls).values():
        for function, store in stores:
            if type(store.value) is not Call:
                continue
            func = summary.calls[store.value.index].func
            if last_name(func) == "__iter__" or (function.name == "__iter__" and type(func) is Name and func.id == "iter"):
                return Step(cls.module, store.span, KEPT_ITERATOR)
    return None


def construction_step(resolver: "Resolver", loader, note: str = "the loader is built here") -> Optional[Step]:
    base = base_loader(loader)
    if base is None or base.site is None:
        return None
    return Step(base.site.module, resolver.project.call(base.site).span, note)


def spec_of(resolver: "Resolver", loader) -> Optional["LoaderSpec"]:
    base = base_loader(loader)
    return resolver.libraries.loader_spec(resolver, base) if base is not None else None


def loaders_in(results: Results) -> List[Tuple[object, Trail]]:
    """The loader objects of an answer (a Managed keeps its manager), with their trails."""
    return [(f.obj, f.trail) for f in results if isinstance(f.obj, (Inst, Managed))]


class ArgumentSource(NamedTuple):
    """Where a loader argument is written: its value, the context it is read in, its span."""

    value: object  # analysis.values.Value
    ctx: Ctx
    site: SiteRef
    span: object  # the keyword (``name=value``) or the positional argument


def inherited(resolver: "Resolver", inst, given: ArgumentSource) -> bool:
    """Whether ``given`` comes from a config the loader's own config inherits from (``mmconfig``)."""
    base = base_loader(inst)
    return mmconfig.configured(base) and base.site is not None and given.site != base.site


def argument_source(resolver: "Resolver", inst, name: str, anywhere: bool = False) -> Optional[ArgumentSource]:
    """The expression passed for ``name`` where it is written directly (not through ``**kw``);
    with ``anywhere``, also one a branch puts into the ``**kwargs`` dict (``if use_cuda:
    kwargs.update(cuda_kwargs)``): passed on some paths only."""
    inst = base_loader(inst)
    spec = resolver.libraries.loader_spec(resolver, inst) if inst is not None else None
    if spec is None:
        return None
    renamed = {v: k for k, v in spec.renames.items()}.get(name, name)
    position = spec.positional.index(renamed) if renamed in spec.positional else None
    for source in sources(resolver, inst):
        site = resolver.project.call(source.site)
        ctx = source.ctx or Ctx(source.site.module, site.scope)
        for (key, value), span in zip(site.keywords, site.keyword_spans):
            if key == renamed:
                return ArgumentSource(value, ctx, source.site, span)
        for (key, value), span in zip(site.keywords, site.keyword_spans):
            if key is None:
                found = _splat_source(resolver, value, ctx, source.site, span, renamed, anywhere=anywhere)
                if found is not None:
                    return found
        if position is not None:
            index = position + source.shift
            if index < len(site.args) and not any(isinstance(a, Starred) for a in site.args[: index + 1]):
                return ArgumentSource(site.args[index], ctx, source.site, site.arg_spans[index])
            found = _starred_source(resolver, site.args, ctx, index)
            if found is not None:
                return found
    return None


POSITIVE_TESTS = {">": 0, ">=": 1, "!=": 0}  # ``workers > 0``, ``workers >= 1``, ``workers != 0``


def persistent_with_workers(resolver: "Resolver", inst) -> Optional[ArgumentSource]:
    """``persistent_workers=<w> > 0`` (or ``>= 1``, ``!= 0``, ``bool(<w>)``) written beside
    ``num_workers=<w>``, the same expression in the same place: whatever ``<w>`` turns out to
    be, the workers are persistent whenever there are workers."""
    given = argument_source(resolver, inst, "persistent_workers")
    count = argument_source(resolver, inst, "num_workers")
    if given is None or count is None or given.site != count.site or given.ctx != count.ctx:
        return None
    tested = _tested_positive(resolver, given)
    return given if tested is not None and same_value(tested, count.value) else None


def _tested_positive(resolver: "Resolver", given: ArgumentSource):
    """The value ``given`` tests to be positive (``x > 0``, ``x >= 1``, ``x != 0``, ``bool(x)``)."""
    value = given.value
    if type(value) is Op and value.op in POSITIVE_TESTS and len(value.args) == 2:
        bound = value.args[1]
        if type(bound) is Const and type(bound.value) is int and bound.value == POSITIVE_TESTS[value.op]:
            return value.args[0]
    if type(value) is Call:
        site = resolver.project.call(SiteRef(given.site.module, value.index))
        if len(site.args) == 1 and not site.keywords and any(
                type(f.obj) is Ext and f.obj.qualname == "builtins.bool" for f in resolver.eval(site.func, given.ctx)):
            return site.args[0]
    return None


def put_with_zero_workers(resolver: "Resolver", inst, name: str) -> Optional[ArgumentSource]:
    """``name`` put into the ``**kwargs`` dict by a branch that puts a literal ``num_workers``
    of 0 in with it (``if use_cuda: kwargs.update({"num_workers": 0, "persistent_workers":
    True})``, the shape of PyTorch's MNIST example): wherever that branch runs, both hold."""
    given = argument_source(resolver, inst, name, anywhere=True)
    count = argument_source(resolver, inst, "num_workers", anywhere=True)
    if given is None or count is None or (given.site, given.span) != (count.site, count.span):
        return None
    values = resolver.eval(count.value, count.ctx)
    if values and not overridable(values) and all(type(f.obj) is Lit and f.obj.value == 0 for f in values):
        return given
    return None


def _starred_source(resolver: "Resolver", args, ctx: Ctx, index: int, depth: int = 0) -> Optional[ArgumentSource]:
    """Positional argument ``index`` of ``args`` written by a caller of a function that
    forwards its ``*args`` (``def make_loader(*args, **kw): return DataLoader(*args, **kw)``
    called as ``make_loader(ds, 32, True)``): the caller's argument, when the ``*args``
    is one caller's."""
    starred = next((j for j, a in enumerate(args[: index + 1]) if isinstance(a, Starred)), None)
    if starred is None or depth > 4:
        return None
    found = resolver.eval(args[starred].value, ctx)
    if len(found) != 1 or type(found[0].obj) is not Varargs:
        return None
    call = resolver.vararg_call(found[0].obj)
    if call is None:
        return None
    ref, first, caller = call
    site = resolver.project.call(ref)
    target = first + index - starred
    if target < len(site.args) and not any(isinstance(a, Starred) for a in site.args[first: target + 1]):
        return ArgumentSource(site.args[target], caller, ref, site.arg_spans[target])
    return _starred_source(resolver, site.args[first:], caller, index - starred, depth + 1) if target < len(site.args) else None


def _splat_source(resolver: "Resolver", mapping, ctx: Ctx, site: SiteRef, span, key: str,
                  depth: int = 0, anywhere: bool = False) -> Optional[ArgumentSource]:
    """``key`` inside a ``**mapping`` argument: put into the dict after it is made, a
    ``dict(...)`` call's keyword, a dict display's entry (reported at the ``**``), or the
    keyword a caller passed into ``**kwargs``; through copies (``dict(BASE, k=v)``,
    ``{**BASE, "k": v}``, ``BASE.copy()``), the last entry for a key winning."""
    if depth > 3:
        return None
    for found in resolver.eval(mapping, ctx):
        obj = found.obj
        if isinstance(obj, Container) and obj.kind == "dict":
            put = _put_in_later(resolver, mapping, ctx, obj, site, span, key, depth, anywhere)
            if put is not None:
                return put
            entry = _dict_entry(resolver, obj, site, span, key, depth)
            if entry is not None:
                return entry
        elif isinstance(obj, Config) and configfiles.writes_key(resolver, obj, key):
            return ArgumentSource(Item(mapping, Const(key)), ctx, site, span)  # ``**cfg.loader``: the file's entry
        elif isinstance(obj, Inst) and resolver.is_bag(obj):
            found_in_bag = _bag_source(resolver, obj, mapping, ctx, site, span, key)
            if found_in_bag is not None:
                return found_in_bag
        elif isinstance(obj, Inst) and isinstance(obj.cls, Ext) and obj.cls.qualname == "dataclasses.asdict" \
                and obj.site is not None and resolver.project.call(obj.site).args \
                and resolver.asdict_item(obj, key) is not None:  # ``**asdict(cfg)``: the field ``cfg.<key>``
            made = resolver.project.call(obj.site)
            return ArgumentSource(Attr(made.args[0], key), obj.ctx or Ctx(obj.site.module, made.scope), site, span)
        elif isinstance(obj, Kwargs) and obj.ctx.call is not None:
            call = resolver.project.call(obj.ctx.call)
            caller = obj.ctx.caller or Ctx(obj.ctx.call.module, call.scope)
            for (name, value), inner in zip(call.keywords, call.keyword_spans):
                if name == key:
                    return ArgumentSource(value, caller, obj.ctx.call, inner)
            for (name, value), inner in zip(call.keywords, call.keyword_spans):
                if name is None:
                    deeper = _splat_source(resolver, value, caller, obj.ctx.call, inner, key, depth + 1)
                    if deeper is not None:
                        return deeper
            default = resolver.kwargs_default(obj, key)  # ``kwargs.setdefault(key, value)``
            if default is not None:
                return ArgumentSource(default[0], obj.ctx, default[1], default[2])
    return None


def _bag_source(resolver: "Resolver", bag: Inst, mapping, ctx: Ctx, site: SiteRef, span,
                key: str) -> Optional[ArgumentSource]:
    """``key`` of an attribute bag splatted into the call (``**c.data_loader_kwargs`` of an
    ``EasyDict(pin_memory=True, prefetch_factor=2)``): read as the bag's attribute, what is set
    on it later included, and reported at the keyword that built the bag when it has one,
    else at the ``**``. None when neither the construction nor a later store gives it."""
    value = Attr(mapping, key)
    if bag.site is not None:
        call = resolver.project.call(bag.site)
        for (name, _), inner in zip(call.keywords, call.keyword_spans):
            if name == key:
                return ArgumentSource(value, ctx, bag.site, inner)
    always, sometimes, _, _ = resolver.outside_stores(bag, key)
    return ArgumentSource(value, ctx, site, span) if always or sometimes else None


def _dict_entry(resolver: "Resolver", container, site: SiteRef, span, key: str,
                depth: int) -> Optional[ArgumentSource]:
    """``key`` among the entries of a dict display or ``dict(...)`` call, last first: a
    keyword of the call (where it is written), a literal key (reported at the ``**``), or
    inside a mapping copied into it (``{**BASE}``, ``dict(BASE)``)."""
    written = {}
    if container.site is not None:
        call = resolver.project.call(container.site)
        written = {name: inner for (name, _), inner in zip(call.keywords, call.keyword_spans) if name is not None}
    for name, value in reversed(tuple(zip(container.value.keys, container.value.values))):
        if name is None:
            copied = _splat_source(resolver, value, container.ctx, site, span, key, depth + 1)
            if copied is not None:
                return copied
        elif isinstance(name, Const) and name.value == key:
            if key in written:
                return ArgumentSource(value, container.ctx, container.site, written[key])
            return ArgumentSource(value, container.ctx, site, span)
    return None


def _put_in_later(resolver: "Resolver", mapping, ctx: Ctx, container, site: SiteRef, span, key: str,
                  depth: int, anywhere: bool = False) -> Optional[ArgumentSource]:
    """``key`` put into the local dict ``mapping`` after it is made, on every path: by
    ``kwargs["key"] = v`` in the dict's own block, or by ``kwargs.update(key=v)`` /
    ``kwargs.update(other)`` written at the dict's own indentation (not under an ``if``);
    with ``anywhere``, also under a branch after it is made."""
    if not isinstance(mapping, Name) or not ctx.scope:
        return None
    function = resolver.project.function(ctx.module, ctx.scope)
    made = [b for b in (function.bindings.get(mapping.id, ()) if function is not None else ())
            if b.value is container.value or (container.site is not None and isinstance(b.value, Call))]
    if len(made) != 1:
        return None  # rebound: which dict reaches the loader is not one
    made = made[0]
    summary = resolver.project.summary(ctx.module)
    for store in summary.stores:
        if (store.attr == "[]" and store.kind == "assign" and store.scope == ctx.scope
                and (store.block == made.block or anywhere)
                and isinstance(store.target, Name) and store.target.id == mapping.id
                and isinstance(store.key, Const) and store.key.value == key and store.span.row > made.span.row):
            return ArgumentSource(store.value, ctx, site, span)
    for index, call in enumerate(summary.calls):
        func = call.func
        if not (isinstance(func, Attr) and func.name == "update" and isinstance(func.base, Name)
                and func.base.id == mapping.id and call.scope == ctx.scope
                and (call.span.col == made.span.col or anywhere and call.span.col > made.span.col)
                and call.span.row > made.span.row):
            continue
        ref = SiteRef(ctx.module, index)
        for (name, value), inner in zip(call.keywords, call.keyword_spans):
            if name == key:
                return ArgumentSource(value, ctx, ref, inner)
        if len(call.args) == 1:
            other = _splat_source(resolver, call.args[0], ctx, ref, call.arg_spans[0], key, depth + 1, anywhere)
            if other is not None:
                return other
    return None


def substitute(value, old, new):
    """``value`` with every occurrence of the sub-value ``old`` replaced by ``new``."""
    if same_value(value, old):
        return new
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        changed = False
        parts = []
        for part in value:
            if isinstance(part, tuple):
                replaced = substitute(part, old, new) if hasattr(part, "_fields") else tuple(
                    substitute(p, old, new) if isinstance(p, tuple) else p for p in part)
                changed |= replaced is not part
                parts.append(replaced)
            else:
                parts.append(part)
        return type(value)(*parts) if changed else value
    return value


def when_workers_zero(resolver: "Resolver", inst, name: str) -> Tuple[Optional[Results], bool]:
    """The value of argument ``name`` where the worker count is zero, and whether the
    expression itself tests the worker count (``2 if workers > 0 else None``)."""
    given = argument_source(resolver, inst, name)
    if given is None:
        found = loader_argument(resolver, inst, name)
        return found, False
    workers = argument_source(resolver, inst, "num_workers")
    value = given.value
    tested = False
    if workers is not None and workers.ctx == given.ctx and not isinstance(workers.value, Const):
        function = resolver.project.function(given.ctx.module, given.ctx.scope) if given.ctx.scope else None
        written = bound_once(value, function)  # ``prefetch = 2 * n if n > 0 else 2``, then ``prefetch_factor=prefetch``
        zeroed = substitute(written, workers.value, Const(0))
        tested = zeroed is not written and zeroed != written
        value = zeroed if tested else value
    step = Step(given.site.module, given.span, f"argument `{name}`")
    return tuple(Found(f.obj, (step,) + f.trail) for f in resolver.eval(value, given.ctx)), tested


def shared_elsewhere(resolver: "Resolver", inst, given: ArgumentSource, name: str, everything) -> bool:
    """The ``name=`` keyword ``given`` for ``inst`` is written outside the loader's own call
    (in a ``dict(...)`` splatted into it, or copied: ``{**BASE, ...}``) and another loader
    of ``everything`` takes it from there too: rewriting it there changes that loader."""
    if any(source.site == given.site for source in sources(resolver, inst)):
        return False
    for other in everything:
        if other is inst:
            continue
        found = argument_source(resolver, other, name)
        if found is not None and found.site == given.site and found.span == given.span:
            return True
    return False


def rewritable_in_place(resolver: "Resolver", inst, given: ArgumentSource, count: Optional[ArgumentSource],
                        name: str, everything) -> bool:
    """Whether a fixer may rewrite the ``name=`` keyword ``given`` where it is written: the
    worker count is absent or written in the same call, and no other loader takes the
    keyword from there."""
    return (count is None or count.site == given.site) and not shared_elsewhere(resolver, inst, given, name, everything)


def fix_facts(resolver: "Resolver", inst) -> dict:
    """What a keyword fixer needs: whether the loader takes DataLoader's positional
    arguments, and the worker-count expression when it is written somewhere."""
    base = base_loader(inst)
    spec = resolver.libraries.loader_spec(resolver, base) if base is not None else None
    known = spec is not None and spec.kind == "class" and isinstance(base.cls, Ext) and \
        spec.positional == DATALOADER_POSITIONAL
    given = argument_source(resolver, inst, "num_workers")
    source = None
    if given is not None:
        text = resolver.project.text_of(given.site.module, given.span)
        source = text.split("=", 1)[1].strip() if "=" in text.split("(")[0] else text
    return {"known_loader": known, "workers_source": source}


# what the libraries change ------------------------------------------------------------------
def written_name(resolver: "Resolver", loader, name: str) -> str:
    """The name the loader's library gives DataLoader argument ``name`` (``dataloader_num_workers``)."""
    spec = spec_of(resolver, loader)
    renamed = {v: k for k, v in spec.renames.items()} if spec is not None else {}
    return renamed.get(name, name)


def error_for(resolver: "Resolver", loader, name: str, default: str) -> str:
    """The error a bad ``name`` raises: the library's own check (HF ``TrainingArguments``), or torch's."""
    spec = spec_of(resolver, loader)
    return spec.raises.get(name, default) if spec is not None else default


def reseeded_by_library(resolver: "Resolver", loader, obj) -> Tuple[frozenset, Optional[object]]:
    """What the loader's default ``worker_init_fn`` reseeds on ``obj`` in every worker: the
    attributes a library base class replaces, and the project's own reseeding method (a
    Func) when the class defines it. Nothing when the user gives a ``worker_init_fn``."""
    spec = spec_of(resolver, loader)
    reseeding = spec.reseeding if spec is not None else None
    if reseeding is None or not isinstance(obj, Inst) or not isinstance(obj.cls, Cls) \
            or loader_argument(resolver, loader, "worker_init_fn") is not None:
        return frozenset(), None
    attributes = frozenset()
    if any(isinstance(item, Ext) and matches(item.qualname, reseeding.bases) for item in resolver.mro(obj.cls)):
        attributes = frozenset(reseeding.attributes)
    return attributes, resolver.method(obj.cls, reseeding.method)


class UnsplitDataset(NamedTuple):
    """A library dataset whose worker splitter is turned off, where that is written."""

    spec: object  # libraries.DatasetSpec
    module: str
    span: object


PIPELINES = ("webdataset.DataPipeline", "webdataset.pipeline.DataPipeline")
SHARD_LISTS = ("webdataset.SimpleShardList", "webdataset.shardlists.SimpleShardList")
# stages that give each worker its own shards, or draw shards at random in each worker
SPLITTING_STAGES = ("split_by_worker", "ResampledShards", "resampled")


def unsplit_pipeline(resolver: "Resolver", obj) -> Optional[SiteRef]:
    """A webdataset ``DataPipeline`` whose first stage is a fixed shard list and none of whose
    stages splits by worker: every worker reads every shard. None when a stage is unknown.
    Linting webdataset's own tree, its classes and functions are known by their dotted names."""
    if not (isinstance(obj, Inst) and obj.site is not None and library_name(resolver, obj.cls) in PIPELINES):
        return None
    site = resolver.project.call(obj.site)
    ctx = obj.ctx or Ctx(obj.site.module, site.scope)
    names = _stage_names(resolver, site, ctx) if isinstance(obj.cls, Ext) \
        else _own_stage_names(resolver, obj.site.module, site, ctx)
    if not names or names[0] not in SHARD_LISTS or any(n.rpartition(".")[2] in SPLITTING_STAGES for n in names):
        return None
    return obj.site


def library_name(resolver: "Resolver", obj) -> Optional[str]:
    """The dotted name the library tables know ``obj`` by: an installed library's, or, when
    that library's own tree is linted, its module's name and the class or function's."""
    if isinstance(obj, Ext):
        return obj.qualname
    if isinstance(obj, (Cls, Func)):
        info = resolver.project.modules.get(obj.module)
        if info is not None and info.name:
            return f"{info.name}.{obj.qualname}"
    return None


def _stage_names(resolver: "Resolver", site, ctx: Ctx) -> Optional[List[str]]:
    """The dotted names of an installed pipeline's stages (what each is made by)."""
    stages = []
    for value in site.args:
        for found in resolver.eval(value.value if type(value) is Starred else value, ctx):
            stages.extend(resolver.container_values(found.obj) if isinstance(found.obj, Container) else (found,))
    names = []
    for stage in stages:
        made = stage.obj.cls if isinstance(stage.obj, Inst) else stage.obj
        if not isinstance(made, Ext):
            return None
        names.append(made.qualname.replace("()", ""))
    return names


def _own_stage_names(resolver: "Resolver", module: str, site, ctx: Ctx) -> Optional[List[str]]:
    """The stages of a pipeline built in webdataset's own tree, by what is written: a call's
    callee (``wds.tarfile_to_samples()``) or the stage itself (``wds.split_by_worker``), named
    through the module it is read from."""
    summary = resolver.project.summary(module)
    names = []
    for value in site.args:
        if type(value) is Starred:
            return None
        callee = summary.calls[value.index].func if type(value) is Call else value
        named = _written_name(resolver, callee, ctx)
        if named is None:
            return None
        names.append(named)
    return names


def _written_name(resolver: "Resolver", value, ctx: Ctx) -> Optional[str]:
    """``wds.split_by_worker``: the module's dotted name and the attribute; a name bound to a
    class or function: its dotted name."""
    if type(value) is Attr:
        bases = resolver.eval(value.base, ctx)
        if len(bases) == 1 and isinstance(bases[0].obj, Mod):
            info = resolver.project.modules.get(bases[0].obj.module)
            return f"{info.name}.{value.name}" if info is not None and info.name else None
    found = resolver.eval(value, ctx)
    named = {library_name(resolver, f.obj) for f in found}
    return named.pop() if len(named) == 1 else None


def unsplit_dataset(resolver: "Resolver", obj) -> Optional[UnsplitDataset]:
    """``wds.WebDataset(urls, workersplitter=None)`` (through any ``.shuffle(...).decode()``
    stages): every worker reads every shard."""
    for _ in range(12):
        if not isinstance(obj, Inst) or not isinstance(obj.cls, Ext) or obj.site is None:
            return None
        spec = resolver.libraries.dataset_spec(obj.cls.qualname)
        site = resolver.project.call(obj.site)
        if spec is not None and "()" not in obj.cls.qualname:
            for (key, value), span in zip(site.keywords, site.keyword_spans):
                if key == spec.split_argument:
                    ctx = obj.ctx or Ctx(obj.site.module, site.scope)
                    if truthiness(resolver.eval(value, ctx)) == "false":
                        return UnsplitDataset(spec, obj.site.module, span)
            return None
        if "()." not in obj.cls.qualname or not isinstance(site.func, Attr):
            return None
        ctx = obj.ctx or Ctx(obj.site.module, site.scope)
        receivers = [f.obj for f in resolver.eval(site.func.base, ctx)]
        obj = receivers[0] if len(receivers) == 1 else None
    return None
