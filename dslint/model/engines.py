"""Loops a library runs over the user's loader, calling a function of the project with each
batch: ignite's ``Engine(process_function).run(data)`` calls ``process_function(engine,
batch)`` for every batch of ``data``, once per epoch.

Seen from inside the process function, its second parameter is then a batch of every loader
a ``run`` of such an engine is given, as if the project iterated that loader and called the
function itself (what the rules ask of batches: copies to the device, tensors kept).
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Dict, List, NamedTuple, Optional, Tuple

from ..analysis.summary import FunctionSummary, Param
from ..analysis.values import Attr, Call, Imported, Name, Op, Starred, last_name
from .loaders import library_name
from .objects import Bound, Cls, Ext, Func, Inst, Lit, Results, SiteRef, Step, extend, join
from .project import sites_in_scope

if TYPE_CHECKING:
    from .resolver import Resolver

# ignite 0.5: engine/engine.py ``Engine(process_function)``, engine/deterministic.py
ENGINE_CLASSES = frozenset({"ignite.engine.Engine", "ignite.engine.engine.Engine", "ignite.engine.DeterministicEngine",
                            "ignite.engine.deterministic.DeterministicEngine"})
BATCH_POSITION = 1  # ``process_function(engine, batch)``
# ignite 0.5 engine/__init__.py: engines whose own process function copies each batch to
# ``device`` (when given) with ``non_blocking`` (default False)
SUPERVISED = frozenset({"ignite.engine.create_supervised_trainer", "ignite.engine.create_supervised_evaluator"})


EPOCH_EVENTS = frozenset({"EPOCH_STARTED", "EPOCH_COMPLETED"})  # ignite's ``Events`` fired once per epoch


class EngineRun(NamedTuple):
    """A ``run`` of an ignite engine over the data it is given."""

    made: SiteRef  # the engine's construction (``Engine(...)``, ``create_supervised_*(...)``)
    run: SiteRef
    data: Results  # what the run iterates
    reseeds: bool = False  # a ``DeterministicEngine``: new workers each epoch are its design


class Engines:
    """The engines of the project, indexed once per run: each process function's engine
    constructions, and each construction's ``run`` calls."""

    def __init__(self, resolver: "Resolver"):
        # a proxy, not a reference: the resolver holds this index, and a run pauses the cyclic
        # collector, so a cycle would keep every boundary's resolver (and its memo) alive
        self.resolver = weakref.proxy(resolver)
        self._processed: Optional[Dict[Func, List[SiteRef]]] = None
        self._runs: Optional[Dict[SiteRef, List[SiteRef]]] = None
        self._supervised: Optional[List[EngineRun]] = None
        self._made: Optional[set] = None  # the supervised factories' calls
        self._run_sites: Optional[List[Tuple[SiteRef, SiteRef, Tuple[SiteRef, ...]]]] = None
        self._deterministic: set = set()  # constructions of a ``DeterministicEngine``
        self._importing: Optional[set] = None
        self._handlers: Optional[Dict[Func, List[object]]] = None

    def batches(self, func: Func, function: FunctionSummary, param: Param) -> Optional[Results]:
        """The batches ``param`` of ``func`` receives when ``func`` is an engine's process
        function: one per loader handed to that engine's ``run``; None when it is not one."""
        if function.scope_kind == "class" or len(function.params) <= BATCH_POSITION \
                or function.params[BATCH_POSITION] is not param:
            return None
        engines = self._engines_of().get(func)
        if not engines:
            return None
        parts = []
        for engine in engines:
            for run in self._runs_of().get(engine, ()):
                site = self.resolver.project.call(run)
                ctx = self.resolver.context(run.module, site.scope)
                step = Step(run.module, site.span, "each batch handed to the engine's process function")
                for data in self.resolver.eval(site.args[0], ctx):
                    parts.append(extend(self.resolver.iterate(data), step))
        return join(parts) if parts else None

    def supervised_runs(self) -> List[EngineRun]:
        """The runs of engines made by ``create_supervised_trainer``/``_evaluator``: of the
        installed ignite, or of ignite's own tree (by dotted name), whose engine is built
        inside the factory (the run's engine was made in the context of the factory's call)."""
        if self._supervised is None:
            self._supervised = []
            project = self.resolver.project
            made = self._supervised_made()
            for run, engine, within in self._run_calls(self._ignite_modules() | {ref.module for ref in made}):
                factory = engine if engine in made else next((call for call in within if call in made), None)
                if factory is not None:
                    site = project.call(run)
                    ctx = self.resolver.context(run.module, site.scope)
                    self._supervised.append(EngineRun(factory, run, self.resolver.eval(site.args[0], ctx)))
        return self._supervised

    def _supervised_made(self) -> set:
        """The ``create_supervised_trainer``/``_evaluator`` calls of the project."""
        if self._made is None:
            self._made = set()
            project = self.resolver.project
            for name in ("create_supervised_trainer", "create_supervised_evaluator"):
                for ref in project.calls_named(name):
                    site = project.call(ref)
                    ctx = self.resolver.context(ref.module, site.scope)
                    if any(self._supervised_factory(f.obj) for f in self.resolver.eval(site.func, ctx)):
                        self._made.add(ref)
        return self._made

    def _supervised_factory(self, obj) -> bool:
        return isinstance(obj, (Ext, Func)) and library_name(self.resolver, obj) in SUPERVISED

    def runs(self) -> List[EngineRun]:
        """Every ``run`` of an ignite engine the project makes, with what it iterates: of
        ``Engine(process_function)`` and of ``create_supervised_*`` engines."""
        out = list(self.supervised_runs())
        project = self.resolver.project
        for engine, refs in self._runs_of().items():
            for run in refs:
                site = project.call(run)
                ctx = self.resolver.context(run.module, site.scope)
                out.append(EngineRun(engine, run, self.resolver.eval(site.args[0], ctx),
                                         engine in self._deterministic))
        return out

    def told_epochs(self, run: EngineRun) -> Optional[Results]:
        """The epochs a run is told, when a known number above 1 (``max_epochs=10``), else None."""
        epochs = self._max_epochs(run)
        if epochs and all(isinstance(f.obj, Lit) and type(f.obj.value) is int and f.obj.value > 1 for f in epochs):
            return epochs
        return None

    def may_repeat(self, run: EngineRun) -> bool:
        """The run is told a number of epochs not known to be one (``max_epochs=cfg["epochs"]``):
        its epoch handlers are there to run between epochs. Without ``max_epochs`` a fresh
        engine runs one epoch."""
        epochs = self._max_epochs(run)
        return epochs is not None and not all(
            isinstance(f.obj, Lit) and type(f.obj.value) is int and f.obj.value <= 1 for f in epochs)

    def _max_epochs(self, run: EngineRun) -> Optional[Results]:
        """The ``max_epochs`` the run is given (None: not given)."""
        site = self.resolver.project.call(run.run)
        return self.resolver.keyword_at(run.run, self.resolver.context(run.run.module, site.scope), "max_epochs", 1)

    def run_loaders(self, run: EngineRun) -> List[Inst]:
        """The loaders the run iterates."""
        return [found.obj for found in run.data if isinstance(found.obj, Inst) and self.resolver.is_loader(found.obj)]

    def epoch_handlers(self) -> Dict[Func, List[object]]:
        """Functions attached to an engine's epoch events, with the engine objects they are
        attached to: ``@trainer.on(Events.EPOCH_COMPLETED)`` (also ``(every=n)``) and
        ``trainer.add_event_handler(Events.EPOCH_STARTED, fn, ...)``, in the modules that
        import ignite. Indexed once per run."""
        if self._handlers is None:
            self._handlers = {}
            project = self.resolver.project
            modules = self._ignite_modules()
            for module in sorted(modules):
                summary = project.summary(module)
                for function in summary.functions.values():
                    for decorator in function.decorators:
                        if type(decorator) is Call:
                            site = summary.calls[decorator.index]
                            if type(site.func) is Attr and site.func.name == "on" and site.args \
                                    and _epoch_event(summary, site.args[0]):
                                self._attach(Func(module, function.qualname), site.func.base,
                                             self.resolver.context(module, site.scope))
            for ref in project.calls_named("add_event_handler"):
                site = project.call(ref)
                if ref.module not in modules or type(site.func) is not Attr or len(site.args) < 2 \
                        or not _epoch_event(project.summary(ref.module), site.args[0]):
                    continue
                ctx = self.resolver.context(ref.module, site.scope)
                for found in self.resolver.eval(site.args[1], ctx):
                    handler = self._handler_function(found.obj)
                    if handler is not None:
                        self._attach(handler, site.func.base, ctx)
        return self._handlers

    def _handler_function(self, obj) -> Optional[Func]:
        """The project function a handler runs: a function, a bound method
        (``self.on_epoch``), or the ``__call__`` of an instance of a project class
        (``engine.add_event_handler(Events.EPOCH_STARTED, self)`` in a handler's ``attach``)."""
        if isinstance(obj, Func):
            return obj
        if isinstance(obj, Bound):
            return obj.func
        if isinstance(obj, Inst) and isinstance(obj.cls, Cls):
            return self.resolver.method(obj.cls, "__call__")
        return None

    def handlers_of(self, run: EngineRun) -> List[Func]:
        """The epoch handlers attached to the engine a run runs (made at ``run.made``, or
        within that call: ``create_supervised_trainer``'s engine)."""
        return [func for func, engines in self.epoch_handlers().items()
                if any(run.made in made_by(engine) for engine in engines)]

    def handler_regions(self, run: EngineRun) -> List[Tuple[str, str, int, int]]:
        """The code of ``handlers_of(run)``, run once per epoch: (module, scope, first row,
        last row) of each."""
        project = self.resolver.project
        return [(func.module, func.qualname, function.span.row, function.end_row) for func in self.handlers_of(run)
                for function in (project.function(func.module, func.qualname),) if function is not None]

    def _attach(self, handler: Func, engine, ctx) -> None:
        for found in self.resolver.eval(engine, ctx):
            if isinstance(found.obj, Inst) and found.obj.site is not None:
                self._handlers.setdefault(handler, []).append(found.obj)

    def is_process_function(self, func: Func) -> bool:
        """``func`` is given to an engine as its process function (called for every batch)."""
        return func in self._engines_of()

    def process_functions(self, engine: SiteRef) -> List[Func]:
        """The process functions given to the engine constructed at ``engine``."""
        return [func for func, sites in self._engines_of().items() if engine in sites]

    def trains(self, run: EngineRun) -> bool:
        """The engine's run trains: an engine of ``create_supervised_trainer``, or one whose
        process function calls ``backward()`` or an optimizer's ``step()`` itself."""
        project = self.resolver.project
        site = project.call(run.made)
        if type(site.func) in (Attr, Name) and last_name(site.func) == "create_supervised_trainer":
            return True
        for func in self.process_functions(run.made):
            summary = project.summary(func.module)
            for index in sites_in_scope(project, func.module, func.qualname):
                called = summary.calls[index].func
                if type(called) is Attr and (called.name == "backward" or (
                        called.name == "step" and "optim" in (last_name(called.base) or "").lower())):
                    return True
        return False

    def _ignite_modules(self) -> set:
        """The modules that import ignite (where an engine built elsewhere may be run)."""
        if self._importing is None:
            self._importing = set()
            for info in self.resolver.project.eager_modules():
                summary = info.summary
                scopes = [summary, *summary.functions.values()]
                if any(b.kind == "import" and type(b.value) is Imported and b.value.path.split(".")[0] == "ignite"
                       for scope in scopes for items in scope.bindings.values() for b in items):
                    self._importing.add(info.key)
        return self._importing

    def _run_calls(self, modules) -> List[Tuple[SiteRef, SiteRef, Tuple[SiteRef, ...]]]:
        """(``x.run(data, ...)`` call, the construction site of ``x``, the calls it was made
        within) in ``modules``. The calls are evaluated once per run, in every module that
        imports ignite, makes an engine or calls a supervised factory."""
        if self._run_sites is None:
            self._run_sites = []
            project = self.resolver.project
            wanted = self._ignite_modules() | {ref.module for ref in self._supervised_made()} \
                | {ref.module for refs in self._engines_of().values() for ref in refs}
            for ref in project.calls_named("run") if wanted else ():
                site = project.call(ref)
                if ref.module not in wanted or type(site.func) is not Attr or not site.args \
                        or type(site.args[0]) is Starred:
                    continue
                ctx = self.resolver.context(ref.module, site.scope)
                for found in self.resolver.eval(site.func.base, ctx):
                    if isinstance(found.obj, Inst) and found.obj.site is not None:
                        self._run_sites.append((ref, found.obj.site, calls_within(found.obj.ctx)))
        return [entry for entry in self._run_sites if entry[0].module in modules]

    def _engines_of(self) -> Dict[Func, List[SiteRef]]:
        if self._processed is None:
            self._processed = {}
            project = self.resolver.project
            for name in ("Engine", "DeterministicEngine"):
                for ref in project.calls_named(name):
                    site = project.call(ref)
                    if not site.args or type(site.args[0]) is Starred:
                        continue
                    ctx = self.resolver.context(ref.module, site.scope)
                    classes = [f.obj for f in self.resolver.eval(site.func, ctx) if self._is_engine_class(f.obj)]
                    if not classes:
                        continue
                    if any(self._reseeds(obj) for obj in classes):
                        self._deterministic.add(ref)
                    for found in self.resolver.eval(site.args[0], ctx):
                        func = found.obj.func if isinstance(found.obj, Bound) else found.obj
                        if isinstance(func, Func):  # ``Engine(self.train_step)``: the method
                            self._processed.setdefault(func, []).append(ref)
        return self._processed

    def _runs_of(self) -> Dict[SiteRef, List[SiteRef]]:
        """Each engine construction's ``engine.run(data, ...)`` calls (in the modules that
        construct engines or import ignite: a ``run`` elsewhere is not looked for)."""
        if self._runs is None:
            self._runs = {}
            engines = {ref for refs in self._engines_of().values() for ref in refs}
            for run, engine, _ in self._run_calls(self._ignite_modules() | {ref.module for ref in engines}):
                if engine in engines:
                    self._runs.setdefault(engine, []).append(run)
        return self._runs

    def _reseeds(self, obj) -> bool:
        """ignite's ``DeterministicEngine`` (or a subclass): it reseeds before every epoch and
        relies on workers started anew to carry the new seeds."""
        bases = [obj] if isinstance(obj, Ext) else list(self.resolver.mro(obj)) if isinstance(obj, Cls) else []
        return any((library_name(self.resolver, base) or "").endswith("DeterministicEngine") for base in bases)

    def _is_engine_class(self, obj) -> bool:
        """ignite's engine classes, installed or in ignite's own tree (by dotted name), and a
        project subclass of one."""
        if isinstance(obj, Ext):
            return obj.qualname in ENGINE_CLASSES
        if isinstance(obj, Cls):
            return any(library_name(self.resolver, base) in ENGINE_CLASSES for base in self.resolver.mro(obj))
        return False


def made_by(engine: Inst) -> Tuple[SiteRef, ...]:
    """The calls an engine object may be the engine of: its construction and the calls it was
    built within (``create_supervised_trainer(...)`` builds its ``Engine`` inside)."""
    return (engine.site, *calls_within(engine.ctx))


def calls_within(ctx) -> Tuple[SiteRef, ...]:
    """The calls whose execution an object was made in (its context's call chain)."""
    out = []
    while ctx is not None:
        if ctx.call is not None:
            out.append(ctx.call)
        ctx = ctx.caller
    return tuple(out)


def _epoch_event(summary, value) -> bool:
    """``Events.EPOCH_COMPLETED`` or ``Events.EPOCH_COMPLETED(every=2)`` as written (also one
    of the events of ``Events.EPOCH_COMPLETED | Events.COMPLETED``)."""
    if type(value) is Op and value.op == "|":
        return any(_epoch_event(summary, part) for part in value.args)
    if type(value) is Call:
        value = summary.calls[value.index].func
    return type(value) is Attr and value.name in EPOCH_EVENTS
