"""DSL402 shared-rng: every worker draws the same random numbers.

PyTorch reseeds the global ``random``, ``numpy.random`` and torch generators in each
worker, but not a generator *object* created before the workers start (in a Dataset's
``__init__``, in a transform object the dataset holds, at module level): fork copies its
state (spawn pickles it) into every worker, so all workers draw identical augmentations,
and without persistent workers every epoch repeats them. A ``worker_init_fn`` that seeds
the global generators with a value that does not depend on the worker (``rank + seed``
bound by ``functools.partial``) has the same effect.
"""

from __future__ import annotations

from typing import Iterator, Set, Tuple

from ..diagnostics import Finding
from ..model import effects, loaders
from ..model.objects import Cls, Ctx, Inst
from ..model.queries import WORKER_METHODS, Model
from .base import finding

CODE = "DSL402"


def check(model: Model) -> Iterator[Finding]:
    reported: Set[Tuple[str, object]] = set()
    by_object = {}
    for loader, workers, function in model.worker_runs():
        if isinstance(function.self_obj, Inst) and isinstance(function.self_obj.cls, Cls):
            entry = by_object.setdefault(function.self_obj, (loader, set(), set(), function))
            summary = model.function_summary(function.func)
            entry[1].update(summary.self_reads)
            entry[2].update(effects.reseeded_attributes(model, function.func))
    for obj, (loader, reads, reseeded, function) in by_object.items():
        by_init, methods = _reseeded_by_worker_init(model, loader, obj)
        reseeded |= by_init | _reseeded_by_library(model, loader, obj)
        yield from _generators(model, obj, reads - reseeded, function, reported, methods)
    yield from _constant_worker_seeds(model, reported)


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
    attrs: Set[str] = set()
    for func in init.functions:
        attrs |= effects.reseeded_attributes(model, func)
        function = model.function_summary(func)
        attrs |= set(function.attr_loads) if function is not None else set()
    for method in init.methods.values():
        attrs |= effects.reseeded_attributes(model, method)
    return attrs, set(init.methods)


def _generators(model: Model, obj: Inst, attrs, function, reported, reseeding=frozenset()) -> Iterator[Finding]:
    for item in model.resolver.mro(obj.cls):
        if not isinstance(item, Cls):
            continue
        stores = model.resolver.self_stores(item)
        for attr in sorted(attrs & set(stores)):
            for method, store in stores[attr]:
                if method.name in WORKER_METHODS or "worker" in method.name.lower() or method.name in reseeding:
                    continue  # runs in the workers (also a method the worker_init_fn calls)
                ctx = model.resolver.method_ctx(obj, item.module, method)
                constructor = effects.rng_of(model.resolver.eval(store.value, ctx))
                if constructor is None:
                    continue
                key = (item.module, store.span)
                if key in reported:
                    continue
                reported.add(key)
                klass = model.project.klass(item.module, item.qualname)
                short = constructor.replace("numpy.", "np.")
                yield finding(
                    model, CODE, item.module, store.span,
                    f"`{short}(...)` stored as `self.{attr}` in `{klass.name}.{method.name}` is copied into every "
                    f"DataLoader worker, so all workers draw the same numbers: reseed it per worker in a "
                    f"`worker_init_fn` from `torch.utils.data.get_worker_info().seed`",
                    tuple(function.trail),
                )


def _constant_worker_seeds(model: Model, reported) -> Iterator[Finding]:
    for loader in model.all_loaders():
        workers = model.workers(loader)
        if not workers.processes:
            continue
        for found in model.argument(loader, "worker_init_fn") or ():
            for entry in model.callable_entries(found.obj, "worker_init_fn", found.trail):
                function = model.function_summary(entry.func)
                if function is None:
                    continue
                ctx = Ctx(entry.func.module, entry.func.qualname)
                for ref, site in effects.global_seeds(model, entry.func, ctx):
                    if effects.depends_on_worker(model, site.args[0], entry.func):
                        continue
                    key = (ref.module, site.span)
                    if key in reported:
                        break
                    reported.add(key)
                    text = " ".join(model.project.text_of(ref.module, site.span).split())
                    yield finding(
                        model, CODE, ref.module, site.span,
                        f"`{text}` in `{function.name}`, the `worker_init_fn` of a DataLoader with "
                        f"{workers.describe()} workers, gives every worker the same seed in every epoch: seed from "
                        f"`torch.initial_seed() % 2**32` (or `get_worker_info().seed`)",
                        (model.construction(loader),) + tuple(entry.trail),
                    )
                    break
