"""What a function's calls do, for the rules about code that runs in workers.

Each scanner looks at the call sites of one function (in the context of the instance it
runs on) and returns the first call that does the thing: CUDA work, a thread-count
setting, an OpenCV call, seeding a global generator, consulting ``get_worker_info()``.
Callees are resolved by the resolver, so ``self.device`` set from a ``DEVICE`` constant in
another module counts as a CUDA device.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, FrozenSet, Iterator, List, NamedTuple, Optional, Set, Tuple

from ..analysis.summary import CallSite, Span, bound_once
from ..analysis.values import NONE, UNKNOWN, Attr, Call, Const, Imported, Name, Starred, Unknown, last_name
from .externals import device_kind, device_target
from .libraries import HF_DATASETS
from .objects import Cls, Ctx, Ext, Func, Inst, Lit, PositiveInt, SiteRef
from .project import sites_in_scope

if TYPE_CHECKING:
    from .queries import Model

CUDA_QUERIES = frozenset({"is_available", "is_initialized", "device_count", "is_bf16_supported", "get_arch_list",
                          "_is_compiled", "is_built", "get_device_name", "get_device_capability",
                          # seeding is queued until CUDA is initialised in the process (``_lazy_call``):
                          # a forked worker that only seeds never touches the device
                          "manual_seed", "manual_seed_all", "seed", "seed_all"})
THREAD_SETTERS = frozenset({"torch.set_num_threads", "mkl.set_num_threads", "faiss.omp_set_num_threads",
                            "threadpoolctl.threadpool_limits"})
GLOBAL_SEEDERS = frozenset({"numpy.random.seed", "random.seed", "torch.manual_seed", "torch.random.manual_seed",
                            "torch.cuda.manual_seed", "torch.cuda.manual_seed_all"})
CV2_THREAD_SETTINGS = frozenset({"setNumThreads", "getNumThreads", "ocl", "setUseOptimized"})
SHARDING_NAMES = frozenset({"get_worker_info", "pytorch_worker_info", "split_by_worker", "worker_info",
                            "split_by_node", "shard_by_worker"})


class Effect(NamedTuple):
    """A call that does something a rule cares about."""

    module: str
    index: int
    site: CallSite
    what: str  # source-level description


def calls_of(model: "Model", func: Func, self_obj=None, bound=None) -> Iterator[Tuple[SiteRef, CallSite, Ctx]]:
    """The calls of ``func`` a DataLoader worker makes: not those in a branch only the main
    process takes (``if get_worker_info() is None:``)."""
    summary = model.project.summary(func.module)
    if summary is None:
        return
    function = summary.functions.get(func.qualname)
    ctx = Ctx(func.module, func.qualname, bound.call, bound.caller, self_obj, bound.shift) if bound else \
        Ctx(func.module, func.qualname, None, None, self_obj)  # ``bound``: the call binding the parameters
    for index in sites_in_scope(model.project, func.module, func.qualname):
        site = summary.calls[index]
        if main_process_only(function, site.span):
            continue
        yield SiteRef(func.module, index), site, ctx


def main_process_only(function, span: Span) -> bool:
    """Whether ``span`` of ``function`` is on a path only the main process takes (under ``if
    get_worker_info() is None:``, after ``if info is not None: return``)."""
    return function is not None and any(_within(span, branch) for branch in function.main_only)


def _within(inner: Span, outer: Span) -> bool:
    return (outer.row, outer.col) <= (inner.row, inner.col) and (inner.end_row, inner.end_col) <= (outer.end_row, outer.end_col)


def per_function(effect):
    """Memoise an effect of a function (with its instance and binding) per run: one function
    runs in the workers of many loaders, and each rule asks for its effects again."""
    def memoised(model: "Model", func: Func, *rest):
        memo = model.__dict__.setdefault("_effects", {})
        key = (effect, func, rest)
        if key not in memo:
            memo[key] = effect(model, func, *rest)
        return memo[key]

    memoised.__name__, memoised.__doc__ = effect.__name__, effect.__doc__
    return memoised


def callee_names(model: "Model", site: CallSite, ctx: Ctx):
    """Dotted names of the outside callables a call may call."""
    return [f.obj.qualname for f in model.resolver.eval(site.func, ctx) if isinstance(f.obj, Ext)]


def _text(model: "Model", ref: SiteRef, site: CallSite) -> str:
    text = " ".join(model.project.text_of(ref.module, site.span).split())
    return f"`{text}`" if len(text) <= 60 else f"`{text[:57]}...`"


@per_function
def cuda_work(model: "Model", func: Func, self_obj=None, bound=None) -> Optional[Effect]:
    for ref, site, ctx in calls_of(model, func, self_obj, bound):
        name = last_name(site.func)
        if name == "cuda" and isinstance(site.func, Attr):
            receivers = model.resolver.eval(site.func.base, ctx)
            if not any(isinstance(f.obj, Ext) and f.obj.qualname.startswith("torch") for f in receivers):
                return Effect(ref.module, ref.index, site, _text(model, ref, site))
        elif name == "to" and isinstance(site.func, Attr):
            if device_target(model.resolver, ref, ctx) == "cuda":
                return Effect(ref.module, ref.index, site, _text(model, ref, site))
        elif name == "pin_memory" and isinstance(site.func, Attr):
            # page-locked memory comes from the CUDA runtime: a tensor's ``pin_memory()`` starts
            # it (a project batch class's own ``pin_memory`` is followed like any project call)
            receivers = model.resolver.eval(site.func.base, ctx)
            if not any(isinstance(f.obj, Inst) and isinstance(f.obj.cls, Cls) for f in receivers):
                return Effect(ref.module, ref.index, site, _text(model, ref, site))
        elif isinstance(site.func, (Name, Attr)):
            for qualname in callee_names(model, site, ctx):
                if qualname.startswith("torch.cuda.") and qualname.rpartition(".")[2] not in CUDA_QUERIES:
                    return Effect(ref.module, ref.index, site, _text(model, ref, site))
                if qualname.startswith(("torch.", "torchvision.", "torchaudio.")):  # ``decode_jpeg(data, device="cuda")``
                    for key, value in site.keywords:
                        if key == "device" and any(device_kind(f.obj) == "cuda" and isinstance(f.obj, Lit)
                                                   for f in model.resolver.eval(value, ctx)):
                            return Effect(ref.module, ref.index, site, _text(model, ref, site))
    return None


@per_function
def thread_setting(model: "Model", func: Func, self_obj=None) -> Optional[Effect]:
    """``torch.set_num_threads(n)`` (and kin) with n > 1 (a constant, or a CPU count)."""
    for ref, site, ctx in calls_of(model, func, self_obj):
        if last_name(site.func) not in ("set_num_threads", "threadpool_limits", "omp_set_num_threads"):
            continue
        if not any(q in THREAD_SETTERS for q in callee_names(model, site, ctx)):
            continue
        value = site.args[0] if site.args else next((v for k, v in site.keywords if k in ("limits", "num_threads", "n")),
                                                    None)
        if value is None:
            continue
        found = model.resolver.eval(value, ctx)
        if found and all((isinstance(f.obj, Lit) and type(f.obj.value) is int and f.obj.value > 1)
                         or isinstance(f.obj, PositiveInt) for f in found):
            return Effect(ref.module, ref.index, site, _text(model, ref, site))
    return None


@per_function
def uses_cv2(model: "Model", func: Func, self_obj=None) -> Optional[Effect]:
    """An OpenCV call that is not a thread setting (``cv2.imread(p)``, or ``imread(p)`` after
    ``from cv2 import imread``)."""
    for ref, site, ctx in calls_of(model, func, self_obj):
        if type(site.func) not in (Attr, Name) or last_name(site.func) in CV2_THREAD_SETTINGS:
            continue
        if any(_opencv_call(q) for q in callee_names(model, site, ctx)):
            return Effect(ref.module, ref.index, site, _text(model, ref, site))
    return None


def _opencv_call(qualname: str) -> bool:
    """An OpenCV function (``cv2.resize``) or a method of an OpenCV object
    (``cv2.CascadeClassifier().detectMultiScale``); not a method of what an OpenCV function
    returned (``cv2.resize(...).transpose(...)`` is numpy's)."""
    if not qualname.startswith("cv2.") or "[]" in qualname or "[:]" in qualname:
        return False
    if "()" not in qualname:
        return True
    head, _, rest = qualname.partition("()")
    return "()" not in rest and head.rpartition(".")[2][:1].isupper()


def throttles_cv2(model: "Model", func: Func, self_obj=None) -> Optional[Effect]:
    for ref, site, ctx in calls_of(model, func, self_obj):
        if throttle_call(model, ref, site, ctx):
            return Effect(ref.module, ref.index, site, _text(model, ref, site))
    return None


def throttle_call(model: "Model", ref: SiteRef, site: CallSite, ctx: Ctx) -> bool:
    """``cv2.setNumThreads(n)`` with n 0 or 1, or a value the project manages."""
    if last_name(site.func) != "setNumThreads" or not site.args:
        return False
    if "cv2.setNumThreads" not in callee_names(model, site, ctx):
        return False
    values = model.resolver.eval(site.args[0], ctx)
    return not all(isinstance(f.obj, Lit) and type(f.obj.value) is int and f.obj.value > 1 for f in values)


RNG_CONSTRUCTORS = frozenset({
    "numpy.random.default_rng", "numpy.random.RandomState", "numpy.random.Generator", "numpy.random.mtrand.RandomState",
    "random.Random", "torch.Generator", "torch._C.Generator",
})


def rng_of(results) -> Optional[str]:
    """The constructor of a random generator object among ``results`` (``np.random.default_rng``
    for ``default_rng(0)``, ``torch.Generator`` for ``torch.Generator().manual_seed(0)``), or None."""
    for found in results:
        obj = found.obj
        if isinstance(obj, Inst) and isinstance(obj.cls, Ext):
            name = obj.cls.qualname.replace("()", "")
            base = name.rsplit(".manual_seed", 1)[0]
            if name in RNG_CONSTRUCTORS or base in RNG_CONSTRUCTORS:
                return base
    return None


def global_seeds(model: "Model", func: Func, ctx: Ctx) -> Iterator[Tuple[SiteRef, CallSite]]:
    summary = model.project.summary(func.module)
    for index in sites_in_scope(model.project, func.module, func.qualname):
        site = summary.calls[index]
        if last_name(site.func) not in ("seed", "manual_seed", "manual_seed_all") or not site.args:
            continue
        if any(q in GLOBAL_SEEDERS for q in callee_names(model, site, ctx)):
            yield SiteRef(func.module, index), site


class Caller(NamedTuple):
    """The call that ran a helper of a ``worker_init_fn``: its site, the function making it,
    that function's own caller (None: the ``worker_init_fn`` itself), and how many positional
    parameters the receiver fills (1 for a method called on an object)."""

    site: CallSite
    func: Func
    outer: Optional["Caller"]
    shift: int = 0


HELPER_DEPTH = 3  # calls followed from a ``worker_init_fn`` to the seed calls of its helpers


def worker_seeds(model: "Model", func: Func, caller: Optional[Caller] = None,
                 seen=None) -> Iterator[Tuple[SiteRef, CallSite, Func, Optional[Caller]]]:
    """Global seed calls a ``worker_init_fn`` makes, directly or in the project functions it
    calls (``seed_everything()``, up to ``HELPER_DEPTH`` calls deep): the call, the function
    making it and the call that ran that function."""
    seen = set() if seen is None else seen
    if func in seen:
        return
    seen.add(func)
    for ref, site in global_seeds(model, func, Ctx(func.module, func.qualname)):
        yield ref, site, func, caller
    depth = 0 if caller is None else _depth(caller)
    if depth >= HELPER_DEPTH:
        return
    for callee, self_obj, ref in model.callees(func, None):
        inner = Caller(model.project.call(ref), func, caller, 1 if self_obj is not None else 0)
        yield from worker_seeds(model, callee, inner, seen)


def _depth(caller: Caller) -> int:
    return 1 + (_depth(caller.outer) if caller.outer is not None else 0)


def consults_worker_info(model: "Model", func: Func) -> bool:
    function = model.function_summary(func)
    if function is None:
        return False
    loads = _unaliased(model, func.module, function.loads)
    return bool(loads & SHARDING_NAMES or function.attr_loads & SHARDING_NAMES)


def _unaliased(model: "Model", module: str, names) -> Set[str]:
    """``names`` with the imported names they alias: ``from torch.utils.data import
    get_worker_info as _gwi`` makes ``_gwi`` a ``get_worker_info``."""
    summary = model.project.summary(module)
    out = set(names)
    for name in names:
        for binding in summary.bindings.get(name, ()) if summary is not None else ():
            if binding.kind == "import" and type(binding.value) is Imported:
                out.add(binding.value.path.rpartition(".")[2])
    return out


SPLITTERS = frozenset({"split_by_worker", "split_by_node", "shard_by_worker", "pytorch_worker_info"})
WORKER_POSITION = frozenset({"id", "num_workers"})  # ``info.id``, ``info.num_workers``


def splits_by_worker(model: "Model", funcs) -> bool:
    """Whether code made of ``funcs`` can give each worker its own part: it calls a splitter
    (``split_by_worker``), or asks ``get_worker_info()`` and reads a worker's position
    (``info.id``, ``info.num_workers``), in the same function or another of them. Asking only
    for ``info.seed`` (seeding) or to log is not splitting."""
    asks = reads_position = False
    for func in funcs:
        function = model.function_summary(func)
        if function is None:
            continue
        loads = _unaliased(model, func.module, function.loads) | function.attr_loads
        if loads & SPLITTERS:
            return True
        asks = asks or bool(loads & SHARDING_NAMES)
        reads_position = reads_position or bool(function.attr_loads & WORKER_POSITION)
        if asks and reads_position:
            return True
    return False


WORKER_DEPENDENT_CALLS = frozenset({
    "torch.initial_seed", "torch.utils.data.get_worker_info", "torch.utils.data.dataloader.get_worker_info",
    "os.getpid", "time.time", "time.time_ns", "time.perf_counter", "uuid.uuid4", "uuid.uuid1", "secrets.randbits",
    "os.urandom", "random.randint", "random.getrandbits", "random.random",
})


def depends_on_worker(model: "Model", value, func: Func, depth: int = 0, caller: Optional[Caller] = None,
                      worker_id: bool = True, varying: FrozenSet[str] = frozenset()) -> bool:
    """Whether a seed expression in ``func`` differs between workers: it reads the worker id
    (the first parameter of a ``worker_init_fn``; ``worker_id`` False for a method such as
    ``__iter__``, whose first parameter is ``self``), an attribute of ``self`` in ``varying``
    (one the ``worker_init_fn`` sets in each worker), ``torch.initial_seed()``,
    ``get_worker_info()``, the time, a pid or a random draw, or is None (seeds from the OS).
    In a helper the ``worker_init_fn`` calls (``caller`` set), a parameter is what that call
    passes, or its default. Anything the model cannot see through counts as dependent
    (unknown is never a finding)."""
    if depth > 6:
        return True
    function = model.function_summary(func)
    if function is None or value == NONE:
        return True
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Name):
            method = function.scope_kind == "class" and len(function.params) > 1  # ``__call__(self, worker_id)``
            if caller is None and worker_id and function.params and item.id == function.params[int(method)].name:
                return True
            if method and worker_id and item.id == function.params[0].name:
                continue  # the callable object itself: pickled once, the same in every worker
            bindings = function.bindings.get(item.id)
            if bindings is None:
                continue  # a global or a builtin: the same in every worker
            for binding in bindings:
                if binding.kind == "param":
                    if caller is not None and _argument_depends(model, func, item.id, caller, depth):
                        return True
                    continue  # bound by functools.partial (or ``self``): one value for all workers
                if binding.kind not in ("assign", "aug") or depends_on_worker(
                        model, binding.value, func, depth + 1, caller=caller, worker_id=worker_id, varying=varying):
                    return True
        elif isinstance(item, Unknown):
            return True
        elif isinstance(item, Attr) and item.name in varying and isinstance(item.base, Name) \
                and function.params and item.base.id == function.params[0].name:
            return True
        elif isinstance(item, Call):
            site = model.project.summary(func.module).calls[item.index]
            ctx = Ctx(func.module, func.qualname)
            names = callee_names(model, site, ctx)
            if not names or any(q in WORKER_DEPENDENT_CALLS or q.startswith(("numpy.random.", "random."))
                                for q in names):
                return True
            stack.extend(site.args)
            stack.extend(v for _, v in site.keywords)
        elif isinstance(item, tuple):
            stack.extend(part for part in item if isinstance(part, tuple))
    return False


def _argument_depends(model: "Model", func: Func, name: str, caller: Caller, depth: int) -> bool:
    """Whether what ``caller`` passes to the parameter ``name`` of ``func`` differs between
    workers: the argument judged where the call is made, a default where ``func`` is."""
    function = model.function_summary(func)
    given = _argument(function.params, name, caller)
    if given is None:
        param = next(p for p in function.params if p.name == name)
        if param.default is None or param.kind in ("vararg", "kwarg"):
            return True  # ``*args``, ``**kwargs``, or filled in a way not followed
        return depends_on_worker(model, param.default, func, depth + 1, caller)
    return depends_on_worker(model, given, caller.func, depth + 1, caller.outer)


def _argument(params, name: str, caller: Caller):
    """The value a call passes to the parameter ``name``: None when it passes none,
    ``UNKNOWN`` when an unpacked ``*args``/``**kwargs`` may fill it."""
    site = caller.site
    for key, value in site.keywords:
        if key == name:
            return value
    positional = [p.name for p in params if p.kind in ("posonly", "pos")]
    index = positional.index(name) - caller.shift if name in positional else -1
    for at, arg in enumerate(site.args):
        if isinstance(arg, Starred) and at <= index:
            return UNKNOWN
        if at == index:
            return arg
    if any(key is None for key, _ in site.keywords):
        return UNKNOWN
    return None


class WorkerInit(NamedTuple):
    """What a loader's ``worker_init_fn`` runs on a worker's copy of its dataset."""

    functions: List[Func]  # the project functions given as ``worker_init_fn`` (through ``partial`` too)
    methods: Dict[str, Func]  # the dataset's methods they call by name (``info.dataset.open_db()``)


def worker_init(model: "Model", loader, obj) -> WorkerInit:
    """The ``worker_init_fn`` of ``loader`` and the methods of ``obj`` (the dataset) it calls.
    ``get_worker_info().dataset`` is the worker's copy, which the resolver cannot follow: an
    attribute the function loads that names a method of the dataset's class (or a base class)
    is taken as a call of it; ``__getitem__`` and the like are not (they are the worker's own)."""
    from .queries import WORKER_METHODS  # the model's query layer imports this module

    functions: List[Func] = []
    methods: Dict[str, Func] = {}
    if loader is None:
        return WorkerInit(functions, methods)
    cls = obj.cls if isinstance(obj, Inst) and isinstance(obj.cls, Cls) else None
    for found in model.argument(loader, "worker_init_fn") or ():
        for entry in model.callable_entries(found.obj, "worker_init_fn", ()):
            for func in [entry.func] + _helpers(model, entry.func):
                functions.append(func)
                function = model.function_summary(func)
                names = set(function.attr_loads) | _getattr_names(model, func) if function is not None else set()
                for name in sorted(names) if cls is not None else ():
                    method = model.resolver.method(cls, name)
                    if method is not None and name not in WORKER_METHODS:
                        methods[name] = method
    return WorkerInit(functions, methods)


def _helpers(model: "Model", func: Func) -> List[Func]:
    """The project functions ``func`` calls by a plain name (``set_rnd(info.dataset, seed)``,
    a seeding helper given the worker's dataset): what they touch is the ``worker_init_fn``'s."""
    summary = model.project.summary(func.module)
    ctx = model.resolver.context(func.module, func.qualname)
    out: List[Func] = []
    for index in sites_in_scope(model.project, func.module, func.qualname):
        callee = summary.calls[index].func
        if type(callee) is Name:
            out.extend(f.obj for f in model.resolver.eval(callee, ctx)
                       if isinstance(f.obj, Func) and f.obj != func and f.obj not in out)
    return out


def _getattr_names(model: "Model", func: Func) -> Set[str]:
    """Attribute names a function reads by ``getattr(x, "name", ...)`` (``reseed =
    getattr(dataset, "reseed", None)`` then ``reseed(seed)``)."""
    summary = model.project.summary(func.module)
    names: Set[str] = set()
    for index in sites_in_scope(model.project, func.module, func.qualname):
        site = summary.calls[index]
        if last_name(site.func) == "getattr" and len(site.args) >= 2 and type(site.args[1]) is Const \
                and isinstance(site.args[1].value, str):
            names.add(site.args[1].value)
    return names


RESEED_METHODS = frozenset({"seed", "manual_seed", "set_state", "setstate", "bit_generator"})


def reseeded_attributes(model: "Model", func: Func, skip=frozenset(), wrapped: bool = False) -> Set[str]:
    """Attributes a function reassigns or reseeds (``self.rng = ...``, ``self.rng.seed(...)``,
    ``info.dataset.rng = ...``), but for the stores at the spans ``skip`` (a generator every
    worker builds from the same seed is no reseeding). ``wrapped``: the dataset asked about
    is not the loader's own but one a wrapper holds (a ``random_split`` part's), so what a
    ``worker_init_fn`` sets on ``get_worker_info().dataset`` itself lands on the wrapper."""
    summary = model.project.summary(func.module)
    function = summary.functions.get(func.qualname) if wrapped else None
    attrs = {s.attr for s in summary.stores if s.scope == func.qualname and s.span not in skip
             and not (wrapped and _worker_dataset(s.target, function, summary))}
    own = summary.functions.get(func.qualname)
    for site in summary.calls:
        if site.scope == func.qualname and getattr(site.func, "name", None) in RESEED_METHODS:
            base = getattr(site.func, "base", None)
            if hasattr(base, "name") and not (wrapped and _worker_dataset(getattr(base, "base", None), function, summary)) \
                    and not _seeded_from_itself(site, base, own, summary):
                attrs.add(base.name)
    return attrs


def _seeded_from_itself(site, generator, function, summary) -> bool:
    """``self.rng.seed(s)`` with ``s = self.rng.randint(...)``: a seed drawn from the generator
    being reseeded is whatever its shared state gives, the same in every worker; no reseeding."""
    if not site.args:
        return False
    seed = bound_once(site.args[0], function)
    if type(seed) is not Call:
        return False
    drawn = summary.calls[seed.index].func
    return type(drawn) is Attr and _chain(drawn.base) is not None and _chain(drawn.base) == _chain(generator)


def _chain(value) -> Optional[Tuple[str, ...]]:
    """``self.rng`` as ("self", "rng"): a name and the attributes read through it, or None."""
    names: List[str] = []
    while type(value) is Attr:
        names.append(value.name)
        value = value.base
    if type(value) is not Name:
        return None
    return (value.id, *reversed(names))


def _worker_dataset(value, function, summary) -> bool:
    """Whether ``value`` is the worker's dataset object itself, ``info.dataset`` of ``info =
    get_worker_info()`` or ``get_worker_info().dataset`` (through a local name bound to it once
    or not), not something reached through it (``info.dataset.dataset``, ``.datasets[0]``)."""
    value = bound_once(value, function)
    return (type(value) is Attr and value.name == "dataset"
            and _is_worker_info(bound_once(value.base, function), summary))


def _is_worker_info(value, summary) -> bool:
    return type(value) is Call and last_name(summary.calls[value.index].func) == "get_worker_info"


def module_throttles(model: "Model", module: str) -> Dict[str, Effect]:
    """Throttling calls of a module: {"import": executed at import time, "anywhere": any}."""
    memo = model.__dict__.setdefault("_throttles", {})
    if module in memo:
        return memo[module]
    found: Dict[str, Effect] = {}
    summary = model.project.summary(module)
    if summary is not None:
        info = model.project.modules[module]
        if info.eager:  # the project's index of calls by name holds these modules' calls
            indexes = [ref.index for ref in model.project.calls_named("setNumThreads") if ref.module == module]
        else:
            indexes = [index for index, site in enumerate(summary.calls) if last_name(site.func) == "setNumThreads"]
        for index in indexes:
            site = summary.calls[index]
            ref = SiteRef(module, index)
            if throttle_call(model, ref, site, Ctx(module, site.scope)):
                effect = Effect(module, index, site, _text(model, ref, site))
                found.setdefault("anywhere", effect)
                if (not site.scope and not site.guarded) or _called_at_import(model, module, site.scope):
                    found.setdefault("import", effect)
    memo[module] = found
    return found


def _called_at_import(model: "Model", module: str, scope: str) -> bool:
    """Whether the module calls the function ``scope`` at import time (``_configure_libraries()``
    at module level, outside the main guard), so what it does runs when the module is imported."""
    if not scope or "." in scope:
        return False
    summary = model.project.summary(module)
    ctx = Ctx(module, "")
    for index in sites_in_scope(model.project, module, ""):
        site = summary.calls[index]
        if not site.guarded and any(isinstance(f.obj, Func) and f.obj == Func(module, scope)
                                    for f in model.resolver.eval(site.func, ctx)):
            return True
    return False


# processes and threads (issue 17) ----------------------------------------------------------
PROCESS_PACKAGES = ("multiprocessing.", "multiprocess.", "torch.multiprocessing.", "billiard.")
PROCESS_STARTS = {"Pool": "starts a process pool", "ProcessPoolExecutor": "starts a process pool",
                  "spawn": "spawns processes", "start_processes": "spawns processes"}
PROCESS_MAPPERS = frozenset({"map", "filter", "flat_map", "map_batches"})  # ``datasets`` told ``num_proc=n``


def process_start_kind(qualname: str) -> Optional[str]:
    """What calling the outside callable ``qualname`` does to processes (None: nothing):
    ``multiprocessing.Pool``, ``ProcessPoolExecutor``, ``torch.multiprocessing.spawn``,
    ``Process(...).start()`` (a context's too); thread pools (``multiprocessing.dummy``,
    ``ThreadPool``) are not processes."""
    plain = qualname.replace("()", "")
    parts = plain.split(".")
    last = parts[-1]
    if plain.startswith("concurrent.futures.") and last == "ProcessPoolExecutor":
        return PROCESS_STARTS[last]
    if not plain.startswith(PROCESS_PACKAGES) or "dummy" in parts or "ThreadPool" in parts:
        return None
    if last == "Pool":
        return PROCESS_STARTS[last]
    if last in ("spawn", "start_processes") and plain.startswith("torch.multiprocessing."):
        return PROCESS_STARTS[last]
    if last == "start" and len(parts) > 1 and parts[-2] == "Process":
        return "starts a process"
    return None


@per_function
def process_start(model: "Model", func: Func, self_obj=None) -> Optional[Effect]:
    """A call in ``func`` that starts child processes: a process pool, ``Process.start()``,
    ``torch.multiprocessing.spawn``, or a ``datasets`` map/filter told ``num_proc=n`` (n > 1)."""
    for ref, site, ctx in calls_of(model, func, self_obj):
        if not isinstance(site.func, (Name, Attr)):
            continue
        names = callee_names(model, site, ctx)
        kind = next((k for k in map(process_start_kind, names) if k), None)
        if kind is None and datasets_pool(model, site, ctx, names):
            kind = "starts a process pool (`num_proc`)"
        if kind is not None:
            return Effect(ref.module, ref.index, site, f"{_text(model, ref, site)} {kind}")
    return None


def datasets_pool(model: "Model", site: CallSite, ctx: Ctx, names=None) -> bool:
    """A Hugging Face ``datasets`` ``map``/``filter`` told to use processes (``num_proc=8``)."""
    if last_name(site.func) not in PROCESS_MAPPERS or not _several_processes(model, site, ctx):
        return False
    names = callee_names(model, site, ctx) if names is None else names
    return any(q.replace("()", "").startswith(HF_DATASETS) for q in names)


def _several_processes(model: "Model", site: CallSite, ctx: Ctx) -> bool:
    for key, value in site.keywords:
        if key == "num_proc":
            found = model.resolver.eval(value, ctx)
            return bool(found) and all(isinstance(f.obj, Lit) and type(f.obj.value) is int and f.obj.value > 1
                                       for f in found)
    return False


THREAD_POOLS = frozenset({"multiprocessing.pool.ThreadPool", "multiprocessing.dummy.Pool",
                          "multiprocessing.ThreadPool"})
THREAD_EXECUTORS = frozenset({"concurrent.futures.ThreadPoolExecutor", "concurrent.futures.thread.ThreadPoolExecutor"})
THREAD_CLASSES = frozenset({"threading.Thread"})
POOL_USES = frozenset({"submit", "map"})  # an executor starts its threads at the first task
THREAD_ENDS = frozenset({"close", "terminate", "shutdown", "join", "__exit__", "stop", "cancel"})


class LiveThreads(NamedTuple):
    """An attribute holding threads started in the main process and never ended there."""

    cls: Cls
    attr: str
    module: str
    store: object  # the AttrStore
    what: str  # "a `ThreadPool`", "a `ThreadPoolExecutor`", "a thread running `_fill` (a loop)"
    started: Optional[SiteRef]  # the call that starts the threads, when it is not the construction
    kind: str = "pool"  # pool (threads from its construction) | executor | thread
    trail: tuple = ()  # how the stored value was made (a factory in another module)


def thread_kind(model: "Model", results) -> Optional[Tuple[str, object, tuple]]:
    """("pool" | "executor" | "thread", the object, its trail) for a thread pool, an executor
    or a thread."""
    for found in results:
        obj = found.obj
        if not isinstance(obj, Inst):
            continue
        if isinstance(obj.cls, Ext):
            plain = obj.cls.qualname.replace("()", "")
            if plain in THREAD_POOLS:
                return "pool", obj, found.trail
            if plain in THREAD_EXECUTORS:
                return "executor", obj, found.trail
            if plain in THREAD_CLASSES:
                return "thread", obj, found.trail
        elif isinstance(obj.cls, Cls) and any(isinstance(i, Ext) and i.qualname in THREAD_CLASSES
                                              for i in model.resolver.mro(obj.cls)):
            return "thread", obj, found.trail
    return None


def live_threads(model: "Model", inst: Inst, worker_funcs) -> List[LiveThreads]:
    """Attributes of ``inst`` holding threads that its main-process methods (those not in
    ``worker_funcs``) start and never end: a ``ThreadPool`` (its threads start when it is
    built), a ``ThreadPoolExecutor`` given work, a thread started whose target loops
    (``while``). A pool closed, shut down or joined in any method other than ``__del__`` may
    be ended before the workers start: unknown, not reported."""
    out: List[LiveThreads] = []
    for cls in model.resolver.mro(inst.cls):
        if not isinstance(cls, Cls):
            continue
        calls = self_attribute_calls(model, cls)
        for attr, stores in model.resolver.self_stores(cls).items():
            ends = [c for c in calls.get(attr, ()) if c[1] in THREAD_ENDS and c[0].name != "__del__"]
            if ends:
                continue
            for function, store in stores:
                if store.kind != "assign" or Func(cls.module, function.qualname) in worker_funcs:
                    continue
                ctx = model.resolver.method_ctx(inst, cls.module, function)
                kind = thread_kind(model, model.resolver.eval(store.value, ctx))
                if kind is None:
                    continue
                main_calls = [c for c in calls.get(attr, ()) if Func(cls.module, c[0].qualname) not in worker_funcs]
                found = _started(model, kind, main_calls)
                if found is not None:
                    out.append(LiveThreads(cls, attr, cls.module, store, found[0], found[1], kind[0], kind[2]))
                    break
    return out


def _started(model: "Model", kind, main_calls) -> Optional[Tuple[str, Optional[SiteRef]]]:
    """What the threads are and the call that starts them (None when nothing starts them)."""
    what, obj, _ = kind
    name = obj.cls.qualname.replace("()", "").rpartition(".")[2] if isinstance(obj.cls, Ext) else obj.cls.qualname
    if what == "pool":
        return f"a `{name}`", None
    if what == "executor":
        use = next((c for c in main_calls if c[1] in POOL_USES), None)
        return (f"a `{name}`", use[2]) if use is not None else None
    start = next((c for c in main_calls if c[1] == "start"), None)
    target = _thread_target(model, obj)
    if start is None or target is None:
        return None
    return f"a thread running `{target}` (a loop)", start[2]


# Library methods that run until something else stops them: an asyncio event loop's, a
# socketserver's (``http.server``, ``xmlrpc``).
ENDLESS_METHODS = frozenset({"run_forever", "serve_forever"})


def _thread_target(model: "Model", obj: Inst) -> Optional[str]:
    """The name of a thread's target (its ``run`` for a subclass) when that function loops
    (``while``), or goes through the object's own data (``for item in self.samples:``, also
    through ``enumerate``/``zip``: a cache-warming pass as long as the dataset): a thread still
    running when the workers are forked. None when it may end by itself."""
    funcs = []
    if isinstance(obj.cls, Cls):
        run = model.resolver.method(obj.cls, "run")
        funcs = [run] if run is not None else []
    elif obj.site is not None:
        found = model.resolver.keyword_at(obj.site, obj.ctx, "target", 1) or ()
        funcs = [f.obj if isinstance(f.obj, Func) else f.obj.func for f in found
                 if isinstance(f.obj, Func) or isinstance(getattr(f.obj, "func", None), Func)]
        endless = next((f.obj.qualname for f in found if isinstance(f.obj, Ext)
                        and f.obj.qualname.rpartition(".")[2] in ENDLESS_METHODS), None)
        if endless is not None:  # ``target=self._loop.run_forever``: an event loop, a server
            return endless.rpartition(".")[2]
    for func in funcs:
        summary = model.project.summary(func.module)
        function = model.function_summary(func)
        if summary is None or function is None:
            continue
        receiver = function.params[0].name if function.scope_kind == "class" and function.params else None
        if any(loop.scope == func.qualname and (loop.kind == "while" or _over_own_data(summary, loop, receiver))
               for loop in summary.loops):
            return func.qualname.rpartition(".")[2]
    return None


def _over_own_data(summary, loop, receiver: Optional[str]) -> bool:
    """A ``for`` over an attribute of the method's own object, directly, as the first argument of
    ``enumerate``/``zip``/``tqdm`` (``for i, (path, label) in enumerate(self.samples):``), or over
    its indexes (``for i in range(len(self.records)):``, ``for i in range(self.length):``)."""
    if loop.kind != "for" or receiver is None or loop.iter is None:
        return False
    value = loop.iter
    if type(value) is Call:
        site = summary.calls[value.index]
        name = last_name(site.func)
        if name == "range" and len(site.args) in (1, 2):  # range(len(self.records)), range(self.length)
            stop = site.args[-1]
            if type(stop) is Call:
                inner = summary.calls[stop.index]
                if last_name(inner.func) != "len" or len(inner.args) != 1:
                    return False
                stop = inner.args[0]
            value = stop
        elif name not in ("enumerate", "zip", "tqdm") or not site.args:
            return False
        else:
            value = site.args[0]
    return type(value) is Attr and type(value.base) is Name and value.base.id == receiver


def self_attribute_calls(model: "Model", cls: Cls) -> Dict[str, List[Tuple[object, str, SiteRef]]]:
    """attr → [(method summary, called method name, call)] for ``self.attr.m(...)`` in the
    class's own methods."""
    memo = model.__dict__.setdefault("_self_attribute_calls", {})
    if cls in memo:
        return memo[cls]
    table: Dict[str, List[Tuple[object, str, SiteRef]]] = {}
    summary = model.project.summary(cls.module)
    klass = summary.classes.get(cls.qualname) if summary is not None else None
    for method in klass.methods if klass is not None else ():
        function = summary.functions.get(f"{cls.qualname}.{method}")
        if function is None or not function.params:
            continue
        me = function.params[0].name
        for index in sites_in_scope(model.project, cls.module, function.qualname):
            func = summary.calls[index].func
            if isinstance(func, Attr) and isinstance(func.base, Attr) and isinstance(func.base.base, Name) \
                    and func.base.base.id == me:
                table.setdefault(func.base.name, []).append((function, func.name, SiteRef(cls.module, index)))
    memo[cls] = table
    return table


# what worker code does to its object (issue 17) ---------------------------------------------
CONTAINER_GROWERS = frozenset({"append", "extend", "add", "update", "insert", "setdefault", "appendleft"})


class Mutation(NamedTuple):
    """``self.<attr>`` changed by a method: ``count`` (``+=``, ``x = x + 1``), ``extreme``
    (``x = max(x, n)``), ``container`` (``append``, ``[k] = v``) or ``reset`` (assigned a
    value that does not accumulate into it)."""

    attr: str
    kind: str
    module: str
    span: object


EXTREMES = frozenset({"max", "min"})  # ``self.longest = max(self.longest, n)``: a running extreme


def self_mutations(model: "Model", func: Func) -> List[Mutation]:
    """How ``func`` (a method) changes the attributes of the object it runs on."""
    function = model.function_summary(func)
    summary = model.project.summary(func.module)
    if function is None or not function.params or function.scope_kind != "class":
        return []
    me = function.params[0].name
    out: List[Mutation] = []
    for store in summary.stores:
        if store.scope != func.qualname:
            continue
        target = store.target
        if isinstance(target, Name) and target.id == me and store.attr != "[]":
            accumulates = store.kind == "assign" and _reads_attr(store.value, me, store.attr, summary.calls)
            if accumulates and type(store.value) is Call and last_name(summary.calls[store.value.index].func) in EXTREMES:
                out.append(Mutation(store.attr, "extreme", func.module, store.span))
            elif store.kind == "aug" or accumulates:
                out.append(Mutation(store.attr, "count", func.module, store.span))
            elif store.kind in ("assign", "with"):
                out.append(Mutation(store.attr, "reset", func.module, store.span))
        elif isinstance(target, Attr) and isinstance(target.base, Name) and target.base.id == me \
                and store.attr == "[]" and store.kind != "del":
            out.append(Mutation(target.name, "container", func.module, store.span))
    for index in sites_in_scope(model.project, func.module, func.qualname):
        site = summary.calls[index]
        call = site.func
        if isinstance(call, Attr) and call.name in CONTAINER_GROWERS and isinstance(call.base, Attr) \
                and isinstance(call.base.base, Name) and call.base.base.id == me:
            out.append(Mutation(call.base.name, "container", func.module, site.span))
    return out


def binds_global(function, name: str, binding) -> bool:
    """Whether ``function`` makes the module binding ``binding`` of ``name`` (``global name``
    there: the binding is the module's, made in the function's rows)."""
    return name in function.declared_global and function.span.row <= binding.span.row <= function.end_row


def global_mutations(model: "Model", func: Func) -> List[Mutation]:
    """How ``func`` changes module globals of its own module: ``global n`` then ``n += 1`` (a
    count), or a module-level list, dict or set it grows (``BAD.append(path)``); ``attr`` is
    the global's name."""
    function = model.function_summary(func)
    summary = model.project.summary(func.module)
    if function is None or summary is None:
        return []
    out: List[Mutation] = []
    for name in sorted(function.declared_global):
        for binding in summary.bindings.get(name, ()):
            if binding.kind == "aug" and binds_global(function, name, binding):
                out.append(Mutation(name, "count", func.module, binding.span))
    for index in sites_in_scope(model.project, func.module, func.qualname):
        site = summary.calls[index]
        call = site.func
        if isinstance(call, Attr) and call.name in CONTAINER_GROWERS and isinstance(call.base, Name) \
                and call.base.id not in function.bindings and call.base.id in summary.bindings:
            out.append(Mutation(call.base.id, "container", func.module, site.span))
    return out


def _reads_attr(value, me: str, attr: str, calls, depth: int = 0) -> bool:
    """Whether a value accumulates into ``<me>.<attr>``: reads it directly (``self.n + 1``,
    ``(self.n + 1) % k``), or a call's argument does (``int(self.n * 0.9)``), or a call is
    given the old value together with another value that is not a constant
    (``max(self.longest, n)``: a running maximum). The old value alone, or with constants
    (``int(self.n)``, ``min(self.n, 3)``), gives the same result every time; a method of it
    (``self.x.to(device)``) converts it."""
    if depth > 8:
        return False
    if isinstance(value, Attr):
        return _is_attr(value, me, attr) or _reads_attr(value.base, me, attr, calls, depth + 1)
    if isinstance(value, Call):
        site = calls[value.index]
        inputs = [*site.args, *(v for _, v in site.keywords)]
        if any(_is_attr(v, me, attr) for v in inputs):
            return any(not _is_attr(v, me, attr) and not isinstance(v, Const) for v in inputs)
        return any(_reads_attr(v, me, attr, calls, depth + 1) for v in inputs)
    if isinstance(value, tuple) and not isinstance(value, Name):
        return any(_reads_attr(part, me, attr, calls, depth + 1) for part in value if isinstance(part, tuple))
    return False


def _is_attr(value, me: str, attr: str) -> bool:
    return isinstance(value, Attr) and isinstance(value.base, Name) and value.base.id == me and value.name == attr


__all__ = ["Effect", "main_process_only", "cuda_work", "thread_setting", "uses_cv2", "throttles_cv2",
           "global_seeds", "worker_seeds", "Caller", "consults_worker_info", "depends_on_worker",
           "module_throttles", "Inst", "process_start", "process_start_kind", "live_threads", "thread_kind",
           "self_attribute_calls", "self_mutations", "LiveThreads", "Mutation", "RNG_CONSTRUCTORS", "rng_of",
           "WorkerInit", "worker_init", "RESEED_METHODS", "reseeded_attributes"]
