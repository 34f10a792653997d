"""Registries filled by decorators: ``@register_stream("jsonl") class JsonlStream``,
``@DATASETS.register("h5_seg") class H5Dataset``, ``@register_model def resnet(...)``.

A decorator registers what it decorates by storing it in a dict: ``STREAMS[name] = cls`` in
the function a decorator factory returns, or ``REGISTRY[fn.__name__] = fn`` in the
decorator itself. Read as a statement of that function alone, the store puts an unknown
under an unknown key. Read at each decorated definition (a *registration*), it puts that
class under the key the decorator was given there, and the registry's dict (a module's
``STREAMS = {}``, or the ``self._obj_map = {}`` of the registry object whose method made the
decorator) holds every registered class under its own key. So a lookup ``STREAMS[cfg.stream]``,
``registry.get(name)`` or ``TRAINERS["ddp"](cfg)`` finds the class registered under that key,
and one under a key that is not known finds every class registered there.

Followed: the decorated definitions of the modules summarised up front (where datasets,
loaders and trainers are), decorators used with or without a call, keys given to the
decorator (positionally, by keyword, or its default), a literal, or the definition's
``__name__`` (``key = name or cls.__name__``). Not followed: a store made by another
function the decorator calls (MMEngine's ``_register_module``: its configs are read by
``mmconfig``), a registry filled by explicit calls (``REGISTRY.register(Cls)``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Iterator, List, NamedTuple, Optional, Set, Tuple

from ..analysis.summary import AttrStore, ClassSummary, FunctionSummary
from ..analysis.values import FAR, Attr, Call, Const, DictDisplay, FunctionRef, Name, Op
from .objects import Bound, Cls, Container, Ctx, Found, Func, Lit, Results, SiteRef, Step

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
    entries: Dict[str, Dict[int, List[Tuple[object, Results]]]] = {}
    replaced: Set[Tuple[str, int]] = set()
    for info in resolver.project.eager_modules():
        summary = info.summary
        for definition in [*summary.classes.values(), *summary.functions.values()]:
            if not definition.decorators:
                continue
            value = (Cls if isinstance(definition, ClassSummary) else Func)(info.key, definition.qualname)
            found = (Found(value, (Step(info.key, definition.span, "registered here"),)),)
            for decorator in definition.decorators:
                for module, index, key, displays in _applications(resolver, info.key, definition, decorator):
                    for container in displays:
                        entries.setdefault(container.ctx.module, {}).setdefault(id(container.value), []).append(
                            (key, found))
                    replaced.add((module, index))
    return Registered(entries, replaced)


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
    elif type(decorator) in (Name, Attr):  # the decorator itself: ``@register_model``
        for found in resolver.eval(decorator, resolver.context(module, definition.scope)):
            if type(found.obj) is Func:
                function = project.function(found.obj.module, found.obj.qualname)
                if function is not None:
                    yield from _stores(resolver, found.obj.module, function, None, None, definition)


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
            outer: Optional[Ctx], definition) -> Iterator[tuple]:
    """``X[key] = <the decorated>`` statements of the decorator function."""
    if not decorator.params:
        return
    param = decorator.params[0].name
    summary = resolver.project.summary(module)
    for index, store in enumerate(summary.stores if summary is not None else ()):
        if (store.scope != decorator.qualname or store.attr != "[]" or store.kind != "assign"
                or type(store.value) is not Name or store.value.id != param):
            continue
        key = _key(resolver, store.key, decorator, param, outer, definition, MAX_KEY_STEPS)
        displays = _containers(resolver, module, store, decorator, factory, outer)
        if displays:
            yield module, index, None if key is _UNKNOWN else key, displays


def _key(resolver: "Resolver", value, decorator: FunctionSummary, param: str, outer: Optional[Ctx], definition,
         steps: int):
    """The key a store is made under for ``definition`` (``_UNKNOWN``: not a literal)."""
    kind = type(value)
    if kind is Const:
        return value.value if isinstance(value.value, (str, int)) else _UNKNOWN
    if kind is Attr and value.name == "__name__" and type(value.base) is Name and value.base.id == param:
        return definition.name
    if kind is Op and value.op == "or" and steps > 0:  # ``name or cls.__name__``
        for operand in value.args:
            found = _key(resolver, operand, decorator, param, outer, definition, steps - 1)
            if found is _UNKNOWN or found:
                return found
        return _UNKNOWN
    if kind is Name and steps > 0:
        local = decorator.bindings.get(value.id)
        if local:
            if len(local) == 1 and local[0].kind == "assign":
                return _key(resolver, local[0].value, decorator, param, outer, definition, steps - 1)
            return _UNKNOWN
        if outer is not None:  # the factory's parameter, as this decorator call binds it
            results = resolver.name(value.id, outer, FAR)
            if len(results) == 1 and type(results[0].obj) is Lit:
                literal = results[0].obj.value
                return literal if literal is None or isinstance(literal, (str, int)) else _UNKNOWN
    return _UNKNOWN


def _containers(resolver: "Resolver", module: str, store: AttrStore, decorator: FunctionSummary,
                factory: Optional[FunctionSummary], outer: Optional[Ctx]) -> List[Container]:
    """The dicts a store puts into: a module's ``STREAMS``, or ``self._obj_map`` of the
    registry object whose method made the decorator."""
    target = store.target
    if (type(target) is Attr and type(target.base) is Name and outer is not None and outer.self_obj is not None
            and factory is not None and factory.params and target.base.id == factory.params[0].name
            and target.base.id not in decorator.bindings):
        results: Results = resolver.attribute(Found(outer.self_obj), target.name, outer)
    else:
        results = resolver.eval(target, resolver.context(module, decorator.qualname))
    return [f.obj for f in results if type(f.obj) is Container and type(f.obj.value) is DictDisplay]
