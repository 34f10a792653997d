"""DSL403 sampler-set-epoch: a DistributedSampler shuffles the same way every epoch.

``DistributedSampler`` derives its permutation from ``seed + epoch``; unless
``sampler.set_epoch(epoch)`` is called each epoch, every epoch sees the same order. The
sampler may be wrapped in torch's ``BatchSampler`` given as ``batch_sampler=`` (the loader's
``.sampler`` is then its own ``SequentialSampler``, so ``loader.sampler.set_epoch`` misses it). The
sampler, the loader and the epoch loop may be in different functions and files; a
``set_epoch`` reached from the loop (directly, through ``loader.sampler``, or in a
function the loop calls) counts when what it is called on may be that sampler, and
frameworks that set the epoch themselves (accelerate, Lightning, HF) are left alone. A
call in the loop's own function but outside the loop (``sampler.set_epoch(start_epoch)``
on resume) runs once, not once per epoch: it does not count.
``dataset.set_epoch(epoch)`` or ``val_sampler.set_epoch(epoch)`` leaves the shuffling
sampler's order unchanged.
"""

from __future__ import annotations

from typing import Iterator, Optional, Set, Tuple

from ..analysis.values import Attr, Const, Name, Op, last_name
from ..diagnostics import Finding
from ..model import loaders
from ..model.libraries import BATCH_SAMPLERS, DISTRIBUTED_SAMPLER, installs_sampler
from ..model.externals import is_none, truthiness
from ..model.objects import Bound, Cls, Container, Ctx, Ext, Func, Inst, Lit, Step, Top
from ..model.project import sites_in_scope
from ..model.queries import Epochs, Iteration, Model
from .base import finding, where

CODE = "DSL403"
DISTRIBUTED_SAMPLERS = ("torch.utils.data.DistributedSampler", DISTRIBUTED_SAMPLER)


def _shuffling_sampler(model: Model, loader) -> Optional[Tuple[Inst, str]]:
    """The loader's shuffling ``DistributedSampler`` and the loader's attribute path to it."""
    for obj, route in _given_samplers(model, loader):
        if not isinstance(obj, Inst) or obj.site is None:
            continue
        if not any(isinstance(i, Ext) and i.qualname in DISTRIBUTED_SAMPLERS for i in model.resolver.mro(obj.cls)):
            continue
        if _installed(model, obj, loader):
            return obj, route  # the library's own ``DistributedSampler(dataset)``: it shuffles
        shuffle = model.resolver.keyword_at(obj.site, obj.ctx, "shuffle", 3 if isinstance(obj.cls, Ext) else None)
        if shuffle is None or truthiness(shuffle) == "true":
            return obj, route
    return None


def _given_samplers(model: Model, loader) -> Iterator[Tuple[object, str]]:
    """The samplers the loader is given, each with its attribute path on the loader: ``sampler``,
    ``batch_sampler`` (a sampler that yields batches itself), or ``batch_sampler.sampler`` for
    the sampler torch's ``BatchSampler`` wraps (``loader.sampler`` is then the loader's own
    ``SequentialSampler``)."""
    for name in ("sampler", "batch_sampler"):
        for found in model.argument(loader, name) or ():
            obj = found.obj
            if name == "batch_sampler" and isinstance(obj, Inst) and isinstance(obj.cls, Ext) \
                    and obj.cls.qualname in BATCH_SAMPLERS:
                for inner in model.resolver.keyword_at(obj.site, obj.ctx, "sampler", 0) or ():
                    yield inner.obj, "batch_sampler.sampler"
            elif name == "batch_sampler" and isinstance(obj, Inst) and isinstance(obj.cls, Cls) and obj.site is not None:
                yield obj, name
                for inner in model.wrapped_samplers(obj):  # a project batch sampler drawing from a sampler
                    yield inner.obj, ""
            else:
                yield obj, name
    spec = model.spec(loader)
    base = loaders.base_loader(loader)
    if spec is not None and base is not None and installs_sampler(model.resolver, base, spec):
        yield Inst(Ext(DISTRIBUTED_SAMPLER), base.site, base.ctx), "sampler"


def _installed(model: Model, sampler: Inst, loader) -> bool:
    """The sampler is the one the loader's library builds inside (made at the loader's own call)."""
    base = loaders.base_loader(loader)
    return base is not None and sampler.site == base.site


def _sets_epoch(model: Model, sampler: Inst, loader, epoch, iteration) -> bool:
    """A ``set_epoch`` in the epoch loop (or a function it calls) on something that may be the
    sampler; on the sampler or the loader anywhere, or on something unknown in one of the
    modules involved, unless it runs once before or after the epochs."""
    base = loaders.base_loader(loader)
    targets = {sampler.site, base.site}
    if epoch.loop is not None and any(_may_set(model, site, Ctx(ref.module, site.scope), targets, 0)
                                      for ref, site in model.calls_in_loop(epoch.module, epoch.loop, {"set_epoch"})):
        return True
    involved = {sampler.site.module, base.site.module, epoch.module, iteration.module}
    involved |= _base_class_modules(model, iteration.module, iteration.scope)
    if any(_hands_sampler_to_setter(model, ref, targets, involved) for ref in model.project.calls_named(EPOCH_SETTER)):
        return True
    for ref in model.project.calls_named("set_epoch"):
        site = model.project.call(ref)
        if not hasattr(site.func, "base") or _outside_epochs(model, ref, site, epoch) or _never_called(model, ref, site):
            continue
        for found in model.resolver.eval(site.func.base, Ctx(ref.module, site.scope)):
            obj = found.obj
            if isinstance(obj, Inst) and obj.site in (sampler.site, base.site):
                return True
            if isinstance(obj, Top) and (ref.module in involved or _hook_by_name(model, ref, site)
                                         and ref.module in model.import_closure(iteration.module)):
                return True
    return False


# ignite 0.5 contrib/engines/common.py: ``setup_common_training_handlers(trainer, train_sampler=...)``
# attaches ``train_sampler.set_epoch(engine.state.epoch - 1)`` to the trainer's EPOCH_STARTED
EPOCH_SETTER = "setup_common_training_handlers"
EPOCH_SETTERS = frozenset({"ignite.contrib.engines.common.setup_common_training_handlers"})


def _hands_sampler_to_setter(model: Model, ref, targets, involved) -> bool:
    """The call at ``ref`` is ignite's ``setup_common_training_handlers`` given, as
    ``train_sampler``, the sampler or the loader's (``train_loader.sampler``), or something
    unknown in one of the modules involved."""
    site = model.project.call(ref)
    ctx = Ctx(ref.module, site.scope)
    if not any(loaders.library_name(model.resolver, f.obj) in EPOCH_SETTERS for f in model.resolver.eval(site.func, ctx)):
        return False
    for found in model.resolver.keyword_at(ref, ctx, "train_sampler", 1) or ():
        obj = found.obj
        if (isinstance(obj, Inst) and obj.site in targets) or (isinstance(obj, Top) and ref.module in involved):
            return True
    return False


def _hook_by_name(model: Model, ref, site) -> bool:
    """The call is in a method a runner calls by its name (``self.call_hook("before_train_epoch")``
    then ``getattr(hook, name)(self)``): a per-epoch hook of the training framework, whose
    ``runner.data_loader`` the model cannot follow (counted when the module iterating the
    loader imports the hook's)."""
    function = model.project.function(ref.module, site.scope) if site.scope else None
    return function is not None and function.scope_kind == "class" and "epoch" in function.name \
        and _named_in_calls(model, function.name)


def _base_class_modules(model: Model, module: str, scope: str) -> Set[str]:
    """The modules of the project classes a method's class inherits from: a trainer's base
    class running the epochs (``BaseTrainer._start_epoch`` setting the epoch on every loader its
    subclass's ``loaders()`` lists) is code of the same object."""
    function = model.project.function(module, scope) if scope else None
    if function is None or function.scope_kind != "class":
        return set()
    return {item.module for item in model.resolver.mro(Cls(module, function.scope)) if isinstance(item, Cls)}


def _never_called(model: Model, ref, site) -> bool:
    """A call in a method of a project class that nothing calls (every caller known, none
    found): a batch sampler's ``set_epoch`` forwarding to its sampler, when the loop calls
    ``set_epoch`` on something else (``loader.sampler``, torch's own ``SequentialSampler``)."""
    function = model.project.function(ref.module, site.scope) if site.scope else None
    if function is None or function.scope_kind != "class" or function.name.startswith("__"):
        return False
    func = Func(ref.module, site.scope)
    return not model.resolver.callers(func) and model.resolver.all_callers_known(func) \
        and not _named_in_calls(model, function.name)


ATTRIBUTE_PROBES = frozenset({"hasattr", "getattr", "setattr", "delattr"})


def _named_in_calls(model: Model, name: str) -> bool:
    """Whether a call of the project passes the method's name as a string (a hook dispatched by
    name: ``self._call("before_epoch")`` then ``getattr(hook, stage)(self)``); not a check that
    some object has such a method (``hasattr(loader.sampler, "set_epoch")``)."""
    strings = model.__dict__.get("_call_strings")
    if strings is None:  # once per run: the string arguments of every call
        strings = model.__dict__["_call_strings"] = {
            arg.value for info in model.project.eager_modules() for call in info.summary.calls
            if last_name(call.func) not in ATTRIBUTE_PROBES
            for arg in call.args if type(arg) is Const and type(arg.value) is str}
    return name in strings


def _outside_epochs(model: Model, ref, site, epoch, depth: int = 1) -> bool:
    """A call in the epoch loop's own function that no loop around the epoch loop repeats runs
    once, before or after all the epochs (``sampler.set_epoch(start_epoch)`` on resume); so
    does one in a helper (``depth`` calls down, in none of its loops) that only such calls run
    (``checkpoint.resume(path, model, sampler)`` before the loop)."""
    if epoch.loop is None:
        return False
    if ref.module != epoch.module or site.scope != epoch.loop.scope:
        if depth <= 0 or not site.scope or site.loop >= 0:
            return False
        func = Func(ref.module, site.scope)
        callers = model.resolver.callers(func)
        return bool(callers) and model.resolver.all_callers_known(func) and all(
            _outside_epochs(model, caller, model.project.call(caller), epoch, depth - 1) for caller, _ in callers)
    loops = model.project.summary(epoch.module).loops
    index = epoch.index
    while index >= 0:
        loop = loops[index]
        if loop.span.row <= site.span.row <= loop.end_row:
            return False
        index = loop.parent
    return True


MAX_HOLDERS = 2  # holders followed into their own ``set_epoch`` (``data["train"].set_epoch(epoch)``)


def _may_set(model: Model, site, ctx: Ctx, targets, depth: int) -> bool:
    """Whether the ``set_epoch`` call ``site`` may set the sampler's epoch: what it is called
    on may be the sampler (unknown: it may); ``set_epoch(...)`` as a plain function may."""
    if not isinstance(site.func, Attr):
        return True
    receivers = model.resolver.eval(site.func.base, ctx)
    return not receivers or any(_may_be_sampler(model, found.obj, targets, depth) for found in receivers)


def _may_be_sampler(model: Model, obj, targets, depth: int) -> bool:
    """``obj.set_epoch`` may reach the sampler unless ``obj`` is known to be another object:
    another torch sampler (its own epoch), or an instance of a project class whose own
    ``set_epoch`` sets nothing that may be the sampler (a dataset's epoch)."""
    if is_none(obj):
        return False  # ``getattr(loader, "sampler", None)``'s default: no sampler there
    if not isinstance(obj, Inst) or (obj.site is not None and obj.site in targets):
        return True
    method = model.resolver.method(obj.cls, "set_epoch") if isinstance(obj.cls, Cls) else None
    if method is not None:
        return depth >= MAX_HOLDERS or _method_may_set(model, method, obj, targets, depth + 1)
    return not _is_torch_sampler(model, obj)


def _method_may_set(model: Model, method: Func, inst: Inst, targets, depth: int) -> bool:
    """A holder's ``set_epoch`` method that passes the epoch on to what may be the sampler, or
    calls other project code (not followed: it may)."""
    function = model.project.function(method.module, method.qualname)
    if function is None:
        return True
    ctx = model.resolver.method_ctx(inst, method.module, function)
    summary = model.project.summary(method.module)
    for index in sites_in_scope(model.project, method.module, method.qualname):
        site = summary.calls[index]
        if last_name(site.func) == "set_epoch":
            if _may_set(model, site, ctx, targets, depth):
                return True
        elif _runs_project_code(model, site, ctx):
            return True
    return False


def _runs_project_code(model: Model, site, ctx: Ctx) -> bool:
    """Whether a call may run project code: a project function or method, or something
    unknown, unless it is a method of a built-in value or an outside object
    (``self.sums.clear()`` on a dict, ``self.log.write(...)`` on a file)."""
    callees = model.resolver.eval(site.func, ctx)
    if any(isinstance(f.obj, (Func, Bound)) for f in callees):
        return True
    if not any(isinstance(f.obj, Top) for f in callees):
        return False
    if not isinstance(site.func, Attr):
        return True
    receivers = model.resolver.eval(site.func.base, ctx)
    return not receivers or not all(isinstance(f.obj, (Container, Lit)) or (isinstance(f.obj, Inst) and isinstance(f.obj.cls, Ext))
                                    for f in receivers)


def _is_torch_sampler(model: Model, inst: Inst) -> bool:
    return any(isinstance(c, Ext) and c.qualname.startswith("torch.utils.data.") and c.qualname.endswith("Sampler")
               for c in model.resolver.mro(inst.cls))


def _sampler_ref(model: Model, sampler: Inst, route: str, loader, epoch) -> Tuple[Optional[str], bool]:
    """How code in the epoch loop's scope reaches the sampler: its variable, or the loader's
    attribute ``route`` (``<loader>.sampler``, ``<loader>.batch_sampler.sampler``); and whether
    that variable may be None instead (``sampler = DistributedSampler(ds) if distributed else
    None``: the call must then be guarded). (None, False) when nothing reaches it for sure: a
    variable that may hold another object, or a loader that may have been given no sampler
    (its ``.sampler`` is then torch's own, which has no ``set_epoch``)."""
    from ..analysis.values import FAR

    summary = model.project.summary(epoch.module)
    scope = epoch.loop.scope
    bindings = summary.functions[scope].bindings if scope in summary.functions else summary.bindings
    base = loaders.base_loader(loader)
    loader_name = None
    installed = _installed(model, sampler, loader)  # no name holds it: only the loader's ``.sampler`` reaches it
    for name in sorted(bindings):
        values = model.resolver.name(name, Ctx(epoch.module, scope), FAR)
        for found in values:
            obj = loaders.base_loader(found.obj) if not isinstance(found.obj, Top) else None
            if obj is not None and obj.site == sampler.site and not installed:
                others = [f.obj for f in values if not isinstance(f.obj, Top)
                          and getattr(loaders.base_loader(f.obj), "site", None) != sampler.site]
                if all(is_none(other) for other in others):  # the callers seen may all pass ``distributed=True``:
                    return name, bool(others) or _may_be_none(bindings, name)  # the fix must suit any caller
            if obj is not None and obj.site == base.site and loader_name is None:
                loader_name = name
    if not loader_name or not route or installed:
        return (f"{loader_name}.{route}", False) if loader_name and route else (None, False)
    keyword = route.split(".")[0]
    if any(is_none(found.obj) for found in model.argument(loader, keyword) or ()) \
            or (base.site is not None and _none_written(model, base.site, keyword)):
        return None, False
    return f"{loader_name}.{route}", False


def _none_written(model: Model, ref, keyword: str) -> bool:
    """Whether the call at ``ref`` passes ``keyword`` a value that may be None by its own
    text (``sampler=DistributedSampler(ds) if distributed else None``)."""
    site = model.project.call(ref)
    written = next((value for name, value in site.keywords if name == keyword), None)
    building = model.project.function(ref.module, site.scope) if site.scope else None
    summary = model.project.summary(ref.module)
    bindings = building.bindings if building is not None else summary.bindings if summary is not None else {}
    return _none_in(written, bindings)


def _may_be_none(bindings, name: str) -> bool:
    """Whether the code binds ``name`` to None itself (``sampler = None``, ``... if distributed
    else None``), whatever its callers pass."""
    return any(binding.kind == "assign" and _none_in(binding.value, {}) for binding in bindings.get(name, ()))


def _none_in(value, bindings, depth: int = 0) -> bool:
    """Whether the expression ``value`` may give None by its own text: a ``None``, a branch of
    a conditional expression or an operand of ``or``/``and`` that is one, or a name of the
    scope (``bindings``) bound so."""
    if isinstance(value, Const):
        return value.value is None
    if isinstance(value, Op) and value.op in ("if", "or", "and"):
        operands = value.args[1:] if value.op == "if" else value.args
        return any(_none_in(operand, bindings, depth) for operand in operands)
    if isinstance(value, Name) and depth < 2:
        return any(binding.kind == "assign" and _none_in(binding.value, bindings, depth + 1)
                   for binding in bindings.get(value.id, ()))
    return False


def check(model: Model) -> Iterator[Finding]:
    reported: Set[object] = set()
    for iteration in model.iterations():
        if iteration.loop is None:
            continue  # iter()/next() in a loop is a fresh iterator each pass, not an epoch over the loader
        loader = iteration.loader
        if model.managed(loader):
            continue
        shuffling = _shuffling_sampler(model, loader)
        if shuffling is None:
            continue
        sampler, route = shuffling
        epoch = model.epoch_loop(iteration)
        if epoch is None or epoch.runner:
            continue  # not a framework's repeated method: its sampler may be the framework's business
        # built by a factory in another module: the sampler is the place every loop shares, and
        # the loop that forgets it is shown beside it (not a framework's hook, where the
        # framework sets the epoch and only this loop forgets)
        at_sampler = epoch.loop is not None and epoch.module != sampler.site.module and model.building_hook(loader) is None
        key = (epoch.module, epoch.index) if epoch.loop is not None and not at_sampler else sampler.site
        if key in reported or _sets_epoch(model, sampler, loader, epoch, iteration):
            continue
        reported.add(key)
        sampler_site = model.project.call(sampler.site)
        sampler_step = Step(sampler.site.module, sampler_site.span, "the shuffling DistributedSampler")
        steps = (sampler_step, loaders.construction_step(model.resolver, loader),
                 Step(iteration.module, iteration.span, "iterated here")) + epoch.trail
        wrapped = " (the one the loader's library puts in, the loader's `.sampler`)" \
            if _installed(model, sampler, loader) else "" if route == "sampler" else (
            " (inside the project batch sampler given as `batch_sampler=`: the loader's `.sampler` is its own "
            "`SequentialSampler`)" if not route else
            f" (given through `batch_sampler=`, it is the loader's `.{route}`: its `.sampler` is the loader's own "
            f"`SequentialSampler`)")
        target = (epoch.loop.target or "epoch") if epoch.loop is not None else None
        if at_sampler:
            yield finding(
                model, CODE, sampler.site.module, sampler_site.span,
                f"Shuffling `DistributedSampler`{wrapped} of a DataLoader iterated once per epoch (the epoch loop at "
                f"{where(model, Step(epoch.module, epoch.loop.span, ''), sampler.site.module)}) but `set_epoch` is never "
                f"called: every epoch uses the same order; call `sampler.set_epoch({target})` first in that loop",
                (Step(epoch.module, epoch.loop.span, "the epoch loop"),) + steps[1:], fixable=False,
            )
        elif epoch.loop is not None:
            reference, guarded = _sampler_ref(model, sampler, route, loader, epoch)  # None: nothing reaches it for sure
            yield finding(
                model, CODE, epoch.module, epoch.loop.span,
                f"Epoch loop iterates a DataLoader with a shuffling `DistributedSampler`{wrapped} but never calls "
                f"`set_epoch`: every epoch uses the same order; call `sampler.set_epoch({target})` first in the loop",
                steps,
                target=epoch.loop.target, body=tuple(epoch.loop.body) if epoch.loop.body else None,
                sampler_ref=reference, sampler_may_be_none=guarded, fixable=reference is not None,
            )
        else:
            yield finding(
                model, CODE, sampler.site.module, sampler_site.span,
                f"Shuffling `DistributedSampler`{wrapped} of a DataLoader iterated once per epoch "
                f"(`{epoch.parameter}` is a parameter of the code that iterates it) but `set_epoch` is never called: "
                f"every epoch uses the same order; call `sampler.set_epoch({epoch.parameter})` before iterating",
                steps, fixable=False,
            )
    yield from _engine_epochs(model, reported)


def _engine_epochs(model: Model, reported: Set[object]) -> Iterator[Finding]:
    """A loader an ignite engine runs over for several epochs (``trainer.run(loader,
    max_epochs=10)``): the engine iterates it anew each epoch and sets no sampler's epoch, so a
    handler must (``@trainer.on(Events.EPOCH_STARTED)``, or ``setup_common_training_handlers(
    trainer, train_sampler=...)``)."""
    engines = model.resolver.engines
    for run in engines.runs():
        epochs = engines.told_epochs(run)
        if not epochs:
            continue
        site = model.project.call(run.run)
        for loader in engines.run_loaders(run):
            if model.managed(loader):
                continue
            shuffling = _shuffling_sampler(model, loader)
            if shuffling is None or shuffling[0].site in reported:
                continue
            sampler = shuffling[0]
            ran = Step(run.run.module, site.span, "the engine runs over it once per epoch here")
            epoch = Epochs(run.run.module, -1, None, None, ())
            if _sets_epoch(model, sampler, loader, epoch, Iteration(loader, run.run.module, site.scope, site.span,
                                                                    None, run.run.index, ())):
                continue
            reported.add(sampler.site)
            sampler_site = model.project.call(sampler.site)
            wrapped = " (the one the loader's library puts in, the loader's `.sampler`)" \
                if _installed(model, sampler, loader) else ""
            yield finding(
                model, CODE, sampler.site.module, sampler_site.span,
                f"Shuffling `DistributedSampler`{wrapped} of a DataLoader an ignite engine runs for "
                f"{epochs[0].obj.value} epochs ({where(model, ran, sampler.site.module)}) but `set_epoch` is never "
                f"called: every epoch uses the same order; call `sampler.set_epoch(engine.state.epoch - 1)` in an "
                f"`Events.EPOCH_STARTED` handler (or pass it as `train_sampler=` to "
                f"`setup_common_training_handlers`)",
                (Step(sampler.site.module, sampler_site.span, "the shuffling DistributedSampler"),
                 loaders.construction_step(model.resolver, loader), ran) + tuple(f.trail[-1] for f in epochs if f.trail)[:1],
                fixable=False,
            )
