"""Registries filled by decorators: ``@register_stream("jsonl") class JsonlStream``,
``@DATASETS.register("h5_seg") class H5Dataset``, ``@register_model def resnet(...)``.

A decorator registers what it decorates by storing it in a dict: ``STREAMS[name] = cls`` in
the function a decorator factory returns, or ``REGISTRY[fn.__name__] = fn`` in the
decorator itself. Read as a statement of that function alone, the store puts an unknown
under an unknown key. Read at each decorated definition (a *registration*), it puts that
class under the key the decorator was given there, and the registry's dict (a module's
``STREAMS = {}``, or the ``self._obj_map = {}`` of the registry object whose method made the
decorator) holds every registered class under its own key. So a lookup ``STREAMS[cfg.stream]``,
``registry.get(name)`` or ``TRAINERS["ddp"](cfg)`` finds the class registered under that key.
A key that is not known (a config file's, a command line's), or that no registration read
here makes, stays unknown (``Resolver.is_registry``): a registry is open to modules the
run did not read. An installed library's registry object (fvcore's, detectron2's, mmengine's
``Registry``: ``@READERS.register()`` then ``READERS.get(name)``) keeps what the project's
decorated definitions register in it (``external``), by the key given or the definition's name.

Followed: the decorated definitions of the modules summarised up front (where datasets,
loaders and trainers are), decorators used with or without a call (a registry object's own
method applied without one, ``@TRANSFORMS.register``, gets the class, and its other parameters
keep their defaults), keys given to the
decorator (positionally, by keyword, or its default), a literal, or the definition's
``__name__`` (``key = name or cls.__name__``, ``cls.__name__.lower()``) or a class attribute
it sets (``REGISTRY[cls.NAME] = cls``), also when the decorator hands the class and its key to
a method of the registry that stores them (``self._do_register(name, cls)``, detectron2's),
and the subclasses a base's ``__init_subclass__`` registers as they are defined. Not followed: a key the store computes further (MMEngine's
``_register_module`` loops over a list of names: its configs are read by ``mmconfig``), a
registry filled by explicit calls (``REGISTRY.register(Cls)``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Iterator, List, NamedTuple, Optional, Set, Tuple

from ..analysis.summary import AttrStore, ClassSummary, FunctionSummary
from ..analysis.values import FAR, Attr, Call, Const, DictDisplay, FunctionRef, Name, Op
from .objects import Bound, Cls, Container, Ctx, Ext, Found, Func, Inst, Lit, Results, SiteRef, Step

if TYPE_CHECKING:
    from .resolver import Resolver

MAX_KEY_STEPS = 4  # local names followed to a registration's key (``key = name or cls.__name__``)
_UNKNOWN = object()


class Registered(NamedTuple):
    """What the registrations put in the project's registries."""

    entries: Dict[str, Dict[int, List[Tuple[object, Results]]]]  # container module → display id → (key, value)
    replaced: Set[Tuple[str, int]]  # (module, store index) of the stores they stand for


def registered(resolver: "Resolver") -> Registered:
    """Every registration made by a decorated definition of the modules summarised up front."""
    return registered_by(resolver, [info.key for info in resolver.project.eager_modules()])


def registered_by(resolver: "Resolver", modules: List[str]) -> Registered:
    """The registrations the decorated definitions of ``modules`` make (a registry module
    summarised on demand registers its own classes: ``FRONTENDS`` filled by
    ``@register_frontend("log_mel")`` beside it)."""
    entries: Dict[str, Dict[int, List[Tuple[object, Results]]]] = {}
    replaced: Set[Tuple[str, int]] = set()

    def add(module: str, definition, made) -> None:
        found = _registered_value(module, definition)
        for store_module, index, key, displays in made:
            for container in displays:
                entries.setdefault(container.ctx.module, {}).setdefault(id(container.value), []).append((key, found))
            replaced.add((store_module, index))

    for key, summary, definition in _definitions(resolver, modules):
        for decorator in definition.decorators:
            add(key, definition, _applications(resolver, key, definition, decorator))
        if isinstance(definition, ClassSummary) and "__init_subclass__" in definition.methods:
            hook = summary.functions.get(f"{definition.qualname}.__init_subclass__")
            for sub in resolver.subclasses(Cls(key, definition.qualname)) if hook is not None else ():
                subclass = resolver.project.klass(sub.module, sub.qualname)
                add(sub.module, subclass, _stores(resolver, key, hook, None, None, subclass))
    return Registered(entries, replaced)


def _definitions(resolver: "Resolver", modules: List[str]):
    """(module, summary, class or function summary) of every definition of ``modules``."""
    for key in modules:
        summary = resolver.project.summary(key)
        for definition in [*summary.classes.values(), *summary.functions.values()] if summary is not None else ():
            yield key, summary, definition


def _registered_value(module: str, definition) -> Results:
    """What registering ``definition`` puts in a registry: the class or function, shown where it is."""
    value = (Cls if isinstance(definition, ClassSummary) else Func)(module, definition.qualname)
    return (Found(value, (Step(module, definition.span, "registered here"),)),)


def external(resolver: "Resolver", modules: List[str]) -> Dict[SiteRef, Dict[str, List[Results]]]:
    """What the decorated definitions of ``modules`` register in installed registries
    (``READER_REGISTRY = Registry("READER")`` of fvcore, then ``@READER_REGISTRY.register()``):
    registry object's construction → key → the definitions. The key is the one given to
    ``register_module(name=...)`` when written out, else the definition's name."""
    from .libraries import EXTERNAL_REGISTRIES, REGISTERING_METHODS

    out: Dict[SiteRef, Dict[str, List[Results]]] = {}
    for key, summary, definition in _definitions(resolver, modules):
        for decorator in definition.decorators:
            site = summary.calls[decorator.index] if type(decorator) is Call else None
            method = site.func if site is not None else decorator
            if type(method) is not Attr or method.name not in REGISTERING_METHODS:
                continue
            ctx = resolver.context(key, definition.scope)
            registries = [f.obj for f in resolver.eval(method.base, ctx) if isinstance(f.obj, Inst)
                          and isinstance(f.obj.cls, Ext) and f.obj.cls.qualname in EXTERNAL_REGISTRIES
                          and f.obj.site is not None]
            name = definition.name
            where = REGISTERING_METHODS[method.name]
            if site is not None and where is not None:
                given = resolver.keyword_at(SiteRef(key, decorator.index), ctx, *where)
                if given is not None:
                    if len(given) != 1 or not (isinstance(given[0].obj, Lit) and isinstance(given[0].obj.value, str)):
                        continue  # a key the model cannot read
                    name = given[0].obj.value
            for registry in registries:
                out.setdefault(registry.site, {}).setdefault(name, []).append(_registered_value(key, definition))
    return out


def _applications(resolver: "Resolver", module: str, definition, decorator) -> Iterator[tuple]:
    """(module, store index, key, dict containers) of each store the decorator makes of
    ``definition``."""
    project = resolver.project
    if type(decorator) is Call:  # a factory: ``@register("jsonl")`` runs what it returns
        site = project.call(SiteRef(module, decorator.index))
        ctx = resolver.context(module, site.scope)
        for found in resolver.eval(site.func, ctx):
            func, receiver = _callee(found.obj)
            factory = project.function(func.module, func.qualname) if func is not None else None
            if factory is None:
                continue
            outer = Ctx(func.module, func.qualname, SiteRef(module, decorator.index), ctx, receiver)
            for inner in _returned_functions(resolver, func.module, factory):
                yield from _stores(resolver, func.module, inner, factory, outer, definition)
    elif type(decorator) in (Name, Attr):  # the decorator itself: ``@register_model``, ``@DATASETS.register``
        for found in resolver.eval(decorator, resolver.context(module, definition.scope)):
            func, receiver = _callee(found.obj)
            function = project.function(func.module, func.qualname) if func is not None else None
            if function is not None:
                yield from _stores(resolver, func.module, function, None, None, definition, receiver)


def _callee(obj):
    if type(obj) is Func:
        return obj, None
    if type(obj) is Bound:
        return obj.func, obj.self_obj
    return None, None


def _returned_functions(resolver: "Resolver", module: str, factory: FunctionSummary) -> List[FunctionSummary]:
    """The functions defined in ``factory`` that it returns (``return deco``)."""
    out = []
    for value in factory.returns:
        if type(value) is Name:
            refs = [b.value for b in factory.bindings.get(value.id, ()) if b.kind == "def"]
        else:
            refs = [value] if type(value) is FunctionRef else []
        for ref in refs:
            function = resolver.project.function(module, ref.qualname)
            if function is not None and function.scope == factory.qualname:
                out.append(function)
    return out


def _stores(resolver: "Resolver", module: str, decorator: FunctionSummary, factory: Optional[FunctionSummary],
            outer: Optional[Ctx], definition, bound_to=None) -> Iterator[tuple]:
    """``X[key] = <the decorated>`` statements of the decorator function, or of the method it
    hands the decorated to (``self._do_register(name, cls)``, detectron2's registry).
    ``bound_to``: the registry object whose method is the decorator itself
    (``@DATASETS.register`` of ``def register(self, obj=None, name=None)``)."""
    params = decorator.params[1:] if bound_to is not None else decorator.params
    if not params:
        return
    param = params[0].name
    summary = resolver.project.summary(module)
    receiver = outer.self_obj if outer is not None else bound_to
    owner = factory.params[0].name if factory is not None and factory.params and receiver is not None else \
        decorator.params[0].name if bound_to is not None else None
    if bound_to is not None:
        outer = resolver.context(module, decorator.qualname)
    for index, store in _stores_of(summary, decorator.qualname, param):
        key = _key(resolver, module, store.key, decorator, param, outer, definition, MAX_KEY_STEPS)
        displays = _containers(resolver, module, store, decorator, owner, receiver, outer)
        if displays:
            yield module, index, None if key is _UNKNOWN else key, displays
    if owner is None or owner in decorator.bindings or bound_to is not None:
        return
    for site in summary.calls if summary is not None else ():
        func = site.func
        if (site.scope != decorator.qualname or type(func) is not Attr or type(func.base) is not Name
                or func.base.id != owner):
            continue
        method = resolver.method(receiver.cls, func.name) if isinstance(receiver.cls, Cls) else None
        helper = resolver.project.function(method.module, method.qualname) if method is not None else None
        given = _passed(site, helper, param) if helper is not None else None
        if given is None:
            continue
        held, key_value = given
        helper_summary = resolver.project.summary(method.module)
        for index, store in _stores_of(helper_summary, helper.qualname, held):
            passed = key_value(store.key)
            key = _key(resolver, module, passed, decorator, param, outer, definition, MAX_KEY_STEPS) \
                if passed is not None else _UNKNOWN
            displays = _containers(resolver, method.module, store, helper, helper.params[0].name, receiver, outer)
            if displays:
                yield method.module, index, None if key is _UNKNOWN else key, displays


def _stores_of(summary, scope: str, held: str) -> Iterator[Tuple[int, AttrStore]]:
    """(index, store) of the ``X[key] = <held>`` statements made in ``scope``."""
    for index, store in enumerate(summary.stores if summary is not None else ()):
        if (store.scope == scope and store.attr == "[]" and store.kind == "assign"
                and type(store.value) is Name and store.value.id == held):
            yield index, store


def _passed(site, helper: FunctionSummary, param: str):
    """When the call ``self.helper(...)`` hands the decorated (``param``) to ``helper``: the
    helper's parameter that receives it, and a function giving, for a key the helper stores
    under (its own parameter), the expression the call passes for it (None: not known)."""
    params = [p for p in helper.params[1:] if p.kind in ("pos", "posonly", "kwonly")]
    passed = {}
    for position, arg in enumerate(site.args):
        if position < len(params) and params[position].kind != "kwonly":
            passed[params[position].name] = arg
    for name, arg in site.keywords:
        if name is not None:
            passed[name] = arg
    held = next((name for name, arg in passed.items() if type(arg) is Name and arg.id == param), None)
    if held is None:
        return None

    names = {p.name for p in params}

    def key_value(key):
        if type(key) is Const:
            return key
        if type(key) is Name and key.id in names and len(helper.bindings.get(key.id, ())) <= 1:
            return passed.get(key.id)  # the parameter as the call gives it (not set again in the helper)
        return None

    return held, key_value


def _key(resolver: "Resolver", module: str, value, decorator: FunctionSummary, param: str, outer: Optional[Ctx],
         definition, steps: int):
    """The key a store is made under for ``definition`` (``_UNKNOWN``: not a literal); ``value``
    is written in ``decorator``, a function of ``module``."""
    kind = type(value)
    if kind is Const:
        return value.value if isinstance(value.value, (str, int)) else _UNKNOWN
    if kind is Attr and type(value.base) is Name and value.base.id == param:
        if value.name == "__name__":
            return definition.name
        return _class_constant(definition, value.name)  # ``REGISTRY[cls.NAME] = cls``
    if kind is Call and steps > 0:  # ``cls.__name__.lower()``
        site = resolver.project.summary(module).calls[value.index]
        func = site.func
        if type(func) is Attr and func.name in CASE_METHODS and not site.args and not site.keywords:
            found = _key(resolver, module, func.base, decorator, param, outer, definition, steps - 1)
            return getattr(found, func.name)() if isinstance(found, str) else _UNKNOWN
        return _UNKNOWN
    if kind is Op and value.op == "or" and steps > 0:  # ``name or cls.__name__``
        for operand in value.args:
            found = _key(resolver, module, operand, decorator, param, outer, definition, steps - 1)
            if found is _UNKNOWN or found:
                return found
        return _UNKNOWN
    if kind is Op and value.op == "if" and steps > 0:  # ``name if name is not None else cls.__name__``
        test, body, orelse = value.args
        chosen = _chosen(resolver, module, test, decorator, param, outer, definition, steps - 1)
        if chosen is _UNKNOWN:
            return _UNKNOWN
        return _key(resolver, module, body if chosen else orelse, decorator, param, outer, definition, steps - 1)
    if kind is Name and steps > 0:
        local = decorator.bindings.get(value.id)
        if local:
            if len(local) == 1 and local[0].kind == "assign":
                return _key(resolver, module, local[0].value, decorator, param, outer, definition, steps - 1)
            default = _applied_default(decorator, value.id, local) if value.id != param else None
            return _UNKNOWN if default is None else _literal_key(default.value)
        if outer is not None:  # the factory's parameter, as this decorator call binds it
            results = resolver.name(value.id, outer, FAR)
            if len(results) == 1 and type(results[0].obj) is Lit:
                return _literal_key(results[0].obj.value)
    return _UNKNOWN


def _literal_key(literal):
    """A key a registry may store under (a string or a number; None: no key given), else ``_UNKNOWN``."""
    return literal if literal is None or isinstance(literal, (str, int)) else _UNKNOWN


def _applied_default(decorator: FunctionSummary, name: str, bindings) -> Optional[Const]:
    """The literal default of a parameter the decorator's application leaves to it (applied
    without a call, only the decorated is passed: ``name=None`` of ``register(self, obj,
    name=None)``), when the function does not bind it again."""
    if len(bindings) != 1 or bindings[0].kind != "param":
        return None
    param = next((p for p in decorator.params if p.name == name), None)
    return param.default if param is not None and type(param.default) is Const else None


def _chosen(resolver: "Resolver", module: str, test, decorator: FunctionSummary, param: str, outer: Optional[Ctx],
            definition, steps: int):
    """Whether the test of a conditional key holds (``_UNKNOWN``: not known): ``name``,
    ``name is None`` or ``name is not None`` of a key known here."""
    if type(test) is Op and test.op in ("is", "is-not") and len(test.args) == 2 and test.args[1] == Const(None):
        tested = _key(resolver, module, test.args[0], decorator, param, outer, definition, steps)
        return _UNKNOWN if tested is _UNKNOWN else (tested is None) == (test.op == "is")
    tested = _key(resolver, module, test, decorator, param, outer, definition, steps)
    return _UNKNOWN if tested is _UNKNOWN else bool(tested)


CASE_METHODS = frozenset({"lower", "upper"})


def _class_constant(definition, name: str):
    """A string or int class attribute the registered class sets itself (``NAME = "jsonl"``)."""
    bindings = definition.bindings.get(name, ()) if isinstance(definition, ClassSummary) else ()
    if len(bindings) == 1 and bindings[0].kind == "assign" and type(bindings[0].value) is Const \
            and isinstance(bindings[0].value.value, (str, int)):
        return bindings[0].value.value
    return _UNKNOWN


def _containers(resolver: "Resolver", module: str, store: AttrStore, function: FunctionSummary,
                owner: Optional[str], receiver, outer: Optional[Ctx]) -> List[Container]:
    """The dicts a store of ``function`` puts into: a module's ``STREAMS``, or ``self._obj_map``
    of the registry object (``receiver``, named ``owner`` there) whose method made the decorator."""
    target = store.target
    on_receiver = (owner is not None and receiver is not None and type(target) is Attr and type(target.base) is Name
                   and target.base.id == owner
                   # the factory's ``self`` seen from its closure, or the helper method's own ``self``
                   and (owner not in function.bindings or bool(function.params) and function.params[0].name == owner))
    if on_receiver:
        results: Results = resolver.attribute(Found(receiver), target.name, outer)
    else:
        results = resolver.eval(target, resolver.context(module, function.qualname))
    return [f.obj for f in results if type(f.obj) is Container and type(f.obj.value) is DictDisplay]
