"""What a function's calls do, for the rules about code that runs in workers.

Each scanner looks at the call sites of one function (in the context of the instance it
runs on) and returns the first call that does the thing: CUDA work, a thread-count
setting, an OpenCV call, seeding a global generator, consulting ``get_worker_info()``.
Callees are resolved by the resolver, so ``self.device`` set from a ``DEVICE`` constant in
another module counts as a CUDA device.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Iterator, NamedTuple, Optional, Tuple

from ..analysis.summary import CallSite
from ..analysis.values import Attr, Call, Name, last_name
from .externals import device_kind, device_target
from .objects import Ctx, Ext, Func, Inst, Lit, PositiveInt, SiteRef
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


def calls_of(model: "Model", func: Func, self_obj=None) -> Iterator[Tuple[SiteRef, CallSite, Ctx]]:
    summary = model.project.summary(func.module)
    if summary is None:
        return
    ctx = Ctx(func.module, func.qualname, None, None, self_obj)
    for index in sites_in_scope(model.project, func.module, func.qualname):
        yield SiteRef(func.module, index), summary.calls[index], ctx


def callee_names(model: "Model", site: CallSite, ctx: Ctx):
    """Dotted names of the outside callables a call may call."""
    return [f.obj.qualname for f in model.resolver.eval(site.func, ctx) if isinstance(f.obj, Ext)]


def _text(model: "Model", ref: SiteRef, site: CallSite) -> str:
    text = " ".join(model.project.text_of(ref.module, site.span).split())
    return f"`{text}`" if len(text) <= 60 else f"`{text[:57]}...`"


def cuda_work(model: "Model", func: Func, self_obj=None) -> Optional[Effect]:
    for ref, site, ctx in calls_of(model, func, self_obj):
        name = last_name(site.func)
        if name == "cuda" and isinstance(site.func, Attr):
            receivers = model.resolver.eval(site.func.base, ctx)
            if not any(isinstance(f.obj, Ext) and f.obj.qualname.startswith("torch") for f in receivers):
                return Effect(ref.module, ref.index, site, _text(model, ref, site))
        elif name == "to" and isinstance(site.func, Attr):
            if device_target(model.resolver, ref, ctx) == "cuda":
                return Effect(ref.module, ref.index, site, _text(model, ref, site))
        elif isinstance(site.func, (Name, Attr)):
            for qualname in callee_names(model, site, ctx):
                if qualname.startswith("torch.cuda.") and qualname.rpartition(".")[2] not in CUDA_QUERIES:
                    return Effect(ref.module, ref.index, site, _text(model, ref, site))
                if qualname.startswith("torch."):
                    for key, value in site.keywords:
                        if key == "device" and any(device_kind(f.obj) == "cuda" and isinstance(f.obj, Lit)
                                                   for f in model.resolver.eval(value, ctx)):
                            return Effect(ref.module, ref.index, site, _text(model, ref, site))
    return None


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


def uses_cv2(model: "Model", func: Func, self_obj=None) -> Optional[Effect]:
    """An OpenCV call that is not a thread setting."""
    for ref, site, ctx in calls_of(model, func, self_obj):
        if not isinstance(site.func, Attr) or site.func.name in CV2_THREAD_SETTINGS:
            continue
        if any(q.startswith("cv2.") for q in callee_names(model, site, ctx)):
            return Effect(ref.module, ref.index, site, _text(model, ref, site))
    return None


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


def global_seeds(model: "Model", func: Func, ctx: Ctx) -> Iterator[Tuple[SiteRef, CallSite]]:
    summary = model.project.summary(func.module)
    for index in sites_in_scope(model.project, func.module, func.qualname):
        site = summary.calls[index]
        if last_name(site.func) not in ("seed", "manual_seed", "manual_seed_all") or not site.args:
            continue
        if any(q in GLOBAL_SEEDERS for q in callee_names(model, site, ctx)):
            yield SiteRef(func.module, index), site


def consults_worker_info(model: "Model", func: Func) -> bool:
    function = model.function_summary(func)
    if function is None:
        return False
    return bool(function.loads & SHARDING_NAMES or function.attr_loads & SHARDING_NAMES)


WORKER_DEPENDENT_CALLS = frozenset({
    "torch.initial_seed", "torch.utils.data.get_worker_info", "torch.utils.data.dataloader.get_worker_info",
    "os.getpid", "time.time", "time.time_ns", "time.perf_counter", "uuid.uuid4", "uuid.uuid1", "secrets.randbits",
    "os.urandom", "random.randint", "random.getrandbits", "random.random",
})


def depends_on_worker(model: "Model", value, func: Func, depth: int = 0) -> bool:
    """Whether a seed expression in a ``worker_init_fn`` differs between workers: it reads
    the worker id (the first parameter), ``torch.initial_seed()``, ``get_worker_info()``,
    the time, a pid or a random draw. Anything the model cannot see through counts as
    dependent (unknown is never a finding)."""
    if depth > 6:
        return True
    function = model.function_summary(func)
    if function is None:
        return True
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Name):
            if function.params and item.id == function.params[0].name:
                return True
            bindings = function.bindings.get(item.id)
            if bindings is None:
                continue  # a global or a builtin: the same in every worker
            for binding in bindings:
                if binding.kind == "param":
                    continue  # bound by functools.partial: one value for all workers
                if binding.kind not in ("assign", "aug") or depends_on_worker(model, binding.value, func, depth + 1):
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


def module_throttles(model: "Model", module: str) -> Dict[str, Effect]:
    """Throttling calls of a module: {"import": executed at import time, "anywhere": any}."""
    memo = model.__dict__.setdefault("_throttles", {})
    if module in memo:
        return memo[module]
    found: Dict[str, Effect] = {}
    summary = model.project.summary(module)
    if summary is not None:
        for index, site in enumerate(summary.calls):
            if last_name(site.func) != "setNumThreads":
                continue
            ref = SiteRef(module, index)
            if throttle_call(model, ref, site, Ctx(module, site.scope)):
                effect = Effect(module, index, site, _text(model, ref, site))
                found.setdefault("anywhere", effect)
                if not site.scope and not site.guarded:
                    found.setdefault("import", effect)
    memo[module] = found
    return found


__all__ = ["Effect", "cuda_work", "thread_setting", "uses_cv2", "throttles_cv2", "global_seeds",
           "consults_worker_info", "depends_on_worker", "module_throttles", "Inst"]
