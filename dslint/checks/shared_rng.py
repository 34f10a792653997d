"""DSL402 shared-rng: every worker draws the same random numbers.

PyTorch reseeds the global ``random``, ``numpy.random`` and torch generators in each
worker, but not a generator *object* created before the workers start (in a Dataset's
``__init__``, in a transform object the dataset holds, at module level): fork copies its
state (spawn pickles it) into every worker, so all workers draw identical augmentations,
and without persistent workers every epoch repeats them. So does a generator each worker
builds for itself from the same constant seed (lazily in ``__getitem__``), and a
``worker_init_fn`` that seeds the global generators, itself or through a helper like
``seed_everything()``, with a value that does not depend on the worker (``rank + seed``
bound by ``functools.partial``).
"""

from __future__ import annotations

from typing import Iterator, List, NamedTuple, Optional, Set, Tuple

from ..analysis.summary import AttrStore
from ..analysis.values import NONE, Attr, Call, Name, Op
from ..diagnostics import Finding
from ..model import effects, loaders
from ..model.externals import truthiness
from ..model.objects import Cls, Ctx, Found, Func, Inst, Lit, Step
from ..model.project import sites_in_scope
from ..model.queries import WORKER_METHODS, Model
from .base import finding

CODE = "DSL402"
STREAM_METHODS = ("__iter__", "__next__")
SEED_KEYWORDS = ("seed", "x")  # ``default_rng(seed=...)``, ``RandomState(seed=...)``, ``random.Random(x=...)``


class _Uses(NamedTuple):
    """What the worker code of one dataset object does with its attributes."""

    loader: object
    function: object  # the first worker function seen (for the finding's trail)
    reads: Set[str]
    reseeded: Set[str]
    alike: List[Tuple[AttrStore, str, object]]  # generators built in every worker from one seed
    funcs: Set[Func]  # every worker function run on the object


def check(model: Model) -> Iterator[Finding]:
    reported: Set[Tuple[str, object]] = set()
    by_object = {}
    held: List["_Held"] = []
    for loader, workers, function in model.worker_runs():
        obj = function.self_obj
        if isinstance(obj, Inst) and isinstance(obj.cls, Cls):
            uses = by_object.setdefault(obj, _Uses(loader, function, set(), set(), [], set()))
            uses.funcs.add(function.func)
            uses.reads.update(model.function_summary(function.func).self_reads)
            alike = _built_alike(model, function.func, obj)
            uses.alike.extend((store, constructor, function) for store, constructor in alike)
            uses.reseeded.update(effects.reseeded_attributes(model, function.func, {store.span for store, _ in alike}))
    for obj, uses in by_object.items():
        by_init, methods = _reseeded_by_worker_init(model, uses.loader, obj)
        reseeded = uses.reseeded | by_init | _reseeded_by_library(model, uses.loader, obj)
        alike = [entry for entry in uses.alike if entry[0].attr in uses.reads - reseeded]
        shared = uses.reads - reseeded - {store.attr for store, _, _ in alike}  # else reported where rebuilt
        shared = {attr for attr in shared if not _drawn_only_when_off(model, obj, attr, uses.funcs)}
        held.extend(_generators(model, obj, shared, uses.function, reported, methods))
        yield from _rebuilt_alike(model, obj, alike, reported)
    yield from _one_per_generator(model, held)
    yield from _constant_worker_seeds(model, reported)
    yield from _epoch_constant_worker_seeds(model, reported)
    yield from _constant_worker_generators(model, reported)
    yield from _module_generators(model, reported)


def _drawn_only_when_off(model: Model, obj: Inst, attr: str, funcs: Set[Func]) -> bool:
    """Whether the workers of this object never use ``self.<attr>``: every use is a call in a
    branch of a flag of the object that is false for it (``if self.train:``, ``if
    self.mosaic_prob and self.rng.random() < ...``: the validation set built with
    ``train=False`` never draws), or in a method called only from such branches. Any other
    use (``rng = self.rng``), or a flag not known to be false: no."""
    uses = [(func, site) for func in sorted(funcs) for site in _uses_of(model, func, attr)]
    if not uses or any(site is None for _, site in uses):
        return False
    return all(_off(model, obj, func, site, funcs, 1) for func, site in uses)


def _uses_of(model: Model, func: Func, attr: str) -> list:
    """The call sites of ``func`` that use ``self.<attr>`` (as the receiver or an argument),
    with None standing for a use that is not such a call."""
    function = model.function_summary(func)
    if function is None or attr not in function.self_reads:
        return []
    if not function.params:
        return [None]
    me = function.params[0].name
    summary = model.project.summary(func.module)
    mine = lambda value: type(value) is Attr and value.name == attr and type(value.base) is Name \
        and value.base.id == me  # noqa: E731
    sites = []
    for index in sites_in_scope(model.project, func.module, func.qualname):
        site = summary.calls[index]
        receiver = site.func.base if type(site.func) is Attr else None
        if mine(receiver) or any(mine(value) for value in (*site.args, *(v for _, v in site.keywords))):
            sites.append(site)
    return sites or [None]


def _off(model: Model, obj: Inst, func: Func, site, funcs: Set[Func], depth: int) -> bool:
    """Whether the call ``site`` of ``func`` never runs for ``obj``: a flag of the object
    guarding it is false (or None, for ``if self.augment is not None:``), or ``func`` is a
    helper only such sites call (``depth`` levels)."""
    guard = _guard(model, func, site)
    if guard is not None:
        flag, none_test = guard
        ctx = Ctx(func.module, func.qualname, None, None, obj)
        values = model.resolver.attribute(Found(obj), flag, ctx)
        if none_test:
            return bool(values) and all(type(f.obj) is Lit and f.obj.value is None for f in values)
        return truthiness(values) == "false"
    function = model.function_summary(func)
    if depth <= 0 or function.name in WORKER_METHODS or not model.resolver.all_callers_known(func):
        return False
    callers = model.resolver.callers(func)
    return bool(callers) and all(
        Func(ref.module, model.project.call(ref).scope) in funcs
        and _off(model, obj, Func(ref.module, model.project.call(ref).scope), model.project.call(ref), funcs,
                 depth - 1)
        for ref, _ in callers)


def _guard(model: Model, func: Func, site) -> Optional[Tuple[str, bool]]:
    """The attribute of ``self`` whose truth (or, with True, whose not being None: ``if
    self.augment is not None:``) a call depends on: the first operand of an ``and`` test on the
    call's own line, or the test of an ``if`` whose body holds it."""
    function = model.function_summary(func)
    me = function.params[0].name if function.params else None

    def mine(value) -> bool:
        return type(value) is Attr and type(value.base) is Name and value.base.id == me

    def flag(test) -> Optional[Tuple[str, bool]]:
        if type(test) is Op and test.op == "and" and test.args:
            test = test.args[0]
        if mine(test):
            return test.name, False
        if type(test) is Op and test.op == "is-not" and len(test.args) == 2 and mine(test.args[0]) \
                and test.args[1] == NONE:
            return test.args[0].name, True
        return None

    row = site.span.row
    for test, span in function.tests:
        if span.row == row and type(test) is Op and test.op == "and" and span.end_row == row:
            found = flag(test)
            if found is not None:
                return found
    for _, first, last in function.blocks:
        if first <= row <= last:
            for test, span in function.tests:
                if span.end_row == first - 1:
                    found = flag(test)
                    if found is not None:
                        return found
    return None


def _built_alike(model: Model, func: Func, obj: Inst) -> List[Tuple[AttrStore, str]]:
    """Generators a worker method stores on its object from a seed that is the same in every
    worker (``if self.rng is None: self.rng = np.random.default_rng(self.seed)`` with
    ``self.seed = 7``): each worker builds the same stream, so that is no reseeding."""
    function = model.function_summary(func)
    if function is None or not function.params or function.scope_kind != "class" or function.name in STREAM_METHODS:
        return []  # a stream's own generator is DSL401's: the stream it yields is the same in every worker
    me = function.params[0].name
    ctx = model.resolver.method_ctx(obj, func.module, function)
    return [(store, constructor) for store, constructor in _constant_seeded_stores(model, func, ctx)
            if isinstance(store.target, Name) and store.target.id == me]


def _constant_seeded_stores(model: Model, func: Func, ctx: Ctx) -> Iterator[Tuple[AttrStore, str]]:
    """(store, constructor) of the generators ``func`` builds from a known constant seed and
    stores as an attribute (``x.rng = np.random.default_rng(7)``)."""
    summary = model.project.summary(func.module)
    for store in summary.stores if summary is not None else ():
        if store.scope != func.qualname or store.kind != "assign" or not isinstance(store.value, Call):
            continue
        constructor = effects.rng_of(model.resolver.eval(store.value, ctx))
        if constructor is not None and _constant_seed_argument(model, summary.calls[store.value.index], ctx):
            yield store, constructor


def _constant_seed_argument(model: Model, site, ctx: Ctx) -> bool:
    """Whether a generator's construction (or its ``.manual_seed(n)``) is given a seed that is
    a known constant. No seed, ``None`` (the OS's entropy) or anything not followed: no."""
    seed = site.args[0] if site.args else next((v for k, v in site.keywords if k in SEED_KEYWORDS), None)
    if seed is None:
        return False
    found = model.resolver.eval(seed, ctx)
    return bool(found) and all(isinstance(f.obj, Lit) and isinstance(f.obj.value, (int, str, bytes))
                               and not isinstance(f.obj.value, bool) for f in found)


def _rebuilt_alike(model: Model, obj: Inst, alike, reported) -> Iterator[Finding]:
    for store, constructor, function in alike:
        key = (function.func.module, store.span)
        if key in reported:
            continue
        reported.add(key)
        klass = model.project.klass(obj.cls.module, obj.cls.qualname)
        method = model.function_summary(function.func).name
        short = constructor.replace("numpy.", "np.")
        yield finding(
            model, CODE, function.func.module, store.span,
            f"`{short}(...)` built as `self.{store.attr}` in `{klass.name}.{method}` from a seed that is the same "
            f"in every DataLoader worker, so all workers draw the same numbers: seed it from "
            f"`torch.utils.data.get_worker_info().seed` (or `torch.initial_seed()`)",
            tuple(function.trail),
        )


def _reseeded_by_library(model: Model, loader, obj) -> Set[str]:
    """What the library's default ``worker_init_fn`` reseeds on ``obj`` (MONAI: ``set_random_state``)."""
    if loader is None:
        return set()
    attributes, method = loaders.reseeded_by_library(model.resolver, loader, obj)
    return set(attributes) | (effects.reseeded_attributes(model, method) if method is not None else set())


def _reseeded_by_worker_init(model: Model, loader, obj: Inst) -> Tuple[Set[str], Set[str]]:
    """Attributes the loader's ``worker_init_fn`` reseeds or touches, also through methods of
    the dataset it calls by name (``info.dataset.reseed(seed)``), and those methods' names."""
    init = effects.worker_init(model, loader, obj)
    wrapped = not _loader_dataset(model, loader, obj)
    attrs: Set[str] = set()
    for func in init.functions:
        reseeded = effects.reseeded_attributes(model, func, wrapped=wrapped)
        attrs |= reseeded
        function = model.function_summary(func)
        if function is not None and (not wrapped or reseeded != effects.reseeded_attributes(model, func)):
            attrs |= set(function.attr_loads)  # what it touches, unless it only sets things on the wrapper
    for method in init.methods.values():
        attrs |= effects.reseeded_attributes(model, method)
    return attrs, set(init.methods)


def _loader_dataset(model: Model, loader, obj: Inst) -> bool:
    """Whether ``obj`` is the loader's own dataset (what ``get_worker_info().dataset`` is in
    its workers), not one a wrapper of it holds; True when the loader's dataset is not known."""
    given = model.argument(loader, "dataset") if loader is not None else None
    return not given or any(found.obj == obj or not isinstance(found.obj, Inst) for found in given)


class _Held(NamedTuple):
    """A generator object stored on a dataset object the workers run (a finding to make):
    where it was built (``origin``, its construction call), and whether this store is there."""

    origin: Optional[object]  # SiteRef of the generator's construction
    built_here: bool
    module: str
    span: object
    message: str
    steps: tuple
    holder: str  # ``self.rng`` in ``Cls``


def _generators(model: Model, obj: Inst, attrs, function, reported, reseeding=frozenset()) -> Iterator[_Held]:
    for item in model.resolver.mro(obj.cls):
        if not isinstance(item, Cls):
            continue
        stores = model.resolver.self_stores(item)
        for attr in sorted(attrs & set(stores)):
            made = []
            for method, store in stores[attr]:
                if method.name in WORKER_METHODS or "worker" in method.name.lower() or method.name in reseeding:
                    continue  # runs in the workers (also a method the worker_init_fn calls)
                ctx = model.resolver.method_ctx(obj, item.module, method)
                results = model.resolver.eval(store.value, ctx)
                constructor = effects.rng_of(results)
                if constructor is not None and (item.module, store.span) not in reported:
                    made.append((method, store, constructor, _origin(results)))
            if not made:
                continue
            # one finding per attribute: at the generator ``__init__`` makes (what every worker
            # copies), the other methods that rebuild it (a ``reseed`` nobody calls) as related
            method, store, constructor, origin = next((entry for entry in made if entry[0].name == "__init__"), made[0])
            reported.update((item.module, other.span) for _, other, _, _ in made)
            others = tuple(Step(item.module, other.span, f"also built in `{where.name}`")
                           for where, other, _, _ in made if other is not store)
            klass = model.project.klass(item.module, item.qualname)
            short = constructor.replace("numpy.", "np.")
            built_here = origin is not None and origin.module == item.module and \
                model.project.call(origin).scope == method.qualname
            yield _Held(origin, built_here, item.module, store.span,
                        f"`{short}(...)` stored as `self.{attr}` in `{klass.name}.{method.name}` is copied into every "
                        f"DataLoader worker, so all workers draw the same numbers: reseed it per worker in a "
                        f"`worker_init_fn` from `torch.utils.data.get_worker_info().seed`",
                        others + tuple(function.trail), f"`self.{attr}` of `{klass.name}`")


def _origin(results):
    """The construction call of the generator object among ``results``."""
    return next((found.obj.site for found in results if isinstance(found.obj, Inst) and found.obj.site is not None
                 and effects.rng_of((found,)) is not None), None)


def _one_per_generator(model: Model, held: List[_Held]) -> Iterator[Finding]:
    """One finding per generator object: one ``RandomState`` handed to the dataset's transforms
    and kept by each is one cause, reported where it is built and stored (else at the first
    holder), the other holders related."""
    groups: dict = {}
    for entry in held:
        groups.setdefault(entry.origin if entry.origin is not None else id(entry), []).append(entry)
    for group in groups.values():
        main = next((entry for entry in group if entry.built_here), None)
        if main is None and group[0].origin is not None:
            # built elsewhere and handed in (``PoseAugmentor(self.rng)``): reported where it is built
            origin = group[0].origin
            also = tuple(Step(entry.module, entry.span, f"held as {entry.holder}") for entry in group)
            yield finding(model, CODE, origin.module, model.project.call(origin).span, group[0].message,
                          also + group[0].steps)
            continue
        main = main or group[0]
        also = tuple(Step(entry.module, entry.span, f"the same generator, held as {entry.holder}")
                     for entry in group if entry is not main)
        yield finding(model, CODE, main.module, main.span, main.message, also + main.steps)


def _module_generators(model: Model, reported) -> Iterator[Finding]:
    """Generator objects made at module level that worker code draws from (``RNG =
    np.random.default_rng(2024)`` in a helper module): every forked worker gets a copy in the
    same state (a spawned one rebuilds it from the same seed). Not reported where the
    ``worker_init_fn`` touches the name or any function rebinds it (``global RNG``)."""
    rebound = {name for info in model.project.eager_modules() for function in info.summary.functions.values()
               for name in function.declared_global}
    for loader, workers, function in model.worker_runs():
        if loader is None or (workers is not None and workers.threads):
            continue
        summary = model.function_summary(function.func)
        module = model.project.summary(function.func.module)
        if summary is None or module is None:
            continue
        init = effects.worker_init(model, loader, function.self_obj)
        touched = set().union(*(f.loads | f.attr_loads for f in map(model.function_summary, init.functions) if f))
        for name in sorted(summary.loads - set(summary.bindings) - rebound - touched):
            bindings = module.bindings.get(name, ())
            if not bindings or any(b.kind != "assign" for b in bindings):
                continue
            for binding in bindings:
                constructor = effects.rng_of(model.resolver.eval(binding.value, Ctx(function.func.module)))
                key = (function.func.module, binding.span)
                if constructor is None or key in reported:
                    continue
                reported.add(key)
                short = constructor.replace("numpy.", "np.")
                yield finding(
                    model, CODE, function.func.module, binding.span,
                    f"`{short}(...)` made at module level as `{name}` and drawn from by worker code "
                    f"(`{summary.name}`) is copied into every DataLoader worker in the same state, so all workers "
                    f"draw the same numbers: make it in each worker (lazily, from "
                    f"`torch.utils.data.get_worker_info().seed`)",
                    tuple(function.trail),
                )


def _worker_inits(model: Model):
    """(loader, workers, entry, summary) of every ``worker_init_fn`` of a loader whose workers
    are processes."""
    for loader in model.all_loaders():
        workers = model.workers(loader)
        if not workers.processes:
            continue
        for found in model.argument(loader, "worker_init_fn") or ():
            for entry in model.callable_entries(found.obj, "worker_init_fn", found.trail):
                function = model.function_summary(entry.func)
                if function is not None:
                    yield loader, workers, entry, function


def _constant_worker_seeds(model: Model, reported) -> Iterator[Finding]:
    for loader, workers, entry, function in _worker_inits(model):
        seed = _constant_seed(model, entry.func)
        if seed is None:
            continue
        place, trail, text = _where_to_report(model, seed)
        if place in reported:
            continue
        reported.add(place)
        yield finding(
            model, CODE, place[0], place[1],
            f"{text} in `{function.name}`, the `worker_init_fn` of a DataLoader with "
            f"{workers.describe()} workers, gives every worker the same seed in every epoch: seed from "
            f"`torch.initial_seed() % 2**32` (or `get_worker_info().seed`)",
            (model.construction(loader),) + tuple(entry.trail) + trail,
        )


def _epoch_constant_worker_seeds(model: Model, reported) -> Iterator[Finding]:
    """A ``worker_init_fn`` seeding the global generators from the worker id alone
    (``np.random.seed(worker_id)``, ``SEED + worker_id``), of a loader without persistent
    workers iterated once per epoch: the workers differ, but each epoch's workers are seeded
    as the last ones were, so every epoch replays the same draws (torch's own per-worker seed,
    which changes every epoch, is overwritten)."""
    for loader, workers, entry, function in _worker_inits(model):
        seed = _epoch_constant_seed(model, entry.func)
        if seed is None or _persistent_maybe(model, loader) \
                or not any(model.epoch_loop(it) for it in model.iterations_of(loader)):
            continue
        ref, site, _, _ = seed
        place = (ref.module, site.span)
        if place in reported:
            continue
        reported.add(place)
        text = " ".join(model.project.text_of(ref.module, site.span).split())
        yield finding(
            model, CODE, ref.module, site.span,
            f"`{text}` in `{function.name}`, the `worker_init_fn` of a DataLoader with {workers.describe()} "
            f"workers and no persistent workers, seeds each worker from its id alone: every epoch's workers "
            f"replay the same random draws (the same augmentations each epoch); seed from "
            f"`torch.initial_seed() % 2**32` (or `get_worker_info().seed`), which changes every epoch",
            (model.construction(loader),) + tuple(entry.trail),
        )


def _persistent_maybe(model: Model, loader) -> bool:
    given = model.argument(loader, "persistent_workers")
    return given is not None and truthiness(given) != "false"


def _epoch_constant_seed(model: Model, func: Func):
    """The first global seed call the ``worker_init_fn`` makes itself from the worker id and
    constants only (None: none)."""
    for ref, site, where, caller in effects.worker_seeds(model, func):
        if caller is None and effects.depends_on_worker(model, site.args[0], where) \
                and not effects.depends_on_worker(model, site.args[0], where, worker_id=False):
            return ref, site, where, caller
    return None


def _constant_worker_generators(model: Model, reported) -> Iterator[Finding]:
    """A ``worker_init_fn`` that gives the worker's dataset a generator built from a constant
    seed (``get_worker_info().dataset.rng = np.random.default_rng(1234)``): every worker gets
    the same stream, in every epoch."""
    for loader, workers, entry, function in _worker_inits(model):
        for store, constructor in _constant_seeded_stores(model, entry.func, Ctx(entry.func.module, entry.func.qualname)):
            key = (entry.func.module, store.span)
            if key in reported:
                continue
            reported.add(key)
            short = constructor.replace("numpy.", "np.")
            yield finding(
                model, CODE, entry.func.module, store.span,
                f"`{short}(...)` built from a constant seed in `{function.name}`, the `worker_init_fn` of a "
                f"DataLoader with {workers.describe()} workers, gives every worker the same stream in every "
                f"epoch: seed it from `get_worker_info().seed` (or `torch.initial_seed()`)",
                (model.construction(loader),) + tuple(entry.trail),
            )


def _constant_seed(model: Model, func: Func):
    """The first global seed call the ``worker_init_fn`` makes, itself or in a helper it
    calls, with a seed that is the same in every worker (None: none)."""
    for ref, site, where, caller in effects.worker_seeds(model, func):
        if not effects.depends_on_worker(model, site.args[0], where, caller=caller):
            return ref, site, where, caller
    return None


def _where_to_report(model: Model, seed):
    """(module, span) of the call in the ``worker_init_fn`` that seeds (itself, or the helper
    call leading to the seed), the steps to the seed call, and the finding's opening words."""
    ref, site, where, caller = seed
    text = " ".join(model.project.text_of(ref.module, site.span).split())
    if caller is None:
        return (ref.module, site.span), (), f"`{text}`"
    top = caller
    while top.outer is not None:
        top = top.outer
    helper = model.function_summary(where).name
    step = Step(ref.module, site.span, f"seeds the global generator in `{helper}`")
    called = " ".join(model.project.text_of(top.func.module, top.site.span).split())
    return (top.func.module, top.site.span), (step,), f"`{called}` (which calls `{text}` in `{helper}`)"
