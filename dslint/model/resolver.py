"""The resolver: what a symbolic value is, followed across functions, classes and files.

``Resolver.eval(value, ctx)`` answers with the abstract objects the value may be
(``model.objects``), each with its evidence trail. It follows names to their bindings,
parameters to the arguments their callers pass (or to their defaults), calls to what the
callee returns, ``self.x`` to what the class's methods store there, imports to the module
that defines the name. Everything is memoised per run; cycles are cut by a recursion
guard and the search is bounded in depth and width. What it cannot follow is ``Top``:
unknown stays unknown and never becomes a finding by itself.
"""

from __future__ import annotations

import os
import re

import builtins
from typing import Dict, List, Optional, Set, Tuple

from ..analysis.summary import CallSite, ClassSummary, FunctionSummary, Param
from ..analysis.values import (
    Attr,
    Call,
    ClassRef,
    Const,
    DictDisplay,
    Element,
    FunctionRef,
    Imported,
    Item,
    Name,
    Op,
    Part,
    SLICE,
    Seq,
    Starred,
    Value,
    FAR,
    dotted,
    last_name,
    mentions,
    root_name,
)
from . import configfiles, engines, externals, mmconfig, registrations
from .argparse_defaults import option_names
from .loaders import library_name
from .libraries import (CLI_RUNNERS, CLI_TRAINER, EXTERNAL_REGISTRIES, LIBRARY_CALL_HOOKS, LIGHTNING_CALLBACKS, LIGHTNING_TRAINERS, LOADED_TABLES, TORCH_MODULES, PYG_DATASET_BASES, PYG_DATASETS, PYG_SUBSET_METHODS, TRIAL_RUNNER_NAMES, TRIAL_RUNNERS,
                        parsed_table)
from .objects import (
    literal_choices,
    TOP,
    made_number,
    UNKNOWN_RESULT,
    Batch,
    Bound,
    Cls,
    Config,
    Container,
    Ctx,
    Ext,
    Found,
    Func,
    Gen,
    Hparams,
    Inst,
    Iterated,
    Kwargs,
    Lit,
    MAX_TRAIL,
    Managed,
    Mod,
    Namespace,
    Obj,
    PositiveInt,
    Results,
    SiteRef,
    Step,
    Top,
    Trail,
    Varargs,
    extend,
    is_top,
    join,
    one,
)
from .project import ITEM_CALLS, ModuleInfo, Project, sites_in_scope

MAX_CALLERS = 12  # call sites followed for a parameter of a function called from many places
MAX_ITEM_STORES = 200  # ``x[k] = v`` statements of a module evaluated to find dicts filled in later
MAX_CANDIDATES = 48  # call sites with the callee's name examined; beyond, the callers are not all known
CALLED_METHODS = frozenset({"__call__", "forward"})  # what calling an instance may run (``called_method``)
SAME_MODULE_METHODS = frozenset({"cuda", "to", "eval", "train", "float", "half", "double", "cpu"})  # ``module.cuda()``: itself
MAX_CALL_DEPTH = 6  # nested call contexts (factory → factory → ...; a runner building a dataset by name that builds its transforms by name)
MAX_EVAL_DEPTH = 70  # nested evaluations
# Values one question of a rule may evaluate (each memoised for the run). The caps above
# bound each step, but not their product: a parameter of a method called from many places,
# on objects of many classes, can reach millions of call contexts (torch's own
# ``torch/_dynamo``: 3.3 million values for one loop). The largest question on the
# data-heavy tree evaluates about 2,500; beyond the budget, what is left stays unknown.
FUEL = 20000
MAX_INHERITANCE = 4  # subclass levels between a base's ``__init__`` and a construction that runs it
CLICK_PARAMETERS = frozenset({"option", "argument"})
MAX_HEIRS_SETTING = 3  # subclasses setting an attribute their base never sets, for it to take their values
BUILTIN_NAMES = frozenset(dir(builtins))
STATIC_DECORATORS = frozenset({"staticmethod"})
CLASS_DECORATORS = frozenset({"classmethod"})
PROPERTY_DECORATORS = frozenset({"property", "cached_property", "functools.cached_property"})
CACHED_PROPERTY_DECORATORS = frozenset({"cached_property", "functools.cached_property"})
ABSTRACT_DECORATORS = frozenset({"abstractmethod", "abc.abstractmethod"})
_new = tuple.__new__  # a NamedTuple from its fields without its Python-level ``__new__`` (the same object)


LAUNCHING_NAMES = frozenset({"spawn", "start_processes", "Process"})  # a plain-name call that may start processes
INSTANTIATE_NAMES = frozenset(name.rsplit(".", 1)[1] for name in configfiles.INSTANTIATE) | {"build"}
REGISTRY_BUILD_KEY = "type"  # the key naming what an installed registry's ``build(cfg)`` makes
POSITIONALS_KEY = "_args_"  # hydra's positional arguments of a target, in its config


def _registry_build(qualname: str) -> bool:
    """``qualname`` is the ``build`` method of an installed registry (``Registry().build``)."""
    return qualname.endswith("().build") and qualname[:-len("().build")] in EXTERNAL_REGISTRIES


def bounded(default):
    """Count a structural step (into a container, an attribute, a call) against the depth
    cap: following evaluated objects recurses without going through ``eval``'s guard."""

    def wrap(method):
        def step(self, *args, **kwargs):
            if self._depth > MAX_EVAL_DEPTH:
                return default
            if not self._depth:
                self._fuel = FUEL  # a question a rule asks: a new budget
            self._depth += 1
            try:
                return method(self, *args, **kwargs)
            finally:
                self._depth -= 1

        step.__name__ = method.__name__
        step.__doc__ = method.__doc__
        return step

    return wrap


def _value_key(obj) -> bool:
    """A key that reads values out of an outside object rather than naming a part of it: a
    number, an array or a list of indices (``f["y"][self.index]``; a slice or a tuple, ``[:]``,
    ``[()]``, ``[:, col]``, is told by its syntax). A string names a part (``h5["images"]``)."""
    if type(obj) is Lit:
        return type(obj.value) in (int, float, bool)
    if made_number(obj):
        return True
    if type(obj) is Inst and type(obj.cls) is Ext:
        return obj.cls.qualname.startswith("numpy.")
    return type(obj) is Container and obj.kind in ("list", "tuple")


def _unpacked(value):
    """The display a name gets from unpacking a tuple display (``xs, ys = [], []``), else None."""
    if type(value) is Part and type(value.base) is Seq and 0 <= value.index < len(value.base.items):
        return value.base.items[value.index]
    return None


def _tune_run(func) -> bool:
    """``tune.run(...)`` or a bare ``run(...)``: the calls named ``run`` that may be Ray Tune's."""
    if type(func) is Name:
        return True
    return type(func) is Attr and last_name(func.base) == "tune"


def _parallel_run(func) -> bool:
    """``parallel.run(...)``, ``idist.Parallel(...).run(...)``: the calls named ``run`` that may be
    ignite's launcher."""
    return type(func) is Attr and (type(func.base) is Call or "parallel" in (last_name(func.base) or "").lower())


def click_name(site) -> Optional[str]:
    """The parameter a ``click.option``/``click.argument`` fills: a declaration without dashes
    names it, else the longest ``--flag`` (dashes to underscores, lower case)."""
    declared = [a.value for a in site.args if type(a) is Const and isinstance(a.value, str)]
    plain = [d for d in declared if not d.startswith("-") and "/" not in d]
    if plain:
        return plain[0] if plain[0].isidentifier() else plain[0].replace("-", "_").lower()
    flags = [d.split("/")[0].strip() for d in declared]
    longest = max((f for f in flags if f.startswith("-")), key=lambda f: len(f.lstrip("-")), default=None)
    return longest.lstrip("-").replace("-", "_").lower() if longest else None


def _rebound(bindings, after: int, row: int) -> bool:
    """Whether one of a name's ``bindings`` is made after row ``after`` and up to row ``row``."""
    return any(after < b.pos // 65536 <= row for b in bindings)


def reaching(bindings, pos: int, blocks) -> tuple:
    """The bindings of a name that may be the ones in effect at ``pos``.

    A binding made before ``pos`` is replaced by a later one made in a block that also holds
    ``pos``: every way to ``pos`` passes the later one, wherever the earlier one was made
    (``for inputs, labels in train:`` after ``for inputs, labels in val:`` binds ``inputs`` to
    the training batch only; ``x = 2`` in an ``if`` body replaces ``x = 1`` above the ``if`` for
    the rest of that body). Bindings in branches, loop bodies and handlers only add
    possibilities after them. A name loaded before any binding (a value carried around a
    loop) keeps them all.
    """
    before = [b for b in bindings if b.pos <= pos]
    if not before or len(before) == 1:
        return tuple(before) or tuple(bindings)
    use_block = innermost_block(blocks, pos // 65536)
    # a binding is replaced when one made after it is in a block holding ``pos``: when the
    # last of those is (each binding's block is tested once, not once per earlier binding)
    last = max((b.pos for b in before if _encloses(blocks, b.block, use_block)), default=-1)
    return tuple([b for b in before if b.pos >= last])


def innermost_block(blocks, row: int) -> int:
    found = -1
    for index, (_, first, last) in enumerate(blocks):
        if first <= row <= last:
            found = index  # blocks are recorded outer first, so the last match is the innermost
    return found


def _encloses(blocks, outer: int, inner: int) -> bool:
    """Whether block ``outer`` is ``inner`` or contains it (-1 is the whole scope)."""
    while True:
        if inner == outer or outer == -1:
            return True
        if inner == -1:
            return False
        inner = blocks[inner][0]


# Objects that are bags of attributes, filled by their keywords, a dict, or stores after
# they are built: config holders (``SimpleNamespace(workers=2)``, ``__C = EasyDict()`` ...
# ``__C.TRAIN.NUM_WORKERS = 0``, yacs' ``_C = CN()``).
ATTRIBUTE_BAGS = frozenset({
    "types.SimpleNamespace", "argparse.Namespace", "easydict.EasyDict", "addict.Dict", "addict.addict.Dict",
    "yacs.config.CfgNode", "ml_collections.ConfigDict", "ml_collections.config_dict.ConfigDict",
    "omegaconf.OmegaConf.create", "omegaconf.DictConfig", "omegaconf.dictconfig.DictConfig",
})
DICT_METHODS = frozenset(dir(dict))
BAG_COPIES = frozenset({"clone", "copy", "deepcopy"})
# Outside bases that give their subclasses no attributes of their own
BARE_BASES = frozenset({"abc.ABC", "builtins.object", "typing.Generic", "typing.Protocol"})
IN_PROGRESS = object()  # a memo entry being computed (a cycle answers unknown)


def memoised(memo: dict, key, compute, *args):
    """``compute(*args)``, once per ``key`` of ``memo``; a cycle back to ``key`` while it is
    being computed answers unknown."""
    if key in memo:
        found = memo[key]
        return UNKNOWN_RESULT if found is IN_PROGRESS else found
    memo[key] = IN_PROGRESS
    try:
        found = memo[key] = compute(*args)
    except BaseException:
        del memo[key]
        raise
    return found
ALL_VARARGS = "*"  # ``vararg_at``'s index for every positional a ``*args`` collects


NEGATED_TRUTH = {"falsy": "true", "truthy": "false"}  # what every value must be for the branch to be dead


def without_unset(results: Results) -> Results:
    """``results`` without the values an ``if x == 0:`` / ``if x is None:`` / ``if not x:``
    test catches: what is left after a body that sets ``x`` when it holds."""
    return tuple(f for f in results if type(f.obj) is not Lit or f.obj.value)


def _tensor_index(keys: Results) -> bool:
    """Whether a subscript's key is a tensor or array (``labels[matched]``): advanced indexing
    copies into a new tensor, which is neither the worker's shared memory nor pinned."""
    return bool(keys) and all(type(f.obj) is Batch or (type(f.obj) is Inst and type(f.obj.cls) is Ext
                                                       and f.obj.cls.qualname.startswith(("torch.", "numpy.")))
                              for f in keys)


SYS_MODULES = Ext("sys.modules")
GLOBALS = Ext("builtins.globals")
ASDICT = Ext("dataclasses.asdict")
REGISTERING = re.compile(r"^[ \t]*@[\w.]*regist", re.MULTILINE | re.IGNORECASE)  # ``@COLLATE_FNS.register_module(...)``
MAX_OVERLAY_STEPS = 8  # names, operators and loop parts followed to the call reading a config overlay


def _parsed_mapping(obj) -> bool:
    """A mapping parsed from a file at run time, or a part of one (``json.load(f)``,
    ``params.get("data_loader", {})`` of it): what the file says is not known here."""
    if not (isinstance(obj, Inst) and isinstance(obj.cls, Ext)):
        return False
    return obj.cls.qualname.partition("(")[0].rstrip("[:]") in LOADED_TABLES


class Resolver:
    def __init__(self, project: Project, libraries=None):
        from .libraries import Libraries

        self.project = project
        self.libraries = libraries or Libraries()
        self.engines = engines.Engines(self)  # loops a library runs over the user's loader
        self._memo: Dict[Ctx, Dict[int, Tuple[Value, Optional[Results]]]] = {}
        self._depth = 0
        self._fuel = FUEL
        self._callers: Dict[Func, Tuple[Tuple[SiteRef, Optional[Obj]], ...]] = {}
        self._callers_cut: Set[Func] = set()
        self._super_sites: Optional[Dict[SiteRef, Inst]] = None
        self._launchers: Dict[SiteRef, Optional[str]] = {}
        self._instantiating: Dict[SiteRef, Optional[str]] = {}
        self._instantiation_sites: Optional[List[SiteRef]] = None
        self._tables_busy = 0  # item-store indexes or registrations being computed (no table calls meanwhile)
        self._instantiated_memo: Dict[SiteRef, Tuple[Obj, ...]] = {}
        self._launched: Optional[Dict[Func, List[SiteRef]]] = None
        self._dispatched: Optional[Dict[str, List[SiteRef]]] = None  # method name → ``getattr(o, p)(...)`` sites
        self._lookups: Optional[List[Tuple[SiteRef, FunctionSummary, str, List[int]]]] = None
        self._dispatcher_scopes: Optional[Set[Tuple[str, str]]] = None
        self._partials: Optional[Dict[Func, List[SiteRef]]] = None
        self._overrides: Dict[tuple, tuple] = {}
        self._item_stores: Dict[str, Dict[int, list]] = {}
        self._store_sources: Dict[str, Dict[int, list]] = {}  # module → display id → (key, value, scope, step)
        self.dict_call_displays: Dict[SiteRef, DictDisplay] = {}  # ``dict(...)`` calls' displays (``externals._dict``)
        self._on_demand: Dict[tuple, Optional[Results]] = {}  # registrations found in skipped modules
        self._stored_memo: Dict[tuple, List[Results]] = {}  # (container, key) → ``_stored``
        self._stored_displays: Dict[str, Dict[int, set]] = {}
        self._constructions: Dict[Cls, tuple] = {}
        self._stores_outside: Optional[Dict[str, list]] = None
        self._stores: Dict[Tuple[str, str], Dict[str, list]] = {}
        self._mro: Dict[Obj, Tuple[Obj, ...]] = {}
        self._iterating: Set[Obj] = set()
        self._duck: Dict[object, Results] = {}
        self._stores_by_attr = None
        self._imports: Dict[Tuple[Imported, str], Results] = {}
        self._decorations: Dict[Tuple[int, int], bool] = {}
        self._splat_memo: Dict[tuple, Optional[Results]] = {}
        self._importing: Set[Tuple[Imported, str]] = set()
        self._varargs: Dict[tuple, object] = {}
        self._contexts: Dict[Tuple[str, str], Ctx] = {}
        self._scope_stores: Dict[str, Dict[str, list]] = {}
        self._star_memo: Dict[Tuple[str, str], bool] = {}
        self._instance_attributes: Dict[tuple, Results] = {}  # asked again for every read of the attribute
        self._methods: Dict[Tuple[Cls, str], Optional[Func]] = {}
        self._registered: Optional["registrations.Registered"] = None
        self._set_on_any: Dict[Tuple[Cls, str], List[Results]] = {}
        self._external: Optional[Dict[SiteRef, Dict[str, List[Results]]]] = None  # installed registries' entries
        self._heirs: Optional[Dict[str, List[Tuple[str, ClassSummary]]]] = None  # base's last name → (module, class)
        self._subclasses: Dict[Cls, List[Cls]] = {}
        self._overrides_of: Dict[Tuple[Func, Cls], Optional[List[Tuple[Cls, Func]]]] = {}
        self._appended: Dict[tuple, object] = {}
        self._display_memo: Dict[Container, object] = {}
        self._display_names_of: Dict[Tuple[str, str], Dict[int, Set[str]]] = {}

    # entry -----------------------------------------------------------------------------
    def context(self, module: str, scope: str = "") -> Ctx:
        """``Ctx(module, scope)``, made once per run: the names of enclosing scopes and module
        globals are evaluated in these contexts tens of thousands of times."""
        key = (module, scope)
        found = self._contexts.get(key)
        if found is None:
            found = self._contexts[key] = Ctx(module, scope)
        return found

    def eval(self, value: Optional[Value], ctx: Ctx) -> Results:
        if value is None:
            return UNKNOWN_RESULT
        memo = self._memo.get(ctx)  # per context, then by the value's id: one hash of the context per call
        if memo is None:
            memo = self._memo[ctx] = {}
        key = id(value)  # the memo keeps ``value`` alive, so its id is never reused
        found = memo.get(key)
        if found is not None and found[0] is value:
            return found[1] if found[1] is not None else UNKNOWN_RESULT  # None: being evaluated (a cycle)
        if self._depth > MAX_EVAL_DEPTH:
            return UNKNOWN_RESULT
        if not self._depth:
            self._fuel = FUEL  # a question a rule asks: a new budget
        elif self._fuel <= 0:
            return UNKNOWN_RESULT  # this question has evaluated enough: the rest stays unknown (not memoised)
        self._fuel -= 1
        memo[key] = (value, None)  # the recursion guard lives in the memo: one lookup less per call
        self._depth += 1
        try:
            result = self._eval(value, ctx)
        except BaseException:
            del memo[key]
            raise
        finally:
            self._depth -= 1
        memo[key] = (value, result)
        return result

    def _eval(self, value: Value, ctx: Ctx) -> Results:
        kind = type(value)
        if kind is Const:
            return one(_new(Lit, (value.value,)))
        if kind is Name:
            return self.name(value.id, ctx, value.pos)
        if kind is Attr:
            return join(self.attribute(f, value.name, ctx) for f in self.eval(value.base, ctx))
        if kind is Call:
            return self.call(_new(SiteRef, (ctx.module, value.index)), ctx)
        if kind is Item:
            return self.item(value, ctx)
        if kind is FunctionRef:
            return one(_new(Func, (ctx.module, value.qualname)))
        if kind is ClassRef:
            return one(_new(Cls, (ctx.module, value.qualname)))
        if kind is Seq:
            return one(Container(value.kind, value, ctx))
        if kind is DictDisplay:
            return one(Container("dict", value, ctx))
        if kind is Op:
            return externals.operator(self, value, ctx)
        if kind is Element:
            return join(self._loop_items(f, ctx) for f in self.eval(value.base, ctx))
        if kind is Part:
            counted = self._enumerated_item(value, ctx) if value.index in (0, 1) else None
            if counted is not None:
                return counted
            return join(self.part(f, value.index) for f in self.eval(value.base, ctx))
        if kind is Starred:
            return self.eval(value.value, ctx)
        if kind is Imported:
            return self.imported(value, ctx.module)
        return UNKNOWN_RESULT

    def _loop_items(self, found: Found, ctx: Ctx) -> Results:
        """What a loop variable takes from ``found``: what iterating gives, and for a list
        built in another function, what that function appended to it too (a transform
        pipeline's ``ops.append(Normalize(...))`` that ``for t in self.transforms:`` calls),
        and, in a dispatcher calling a method by name on each element (``getattr(hook,
        fn_name)(...)``), what the class's other methods append to the attribute holding it (a
        runner's ``register_hook(hook)`` doing ``self._hooks.append(hook)``). Elsewhere the
        appends of every instance of a class would mix (one pipeline's stages in another's).
        A list filled in the loop's own function keeps to its display and what is appended to
        it outside any loop: one filled in a loop may be filled from the loop itself."""
        obj = found.obj
        if type(obj) is Container and (obj.ctx.module, obj.ctx.scope) != (ctx.module, ctx.scope):
            if type(obj.value) is Seq and obj.value.kind == "list" and (ctx.module, ctx.scope) in self._dispatchers():
                return join([self._spread(found), self.appended(obj, attributes=True)])  # (``register_hook``)
            return self._spread(found)
        if type(obj) is Container and type(obj.value) is Seq and obj.value.kind == "list":
            # what the function appends outside any loop (``candidates.append(...)`` before the
            # comprehension over them); appends in a loop may be the loop's own
            return join([self.iterate(found), self.appended(obj, straight=True)])
        return self.iterate(found)

    def _enumerated_item(self, value: Part, ctx: Ctx) -> Optional[Results]:
        """The parts of ``for i, item in enumerate(items)``: the count (an ``int``) and what
        iterating ``items`` gives, or None when the loop is not over ``enumerate(...)``."""
        base = value.base
        if type(base) is not Element or type(base.base) is not Call:
            return None
        site = self.project.call(_new(SiteRef, (ctx.module, base.base.index)))
        if type(site.func) is not Name or site.func.id != "enumerate" or len(site.args) < 1 \
                or type(site.args[0]) is Starred:
            return None
        if not any(type(f.obj) is Ext and f.obj.qualname == "builtins.enumerate" for f in self.eval(site.func, ctx)):
            return None
        if value.index == 0:
            return one(Inst(Ext("builtins.int")))
        return join(self._spread(f) for f in self.eval(site.args[0], ctx))

    # names -----------------------------------------------------------------------------
    def name(self, name: str, ctx: Ctx, pos: int = 0) -> Results:
        """What ``name`` loaded at ``pos`` in ``ctx.scope`` means (only the bindings that reach ``pos``)."""
        summary = self.project.summary(ctx.module)
        if summary is None:
            return UNKNOWN_RESULT
        scope, innermost = ctx.scope, True
        while scope:
            function = summary.functions.get(scope)
            if function is not None:
                if name in function.declared_global:
                    break
                bindings = function.bindings.get(name) if name not in function.declared_nonlocal else None
                if bindings:
                    bindings = reaching(bindings, pos if innermost else FAR, function.blocks)
                    return self.bindings(function, name, bindings, ctx if innermost else self.context(ctx.module, scope))
                scope = function.scope
            else:
                klass = summary.classes.get(scope)
                if klass is None:
                    break
                if innermost and name in klass.bindings:
                    return self.class_bindings(klass, name, ctx)
                scope = klass.scope
            innermost = False
        return self.global_name(ctx.module, name, pos if innermost else FAR)

    def bindings(self, function: FunctionSummary, name: str, bindings, ctx: Ctx) -> Results:
        parts = []
        fills = [b.pos for b in bindings if (name, b.pos) in function.fills] if function.fills else ()
        for binding in bindings:
            if not self.branch_taken(function, binding.block, ctx):
                continue  # ``if transform is None: transform = lambda ...`` when every caller passes one
            if binding.kind == "param":
                part = self.param(function, name, ctx)
            elif binding.kind == "import":
                part = self.imported(binding.value, ctx.module)
            elif binding.kind == "other":
                part = UNKNOWN_RESULT
            else:
                part = self.eval(binding.value, ctx)
            if fills and any(binding.pos < pos for pos in fills):
                part = without_unset(part)  # ``if n == 0: n = ...`` after it replaced its unset values
            parts.append(part)
        return join(parts)

    def branch_taken(self, function: FunctionSummary, block: int, ctx: Ctx) -> bool:
        """False when the conditional ``block`` (or one around it) tests a parameter and no
        caller in ``ctx`` passes a value that takes it: ``if video_loader is None:`` when every
        caller passes a loader, ``if not transform:`` when every one passes a truthy one."""
        tests = function.param_tests
        while tests and block >= 0:
            for tested_block, name, held in tests:
                if tested_block == block and self.fails(function, name, held, ctx):
                    return False
            block = function.blocks[block][0]
        return True

    def fails(self, function: FunctionSummary, name: str, held, ctx: Ctx) -> bool:
        """Whether no caller in ``ctx`` passes a value of ``name`` for which ``held`` holds
        (unknown, or a flag's default a run may override: it may hold)."""
        values = self._tested_values(function, name, ctx)
        if not values or any(isinstance(f.obj, Top) for f in values) or externals.overridable(values):
            return False
        if isinstance(held, tuple):  # ``if phase == "train":`` with a phase every caller gives
            return all(type(f.obj) is Lit and type(f.obj.value) in (str, int, bool) for f in values) and \
                all((f.obj.value in held[1]) != (held[0] == "in") for f in values)
        nones = [type(f.obj) is Lit and f.obj.value is None for f in values]
        if held == "none" and not any(nones) or held == "not none" and all(nones):
            return True
        return held in ("falsy", "truthy") and externals.truthiness(values) == NEGATED_TRUTH[held]

    def returned(self, function: FunctionSummary, ctx: Ctx) -> Tuple[Value, ...]:
        """The returns of ``function`` its callers in ``ctx`` can reach: not one in a branch
        no caller takes, nor one after an ``if <param test>: return`` every caller takes
        (``if split == "train": return A`` / ``return B`` called with "train": A only)."""
        guards = function.return_guards
        if not guards:
            return function.returns
        reached = tuple(value for value, (block, exits) in zip(function.returns, guards)
                        if self.branch_taken(function, block, ctx)
                        and not any(self.fails(function, name, held, ctx) for name, held in exits))
        return reached or function.returns

    def _tested_values(self, function: FunctionSummary, name: str, ctx: Ctx) -> Results:
        """The values of the parameter (or the local bound once) a branch tests."""
        bindings = function.bindings.get(name, ())
        if len(bindings) == 1 and bindings[0].kind != "param":
            return self.eval(bindings[0].value, ctx) if bindings[0].kind == "assign" else UNKNOWN_RESULT
        return self.param(function, name, ctx)

    def class_bindings(self, klass: ClassSummary, name: str, ctx: Ctx) -> Results:
        return join(
            self.imported(b.value, ctx.module) if b.kind == "import" else self.eval(b.value, ctx)
            for b in klass.bindings[name]
        )

    def global_name(self, module: str, name: str, pos: int = FAR) -> Results:
        summary = self.project.summary(module)
        if summary is None:
            return UNKNOWN_RESULT
        bindings = summary.bindings.get(name)
        if bindings:
            ctx = self.context(module)
            bindings = reaching(bindings, pos, summary.blocks)
            parts = []
            for binding in bindings:
                if binding.kind == "import":
                    parts.append(self.imported(binding.value, module))
                elif binding.kind == "other":
                    parts.append(UNKNOWN_RESULT)
                else:
                    parts.append(self.eval(binding.value, ctx))
            return join(parts)
        for star in summary.star_imports:
            for found in self.imported(star, module):
                if isinstance(found.obj, Mod) and self._star_exports(found.obj.module, name):
                    return self.global_name(found.obj.module, name)
        if name in BUILTIN_NAMES:
            return one(Ext(f"builtins.{name}"))
        if name == "__file__":  # the module's path (as linted): locates files beside it (``Path(__file__).parent``)
            info = self.project.modules.get(module)
            return one(Lit(info.path)) if info is not None else UNKNOWN_RESULT
        return UNKNOWN_RESULT

    def _star_exports(self, module: str, name: str, depth: int = 3) -> bool:
        """Whether ``from module import *`` binds ``name``: the module binds it, or passes it on
        from a module it star-imports itself (a package ``__init__`` re-exporting its
        submodules: ``from .collate import *``), ``depth`` levels down. A builtin's name is not
        searched past the module itself (re-exporting ``len`` is not a thing projects do, and the
        search would summarise every module the chain names)."""
        summary = self.project.summary(module)
        if summary is None:
            return False
        if name in summary.bindings:
            return True
        if depth <= 0 or not summary.star_imports or name in BUILTIN_NAMES:
            return False
        key = (module, name)
        found = self._star_memo.get(key)
        if found is None:
            self._star_memo[key] = False  # recursion guard
            found = self._star_memo[key] = any(
                isinstance(item.obj, Mod) and item.obj.module != module
                and self._star_exports(item.obj.module, name, depth - 1)
                for star in summary.star_imports for item in self.imported(star, module))
        return found

    def imported(self, imported: Imported, module: str) -> Results:
        """What an import in ``module`` binds (memoised; an import that leads back to itself
        through star imports or re-exports is unknown there, instead of unrolling the cycle
        once per branch up to the depth cap)."""
        key = (imported, module)
        found = self._imports.get(key)
        if found is not None:
            return found
        if key in self._importing:
            return UNKNOWN_RESULT
        self._importing.add(key)
        try:
            found = self._imported(imported, module)
        finally:
            self._importing.discard(key)
        self._imports[key] = found
        return found

    def _imported(self, imported: Imported, module: str) -> Results:
        info = self.project.modules.get(module)
        if info is None:
            return UNKNOWN_RESULT
        dotted = self.project.absolute(info, imported)
        target, rest = self.project.split_import(info, dotted)
        if target is None:
            return one(Ext(dotted)) if dotted else UNKNOWN_RESULT
        if not rest and "." in dotted:
            member = self._package_member(info, dotted, target)
            if member is not None:
                return member
        results = one(Mod(target.key))
        for member in rest:
            results = join(self.attribute(f, member, self.context(module)) for f in results)
        return results

    def _package_member(self, info, dotted: str, target) -> Optional[Results]:
        """``from detkit import launch`` where ``detkit/__init__.py`` binds ``launch`` itself
        (``from .launch import launch``): Python takes the package's attribute, which that
        binding replaced, not the submodule of the same name."""
        parent_dotted, _, name = dotted.rpartition(".")
        parent, rest = self.project.split_import(info, parent_dotted)
        if parent is None or rest or parent.key == target.key:
            return None
        summary = self.project.summary(parent.key)
        if summary is None or name not in summary.bindings:
            return None
        found = self.global_name(parent.key, name)
        return found if found != UNKNOWN_RESULT else None

    # parameters ------------------------------------------------------------------------
    def param(self, function: FunctionSummary, name: str, ctx: Ctx) -> Results:
        for position, param in enumerate(function.params):
            if param.name == name:
                break
        else:
            return UNKNOWN_RESULT
        owner = self._method_owner(ctx.module, function)
        if owner is not None and position == 0 and param.kind in ("pos", "posonly") and not self._is_static(function):
            if ctx.self_obj is not None:
                return one(ctx.self_obj)
            if self._is_classmethod(function):
                return one(owner)
            return one(Inst(owner))
        if function.decorators:
            option = self._click_option(function, param, ctx.module)
            if option is not None:  # click passes it, whatever the call in the code passes
                return option
        if ctx.call is None or ctx.scope != function.qualname:
            return self.free_param(function, param, ctx)
        return self.bound_param(function, param, position, ctx)

    def _click_option(self, function: FunctionSummary, param: Param, module: str) -> Optional[Results]:
        """``@click.option("--num-workers", default=8)`` on the function: the parameter is the
        option's default unless the command line gives one (like an ``argparse`` default);
        unknown when the option has a default the model cannot read. None: no such option."""
        summary = self.project.summary(module)
        for decorator in function.decorators:
            if type(decorator) is not Call:
                continue
            site = summary.calls[decorator.index]
            if last_name(site.func) not in CLICK_PARAMETERS or click_name(site) != param.name:
                continue
            if not any(isinstance(f.obj, Ext) and f.obj.qualname.replace("decorators.", "") in
                       ("click.option", "click.argument") for f in self.eval(site.func, self.context(module, function.scope))):
                continue
            given = dict(zip((k for k, _ in site.keywords), site.keyword_spans))
            values = dict(site.keywords)
            if "default" in values:
                found = self.eval(values["default"], self.context(module, function.scope))
                span = given["default"]
            else:
                flag = values.get("is_flag")
                found = one(Lit(False)) if type(flag) is Const and flag.value is True else one(Lit(None))
                span = site.span
            if not all(isinstance(f.obj, Lit) for f in found):
                return UNKNOWN_RESULT
            return extend(found, Step(module, span, externals.COMMAND_LINE_DEFAULT))
        return None

    def _method_owner(self, module: str, function: FunctionSummary) -> Optional[Cls]:
        if function.scope_kind != "class":
            return None
        return Cls(module, function.scope)

    def _decorated(self, function: FunctionSummary, names) -> bool:
        if not function.decorators:
            return False
        key = (id(function), id(names))  # summaries and the name sets live as long as the run
        found = self._decorations.get(key)
        if found is None:
            found = self._decorations[key] = any((dotted(d) or "") in names or last_name(d) in names
                                                 for d in function.decorators)
        return found

    def _is_static(self, function: FunctionSummary) -> bool:
        return self._decorated(function, STATIC_DECORATORS)

    def _is_classmethod(self, function: FunctionSummary) -> bool:
        return self._decorated(function, CLASS_DECORATORS)

    def is_property(self, function: FunctionSummary) -> bool:
        return self._decorated(function, PROPERTY_DECORATORS)

    def is_cached_property(self, function: FunctionSummary) -> bool:
        """``functools.cached_property``: computed on the first read, then kept in the instance."""
        return self._decorated(function, CACHED_PROPERTY_DECORATORS)

    def bound_param(self, function: FunctionSummary, param: Param, position: int, ctx: Ctx) -> Results:
        if param.kind == "kwarg":
            return one(Kwargs(Func(ctx.module, function.qualname), ctx))
        if param.kind == "vararg":
            return one(Varargs(Func(ctx.module, function.qualname), ctx))
        site = self.project.call(ctx.call)
        skip = self._receiver_skip(function, ctx)
        value = self.argument(site, ctx.call, ctx.caller, param, position - skip, function, skip, ctx.shift)
        if value is not None:
            return value
        config = self._hydra_config(function, param, ctx.module) if param.default is None else None
        if config is not None:  # ``main()``: hydra passes the config
            return config
        return self.default(function, param, ctx.module)

    def _hydra_config(self, function: FunctionSummary, param: Param, module: str) -> Optional[Results]:
        """The config hydra passes as the first parameter of a ``@hydra.main`` function, or None."""
        if not function.decorators or param is not function.params[0]:
            return None
        return configfiles.hydra_config(self, module, function)

    def _receiver_skip(self, function: FunctionSummary, ctx: Ctx) -> int:
        """1 when the call binding ``function`` in ``ctx`` passes its first parameter as the
        receiver (``obj.method(...)``, a classmethod), so the call's positionals start at the
        second; else 0."""
        return 1 if (self._method_owner(ctx.module, function) is not None and not self._is_static(function)
                     and (ctx.self_obj is not None or self._is_classmethod(function))) else 0

    def default(self, function: FunctionSummary, param: Param, module: str) -> Results:
        if param.kind == "kwarg" or param.kind == "vararg":
            return UNKNOWN_RESULT
        if param.default is None:
            return UNKNOWN_RESULT
        step = Step(module, param.default_span or param.span, f"default of `{param.name}`")
        return extend(self.eval(param.default, self.context(module, function.scope)), step)

    def argument(self, site: CallSite, ref: SiteRef, caller: Optional[Ctx], param: Param, position: int,
                 function: FunctionSummary, skip: int, shift: int = 0) -> Optional[Results]:
        """What ``site`` passes for ``param`` (None: nothing, so the default applies)."""
        called = last_name(site.func)
        if called in INSTANTIATE_NAMES and self.instantiates(ref) is not None:
            return self.instantiated_argument(site, ref, caller, param, position)
        launcher = self.launcher(ref) if called in LAUNCHING_NAMES or called in TRIAL_RUNNER_NAMES else None
        if launcher is not None:
            if launcher in TRIAL_RUNNERS:
                return self._trial_config(site, ref, caller, param, position, launcher, function)
            return self._launched_argument(site, ref, caller, param, position, launcher)
        caller = caller or self.context(ref.module, site.scope)
        args = site.args[shift:]
        if param.kind in ("pos", "posonly") and position >= 0:
            for index, arg in enumerate(args):
                if isinstance(arg, Starred):
                    found = self.starred_at(arg.value, caller, position - index)
                    if found is None:
                        break  # the ``*args`` holds fewer: given by keyword, or the default
                    return found
                if index == position:
                    step = Step(ref.module, site.arg_spans[index + shift], f"passed as `{param.name}`")
                    return extend(self.eval(arg, caller), step)
        if param.kind == "vararg":
            return UNKNOWN_RESULT
        if param.kind != "posonly":
            for (key, value), span in zip(site.keywords, site.keyword_spans):
                if key == param.name:
                    step = Step(ref.module, span, f"passed as `{param.name}`")
                    return extend(self.eval(value, caller), step)
            for key, value in site.keywords:
                if key is None:
                    found = self.splat_lookup(value, caller, param.name)
                    if found is not None:
                        return found
        return None

    def instantiates(self, ref: SiteRef) -> Optional[str]:
        """The key naming the target when the call at ``ref`` is hydra's ``instantiate`` (or
        torchtune's), else None (memoised per call)."""
        found = self._instantiating.get(ref, self)
        if found is self:
            site = self.project.call(ref)
            found = self._instantiating[ref] = next(
                (configfiles.INSTANTIATE.get(f.obj.qualname) or REGISTRY_BUILD_KEY
                 for f in self.eval(site.func, self.context(ref.module, site.scope))
                 if type(f.obj) is Ext and (f.obj.qualname in configfiles.INSTANTIATE or _registry_build(f.obj.qualname))),
                None)
        return found

    def _instantiations(self) -> List[SiteRef]:
        """The calls of hydra's ``instantiate`` in the project (found once per run)."""
        if self._instantiation_sites is None:
            self._instantiation_sites = [ref for name in sorted(INSTANTIATE_NAMES)
                                         for ref in self.project.calls_named(name) if self.instantiates(ref) is not None]
        return self._instantiation_sites

    def _instantiated_objects(self, ref: SiteRef) -> Tuple[Obj, ...]:
        """The project classes and functions the ``_target_`` of the config hydra's
        ``instantiate`` is given at ``ref`` may name (memoised per call)."""
        found = self._instantiated_memo.get(ref)
        if found is None:
            found = self._instantiated_memo[ref] = ()  # recursion guard
            ctx = self.context(ref.module, self.project.call(ref).scope)
            out: List[Obj] = []
            for config in self._configs(ref, ctx):
                named = self._target_names(ref, ctx, config)
                out.extend(f.obj for f in self._targets(ref, ctx, named[0] if named else ())
                           if type(f.obj) in (Cls, Func) and f.obj not in out)
            found = self._instantiated_memo[ref] = tuple(out)
        return found

    def _configs(self, ref: SiteRef, ctx: Ctx) -> Results:
        """The mappings a call building an object from a config is given (its first argument)."""
        keyword = "cfg" if self.instantiates(ref) == REGISTRY_BUILD_KEY else "config"
        return self.keyword_at(ref, ctx, keyword, 0) or UNKNOWN_RESULT

    def _target_names(self, ref: SiteRef, ctx: Ctx, config: Found) -> Optional[Tuple[tuple, Trail]]:
        """(the names ``config``'s target key may hold, the trail to them), or None when the
        config asks for a ``functools.partial`` or its target is not a written string."""
        key = self.instantiates(ref)
        if key is None or self.partially_instantiated(config, ctx):
            return None
        target = self.mapping_entry(config, key, ctx)
        names = literal_choices(target, str) if target else None
        return (names, (config.trail + target[0].trail)[-MAX_TRAIL:]) if names is not None else None

    def partially_instantiated(self, config: Found, ctx: Ctx) -> bool:
        """Whether the config's ``_partial_`` may be true: hydra then hands back a
        ``functools.partial`` of the target, called later with other arguments."""
        given = self.mapping_entry(config, configfiles.PARTIAL, ctx)
        return given is not None and any(f.obj != Lit(False) for f in given)

    def _table_calls(self, func: Func, owner: Optional[Cls]):
        """(call, instance or None) of the calls of what a table holds (``TASKS[name](cfg)``,
        ``DATASETS["coco"](root)``) that run ``func``. Up to ``MAX_CANDIDATES`` such calls are
        examined; beyond, none (they are not counted against the callers being known)."""
        refs = self.project.calls_named(ITEM_CALLS)
        if len(refs) > MAX_CANDIDATES or self._tables_busy:
            return []  # many, or asked while the tables themselves are read: their lookups would be cut short
        out = []
        for ref in refs:
            site = self.project.call(ref)
            ctx = self.context(ref.module, site.scope)
            held = [f.obj for table in self.eval(site.func.base, ctx) if type(table.obj) is Container
                    and table.obj.kind == "dict" for f in self.container_values(table.obj)]
            # the table's entries, whatever the key: evaluating the key (a config's ``type``) would
            # ask for the very constructions being found
            made = next((cls for cls in held if isinstance(cls, Cls) and self._runs_init(cls, owner, func)), None)
            if made is not None:
                out.append((ref, Inst(made, ref, ctx)))
        return out[:MAX_CALLERS]

    def _instantiating_calls(self, func: Func, owner: Optional[Cls]):
        """(call, instance or None) of the calls of hydra's ``instantiate`` that run ``func``:
        a function its config's ``_target_`` names, or the ``__init__`` of such a class."""
        out = []
        for ref in self._instantiations():
            for obj in self._instantiated_objects(ref):
                if obj == func:
                    out.append((ref, None))
                elif type(obj) is Cls and self._runs_init(obj, owner, func):
                    out.append((ref, Inst(obj, ref, self.context(ref.module, self.project.call(ref).scope))))
        return out[:MAX_CALLERS]

    def _runs_init(self, cls: Cls, owner: Optional[Cls], init: Func) -> bool:
        """Building ``cls`` runs ``init``, the ``__init__`` of ``owner`` (its own, or inherited)."""
        return owner is not None and (cls == owner or (owner in self.mro(cls) and self.method(cls, "__init__") == init))

    def instantiate_call(self, ref: SiteRef, ctx: Ctx) -> Results:
        """What a call building an object from a config makes: hydra's ``instantiate(cfg.data,
        ...)`` (the ``_target_``, torchtune's ``_component_``), or an installed registry's
        ``build(cfg)`` (the class registered under ``cfg["type"]``), called with the mapping's
        entries (``instantiated_argument``). A mapping not known, or a target that is not a
        written string, is unknown."""
        parts = []
        for config in self._configs(ref, ctx):
            named = self._target_names(ref, ctx, config)
            if named is None:
                parts.append(UNKNOWN_RESULT)
                continue
            names, trail = named
            parts.append(tuple(Found(f.obj, (trail + f.trail)[:MAX_TRAIL]) for f in self.instantiated(names, ref, ctx)))
        return join(parts)

    def _targets(self, ref: SiteRef, ctx: Ctx, names) -> Results:
        """What the target names of a config built at ``ref`` are: dotted paths (hydra), or names
        an installed registry holds (``REGISTRY.build(cfg)``)."""
        if self.instantiates(ref) != REGISTRY_BUILD_KEY:
            return join(self.imported(Imported(name), ref.module) for name in names)
        site = self.project.call(ref)
        return join(self.registered_under(f.obj, tuple(Found(Lit(n)) for n in names))
                    for f in self.eval(site.func.base, ctx) if isinstance(f.obj, Inst)) or UNKNOWN_RESULT

    def instantiated(self, names, ref: SiteRef, ctx: Ctx) -> Results:
        """What a config built at ``ref`` makes of a target named by one of ``names``: an
        instance of a project class built there, or what a project function returns, their
        parameters bound by ``instantiated_argument``. An outside callable, or a loader class
        (whose keywords are read from the call site), is unknown."""
        parts = []
        for found in self._targets(ref, ctx, names):
            obj = found.obj
            if type(obj) is Cls and not self.is_loader(Inst(obj)):
                parts.append(one(Inst(obj, ref, ctx), found.trail))
            elif type(obj) is Func:
                parts.append(self.run_function(obj, ref, ctx, None))
            else:
                parts.append(UNKNOWN_RESULT)
        return join(parts)

    def instantiated_argument(self, site: CallSite, ref: SiteRef, caller: Optional[Ctx], param: Param,
                              position: int) -> Optional[Results]:
        """What ``instantiate(config, *args, **kwargs)`` passes for ``param`` of its target: the
        call's positionals after the config, its keywords, then the config's entry of that name
        (None: none of them gives it, so the default applies)."""
        caller = caller or self.context(ref.module, site.scope)
        if param.kind in ("pos", "posonly") and position >= 0:
            given = site.args[1:position + 2]
            if any(type(arg) is Starred for arg in given):
                return UNKNOWN_RESULT
            if len(given) == position + 1:
                step = Step(ref.module, site.arg_spans[position + 1], f"passed as `{param.name}`")
                return extend(self.eval(given[-1], caller), step)
        if param.kind == "vararg":
            return UNKNOWN_RESULT
        if param.kind == "posonly":
            return None
        built = self.instantiates(ref) == REGISTRY_BUILD_KEY  # ``build(cfg, default_args=...)``
        for (key, value), span in zip(site.keywords, site.keyword_spans):
            if built:
                break
            if key == param.name:
                return extend(self.eval(value, caller), Step(ref.module, span, f"passed as `{param.name}`"))
            if key is None:
                found = self.splat_lookup(value, caller, param.name)
                if found is not None:
                    return found
        if not site.args or type(site.args[0]) is Starred:
            return UNKNOWN_RESULT
        if built:
            found = self.splat_lookup(site.args[0], caller, param.name)
            defaults = dict((k, v) for k, v in site.keywords if k).get("default_args")
            if found is None and defaults is not None:  # what the registry fills in when the config does not
                found = self.splat_lookup(defaults, caller, param.name)
            return extend(found, Step(ref.module, site.span, f"`{param.name}` of the config built here")) \
                if found is not None else None
        if param.kind == "pos" and self.splat_lookup(site.args[0], caller, POSITIONALS_KEY) is not None:
            return UNKNOWN_RESULT  # ``_args_: [...]``: which positional is which is not followed
        found = self.splat_lookup(site.args[0], caller, param.name)
        if found is None:
            return None
        if any(self.mapping_entry(f, self.instantiates(ref), caller) is not None for f in found
               if type(f.obj) is Config or (type(f.obj) is Container and f.obj.kind == "dict")):
            return UNKNOWN_RESULT  # a nested ``_target_``: instantiated first, not followed
        return extend(found, Step(ref.module, site.span, f"`{param.name}` of the config hydra instantiates"))

    @bounded(None)
    def splat_lookup(self, mapping: Value, ctx: Ctx, key: str) -> Optional[Results]:
        """``key`` in a ``**mapping`` argument, when the mapping can be followed (None: not
        given, also when popped from it first)."""
        maybe: Optional[Results] = None
        if type(mapping) is Name:
            edited = self._splat_edits(mapping, ctx, key)
            if edited is not None:
                return edited or None  # ``()``: the key was removed before the splat
            maybe = self._stored_on_some_ways(mapping, ctx, key)
        held = self._splat_held(mapping, ctx, key)
        if maybe is not None:  # ``if distributed: kw["sampler"] = DistributedSampler(ds)``: given on those runs
            return join([held, maybe]) if held is not None else maybe
        return held

    def _splat_held(self, mapping: Value, ctx: Ctx, key: str) -> Optional[Results]:
        """``key`` in what a ``**mapping`` holds where it is made (None: not there)."""
        parts = [item for item in (self.mapping_entry(found, key, ctx) for found in self.eval(mapping, ctx))
                 if item is not None]
        return join(parts) if parts else None

    def mapping_entry(self, found: Found, key: str, ctx: Ctx) -> Optional[Results]:
        """``key`` in the mapping ``found`` is, as splatting it would give it (None: the mapping
        is known not to hold it; unknown: the mapping is not known)."""
        obj = found.obj
        if isinstance(obj, Container) and obj.kind == "dict":
            return self.dict_item(obj, key)
        if isinstance(obj, Kwargs):
            return self.kwargs_item(obj, key)
        if isinstance(obj, Inst) and isinstance(obj.cls, Ext) and obj.cls.qualname == "builtins.dict":
            return self.keyword_at(obj.site, obj.ctx, key)
        if isinstance(obj, Config):  # ``**cfg.loader``: the file's entry, or none given
            return configfiles.splatted(self, found, key)
        if isinstance(obj, Inst) and isinstance(obj.cls, Cls) and self.is_bag_class(obj.cls):
            return self.attribute(found, key, ctx)  # ``**c.data_loader_kwargs`` of a project ``EasyDict``
        if isinstance(obj, Inst) and isinstance(obj.cls, Ext) and obj.cls.qualname == "builtins.vars" \
                and obj.site is not None:  # ``**vars(parser.parse_args())``: the namespace's attributes
            return None if self._lacks_option(obj, key) else self._vars_item(obj, one(Lit(key)))
        if isinstance(obj, Inst) and obj.cls == ASDICT and obj.site is not None:  # ``**asdict(cfg)``: its fields
            return self.asdict_item(obj, key)
        if isinstance(obj, Container) and obj.kind == "comp":
            copied = self._copied_mapping(obj)
            item = self.splat_lookup(copied, obj.ctx, key) if copied is not None else UNKNOWN_RESULT
            if item is None:
                return None
            # an option it may not have, or left None: the entry under it, unless given
            unset = copied is not None and (item == UNKNOWN_RESULT or all(f.obj == Lit(None) for f in item))
            return configfiles.UNKNOWN_RESULT if unset else item
        if (isinstance(obj, Top) and obj.why == "config") or _parsed_mapping(obj):
            return configfiles.UNKNOWN_RESULT  # a configuration file not read: it may set the key
        return UNKNOWN_RESULT

    def _copied_mapping(self, comp: Container) -> Optional[Value]:
        """``M`` of a dict comprehension ``{k: v for k, v in M.items() if ...}`` (the command
        line's options that were given, ``vars(args)``, laid over a defaults dict): its entries
        are ``M``'s, some perhaps left out."""
        items = comp.value.items if isinstance(comp.value, Seq) else ()
        if len(items) != 1 or type(items[0]) is not Name:
            return None
        function = self.project.function(comp.ctx.module, comp.ctx.scope)
        bindings = function.bindings.get(items[0].id, ()) if function is not None else ()
        if len(bindings) != 1 or bindings[0].kind != "loop":
            return None
        value = bindings[0].value
        if not (type(value) is Part and value.index == 1 and type(value.base) is Element
                and type(value.base.base) is Call):
            return None
        site = self.project.call(SiteRef(comp.ctx.module, value.base.base.index))
        if type(site.func) is Attr and site.func.name == "items" and not site.args and not site.keywords:
            return site.func.base
        return None

    def asdict_item(self, mapping: Inst, key: str) -> Optional[Results]:
        """``asdict(cfg)[key]``: the field ``key`` of the dataclass object (its subclasses'
        overrides included); None when no class of it has such a field (not in the dict)."""
        parts = []
        for found in self.keyword_at(mapping.site, mapping.ctx, "obj", 0) or UNKNOWN_RESULT:
            obj = found.obj
            if not (isinstance(obj, Inst) and isinstance(obj.cls, Cls)):
                return UNKNOWN_RESULT
            if any(isinstance(item, Cls) and any(field.name == key for field in self._fields_of(item))
                   for item in self.mro(obj.cls)):
                parts.append(self.attribute(found, key, mapping.ctx))
        return join(parts) if parts else None

    def _fields_of(self, cls: Cls):
        klass = self.project.klass(cls.module, cls.qualname)
        return klass.fields if klass is not None else ()

    def _lacks_option(self, mapping: Inst, key: str) -> bool:
        """``vars(namespace)`` has no ``key``: the namespace comes from parsers whose every
        option the code shows (``argparse_defaults.option_names``), none named so."""
        spaces = [f.obj for f in self.keyword_at(mapping.site, mapping.ctx, "object", 0) or ()]
        if not spaces or not all(isinstance(space, Namespace) for space in spaces):
            return False
        for space in spaces:
            names = option_names(self, space.parser)
            if names is None or key in names:
                return False
        return True

    def _vars_item(self, mapping: Inst, keys: Results) -> Results:
        """``vars(namespace)[key]``: the namespace's attribute of that name (unknown for any
        other key, or the ``vars`` of anything but a parsed namespace)."""
        if len(keys) != 1 or type(keys[0].obj) is not Lit or not isinstance(keys[0].obj.value, str):
            return UNKNOWN_RESULT
        spaces = [f for f in self.keyword_at(mapping.site, mapping.ctx, "object", 0) or () if isinstance(f.obj, Namespace)]
        return join([externals.namespace_attribute(self, f.obj, keys[0].obj.value) for f in spaces]) \
            if spaces else UNKNOWN_RESULT

    def _splat_edits(self, mapping: Name, ctx: Ctx, key: str) -> Optional[Results]:
        """What edits of ``mapping`` made before its splat decide for ``key``: ``()`` when they
        remove it, its value when they set it, None when they decide nothing. Memoised per
        splat: every keyword a loader query asks about reads the same statements."""
        memo_key = (ctx, mapping.id, mapping.pos, key)  # a value set there is read in this context
        if memo_key in self._splat_memo:
            return self._splat_memo[memo_key]
        self._splat_memo[memo_key] = None  # recursion guard
        scope = self._mapping_scope(mapping, ctx)
        result = None
        if scope is not None:
            result = () if self._popped_before(mapping, ctx, key, scope) \
                else self._item_stored_before(mapping, ctx, key, scope)
        self._splat_memo[memo_key] = result
        return result

    def _stored_on_some_ways(self, mapping: Name, ctx: Ctx, key: str) -> Optional[Results]:
        """``kw[key] = value`` made only on some ways to the ``**kw`` (in a branch), the only
        edit of the mapping in its block: the runs taking that branch pass it. A branch that
        also edits other keys (``if shuffle: kw["sampler"] = s; del kw["shuffle"]``) ties them
        together, and decides nothing here. Memoised per splat, as ``_splat_edits``."""
        memo_key = (ctx, mapping.id, mapping.pos, key, "some")
        if memo_key in self._splat_memo:
            return self._splat_memo[memo_key]
        self._splat_memo[memo_key] = None
        scope = self._mapping_scope(mapping, ctx)
        if scope is None:
            return None
        summary, blocks, bindings, row = scope
        stores = [store for store in self._item_edits(mapping, ctx, key, "assign", scope)
                  if not _rebound(bindings, store.span.row, row)]
        function = summary.functions.get(ctx.scope) if ctx.scope else None
        if not stores or any(self._edited_beside(mapping, ctx, store, summary, blocks) for store in stores) or \
                (function is not None and any(mentions(test, (mapping.id,), summary.calls, callees=True) for test, _ in function.tests)):
            return None  # ``if "batch_sampler" not in kwargs: kwargs["sampler"] = ...``: the branch reads the mapping
        result = join(extend(self.eval(store.value, ctx),
                             Step(ctx.module, store.span, f"set as `{mapping.id}[{key!r}]` on some runs"))
                      for store in stores)
        self._splat_memo[memo_key] = result
        return result

    @staticmethod
    def _edited_beside(mapping: Name, ctx: Ctx, store, summary, blocks) -> bool:
        """Another edit of ``mapping`` (a store of another key, a ``del``, a ``pop``) in the
        block of ``store``."""
        block = innermost_block(blocks, store.span.row)
        for other in summary.stores:
            if other is not store and other.scope == ctx.scope and other.attr == "[]" and \
                    type(other.target) is Name and other.target.id == mapping.id and \
                    innermost_block(blocks, other.span.row) == block:
                return True
        for site in summary.calls:
            if site.scope == ctx.scope and type(site.func) is Attr and site.func.name in ("pop", "update", "setdefault") \
                    and type(site.func.base) is Name and site.func.base.id == mapping.id \
                    and innermost_block(blocks, site.span.row) == block:
                return True
        return False

    def _popped_before(self, mapping: Name, ctx: Ctx, key: str, scope) -> bool:
        """``params.pop("shuffle", None)`` (or ``del params["shuffle"]``) before ``**params``, on
        every way to it (in a block holding it), also as ``for k in ("shuffle", "sampler"):
        params.pop(k, None)``, with ``params`` not bound again in between: the key is gone.
        ``scope``: the splat's ``_mapping_scope``."""
        summary, blocks, bindings, row = scope
        if any(self._on_every_way(blocks, store.span.row, row) and not _rebound(bindings, store.span.row, row)
               for store in self._item_edits(mapping, ctx, key, "del", scope)):
            return True
        for index in sites_in_scope(self.project, ctx.module, ctx.scope):
            site = summary.calls[index]
            func = site.func
            if type(func) is not Attr or func.name != "pop" or type(func.base) is not Name \
                    or func.base.id != mapping.id or not site.args or site.span.row >= row:
                continue
            keys, at = self._popped_keys(site, summary, ctx)
            if key in keys and self._on_every_way(blocks, at, row, loop_header=at != site.span.row) \
                    and not _rebound(bindings, at, row):
                return True
        return False

    def _item_stored_before(self, mapping: Name, ctx: Ctx, key: str, scope) -> Optional[Results]:
        """``params["persistent_workers"] = n > 0`` before ``**params``, on every way to it (in a
        block holding it), with ``params`` not bound again in between: the value of the last one.
        A store made only on some ways (``if shuffle: kw["sampler"] = ...; del kw["shuffle"]``)
        decides nothing: what the mapping held stands."""
        _, blocks, bindings, row = scope
        edits = list(self._item_edits(mapping, ctx, key, "assign", scope))
        stores = [store for store in edits if not _rebound(bindings, store.span.row, row)
                  and self._on_every_way(blocks, store.span.row, row)]
        if not stores:
            stores = self._stored_after_each_binding(mapping, ctx, edits, scope)
        if not stores:
            return None
        return join(extend(self.eval(last.value, ctx), Step(ctx.module, last.span, f"set as `{mapping.id}[{key!r}]`"))
                    for last in stores)

    def _stored_after_each_binding(self, mapping: Name, ctx: Ctx, edits, scope) -> list:
        """The last store after each binding of ``mapping`` a run can take to the splat, when
        every such binding has one on every way on from it (``if phase == "train": kw =
        dict(...); kw["persistent_workers"] = ...`` with a phase every caller gives): empty when
        one of them has none (what the mapping held stands)."""
        summary, blocks, bindings, row = scope
        function = summary.functions.get(ctx.scope) if ctx.scope else None
        if not edits or function is None:
            return []
        out = []
        for binding in reaching(bindings, mapping.pos, blocks):
            if not self.branch_taken(function, binding.block, ctx):
                continue
            at = binding.pos // 65536
            after = [store for store in edits if store.span.row > at and not _rebound(bindings, at, store.span.row)
                     and _encloses(blocks, innermost_block(blocks, store.span.row), innermost_block(blocks, at))]
            if not after:
                return []
            out.append(after[-1])
        return out

    @staticmethod
    def _item_edits(mapping: Name, ctx: Ctx, key: str, kind: str, scope):
        """The ``mapping[key] = ...`` (kind "assign") or ``del mapping[key]`` ("del") statements
        of ``ctx.scope`` made before the splat (the name may be bound again in between)."""
        summary, _, _, row = scope
        for store in summary.stores:
            if store.scope == ctx.scope and store.attr == "[]" and store.kind == kind and type(store.target) is Name \
                    and store.target.id == mapping.id and type(store.key) is Const and store.key.value == key \
                    and store.span.row < row:
                yield store

    @staticmethod
    def _on_every_way(blocks, at: int, row: int, loop_header: bool = False) -> bool:
        """Whether what happens at row ``at`` happens on every way to row ``row``: its block holds
        ``row`` (for a ``for`` header, the block around the loop: its body runs for each key)."""
        block = innermost_block(blocks, at)
        if loop_header and block >= 0 and blocks[block][1] == at:
            block = blocks[block][0]
        return _encloses(blocks, block, innermost_block(blocks, row))

    def _mapping_scope(self, mapping: Name, ctx: Ctx):
        """(summary, blocks, bindings of the name, row of the splat) of a ``**name`` in ``ctx``."""
        summary = self.project.summary(ctx.module)
        function = summary.functions.get(ctx.scope) if summary is not None and ctx.scope else None
        if summary is None or (ctx.scope and function is None):
            return None
        blocks = function.blocks if function is not None else summary.blocks
        bindings = (function.bindings if function is not None else summary.bindings).get(mapping.id, ())
        return summary, blocks, bindings, mapping.pos // 65536

    def _popped_keys(self, site, summary, ctx: Ctx) -> Tuple[Tuple[object, ...], int]:
        """The keys a ``.pop(key)`` call removes, and the row that decides whether it runs: its
        own, or its loop's header when the key is the variable of a ``for`` over literal keys."""
        key = site.args[0]
        if type(key) is Const:
            return (key.value,), site.span.row
        loop = summary.loops[site.loop] if type(key) is Name and site.loop >= 0 else None
        if loop is None or loop.kind != "for" or loop.target != key.id or loop.iter is None:
            return (), site.span.row
        values = []
        for iterable in self.eval(loop.iter, self.context(ctx.module, loop.scope)):
            for found in self.iterate(iterable):
                if type(found.obj) is not Lit:
                    return (), site.span.row
                values.append(found.obj.value)
        return tuple(values), loop.span.row

    @bounded(None)
    def kwargs_item(self, kwargs: Kwargs, key: str) -> Optional[Results]:
        ctx = kwargs.ctx
        if ctx.call is None:
            return UNKNOWN_RESULT
        site = self.project.call(ctx.call)
        function = self.project.function(kwargs.func.module, kwargs.func.qualname)
        # a keyword naming a parameter is bound to it (``*args``/``**kwargs`` cannot be named)
        named = {p.name for p in function.params if p.kind not in ("vararg", "kwarg")} if function is not None else set()
        if key in named:
            return None
        for (name, value), span in zip(site.keywords, site.keyword_spans):
            if name == key:
                return extend(self.eval(value, ctx.caller or self.context(ctx.call.module, site.scope)),
                              Step(ctx.call.module, span, f"passed as `{key}`"))
        for name, value in site.keywords:
            if name is None:
                found = self.splat_lookup(value, ctx.caller or self.context(ctx.call.module, site.scope), key)
                if found is not None:
                    return found
        default = self.kwargs_default(kwargs, key)
        if default is not None:
            value, ref, span = default
            return extend(self.eval(value, ctx), Step(ref.module, span, f"`setdefault` of `{key}`"))
        return None

    def kwargs_default(self, kwargs: Kwargs, key: str):
        """(value, call, span) of ``kw.setdefault("key", value)`` on the ``**kw`` parameter in its
        own function (``kwargs.setdefault("num_workers", 8)`` before ``super().__init__(**kwargs)``)."""
        function = self.project.function(kwargs.func.module, kwargs.func.qualname)
        name = next((p.name for p in function.params if p.kind == "kwarg"), None) if function is not None else None
        if name is None:
            return None
        summary = self.project.summary(kwargs.func.module)
        for index in sites_in_scope(self.project, kwargs.func.module, kwargs.func.qualname):
            site = summary.calls[index]
            func = site.func
            if (type(func) is Attr and func.name == "setdefault" and type(func.base) is Name and func.base.id == name
                    and len(site.args) >= 2 and type(site.args[0]) is Const and site.args[0].value == key):
                return site.args[1], SiteRef(kwargs.func.module, index), site.arg_spans[1]
        return None

    @bounded(None)
    def keyword_at(self, ref: Optional[SiteRef], ctx: Optional[Ctx], key: Optional[str],
                   position: Optional[int] = None) -> Optional[Results]:
        """The argument named ``key`` (or at ``position``) of the call at ``ref``, evaluated in ``ctx``."""
        if ref is None:
            return None
        site = self.project.call(ref)
        ctx = ctx or self.context(ref.module, site.scope)
        if position is not None:
            for index, arg in enumerate(site.args):
                if isinstance(arg, Starred):
                    found = self.starred_at(arg.value, ctx, position - index)
                    if found is None:
                        break  # fewer positionals than ``position``: look for the keyword
                    return found
                if index == position:
                    return extend(self.eval(arg, ctx), Step(ref.module, site.arg_spans[index], f"argument `{key}`" if key else "argument"))
        if key is None:
            return None
        for (name, value), span in zip(site.keywords, site.keyword_spans):
            if name == key:
                return extend(self.eval(value, ctx), Step(ref.module, span, f"argument `{key}`"))
        for name, value in site.keywords:
            if name is None:
                return self.splat_lookup(value, ctx, key)
        return None

    def free_param(self, function: FunctionSummary, param: Param, ctx: Ctx) -> Results:
        """A parameter seen from inside its function: what every caller passes (the config
        hydra passes to a ``@hydra.main`` function)."""
        config = self._hydra_config(function, param, ctx.module)
        if config is not None:
            return config
        trainers = self._callback_trainers(function, param, ctx.module)
        if trainers is not None:  # ``on_train_epoch_start(self, trainer, pl_module)`` of a Lightning callback
            return trainers
        func = Func(ctx.module, function.qualname)
        batches = self.engines.batches(func, function, param)
        if batches is not None:  # ``Engine(update).run(loader)`` hands ``update`` each batch
            return batches
        callers = self.callers(func)
        partials = self.partial_sites(func) if function.scope_kind != "class" else ()
        if not callers and not partials and self.all_callers_known(func):
            if param.kind == "kwarg":
                return one(Kwargs(func, Ctx(ctx.module, function.qualname)))
            return self.default(function, param, ctx.module)
        parts = []
        for site, self_obj in callers:
            call_site = self.project.call(site)
            bound = Ctx(ctx.module, function.qualname, site, self.context(site.module, call_site.scope), self_obj)
            parts.append(self.param(function, param.name, bound))
        for site in partials:  # ``partial(worker_init, num_threads=4)``: what it fixes, after its own ``func``
            call_site = self.project.call(site)
            bound = Ctx(ctx.module, function.qualname, site, self.context(site.module, call_site.scope), None, 1)
            parts.append(self.param(function, param.name, bound))
        if not self.all_callers_known(func):
            parts.append(UNKNOWN_RESULT)
        return join(parts)

    def _callback_trainers(self, function: FunctionSummary, param: Param, module: str) -> Optional[Results]:
        """The Lightning Trainers the project builds, as the ``trainer`` a Lightning callback's
        hook is called with (its parameter after ``self``), or None for any other parameter."""
        if len(function.params) < 2 or param is not function.params[1] or not function.name.startswith("on_"):
            return None
        owner = self._method_owner(module, function)
        if owner is None or not any(isinstance(item, Ext) and item.qualname in LIGHTNING_CALLBACKS
                                    for item in self.mro(owner)):
            return None
        found = []
        for name in ("Trainer", "LightningCLI"):
            for ref in self.project.calls_named(name):
                site = self.project.call(ref)
                ctx = self.context(ref.module, site.scope)
                for f in self.eval(site.func, ctx):
                    if isinstance(f.obj, Ext) and f.obj.qualname in LIGHTNING_TRAINERS \
                            and self._registers(self.keyword_at(ref, ctx, "callbacks"), owner):
                        found.append(one(Inst(f.obj, ref, ctx)))
                    elif isinstance(f.obj, Ext) and f.obj.qualname in CLI_RUNNERS:
                        defaults = self.keyword_at(ref, ctx, "trainer_defaults")
                        given = join(self.mapping_entry(d, "callbacks", ctx) or UNKNOWN_RESULT for d in defaults) \
                            if defaults else UNKNOWN_RESULT  # the command line may name callbacks
                        if self._registers(given, owner):
                            found.append(one(Inst(Ext(CLI_TRAINER), ref, ctx)))  # the Trainer it builds
        return join(found) if found else None

    def _registers(self, callbacks: Optional[Results], owner: Cls) -> bool:
        """Whether a Trainer given ``callbacks`` may call the hooks of ``owner``: an instance of
        it (or of a subclass) in the list, or a list not known."""
        if callbacks is None:
            return False
        for found in callbacks:
            if not (isinstance(found.obj, Container) and found.obj.kind in ("list", "tuple")):
                return True
            for item in self.container_values(found.obj):
                if not isinstance(item.obj, Inst) or not isinstance(item.obj.cls, Cls) or owner in self.mro(item.obj.cls):
                    return True
        return False

    def partial_sites(self, func: Func) -> List[SiteRef]:
        """The ``functools.partial(func, ...)`` calls that fix arguments of ``func`` (indexed once
        per run; at most ``MAX_CALLERS``)."""
        if self._partials is None:
            self._partials = {}
            for ref in self.project.calls_named("partial"):
                site = self.project.call(ref)
                if not site.args or type(site.args[0]) is Starred:
                    continue
                ctx = self.context(ref.module, site.scope)
                if not any(isinstance(f.obj, Ext) and f.obj.qualname == "functools.partial"
                           for f in self.eval(site.func, ctx)):
                    continue
                for found in self.eval(site.args[0], ctx):
                    if isinstance(found.obj, Func) and ref not in self._partials.get(found.obj, ()):
                        self._partials.setdefault(found.obj, []).append(ref)
        return self._partials.get(func, [])[:MAX_CALLERS]

    def all_callers_known(self, func: Func) -> bool:
        """Whether ``callers(func)`` is every call of ``func`` the project makes (not cut short
        by the caps: a name called from too many places, too many callers)."""
        self.callers(func)
        return func not in self._callers_cut

    def callers(self, func: Func) -> Tuple[Tuple[SiteRef, Optional[Obj]], ...]:
        """Call sites of the project that call ``func`` (with the instance, for methods).

        Sites are found by the callee's last name, then checked by evaluating what they call.
        A name called from more than ``MAX_CANDIDATES`` places (``to``, ``update``) is not
        searched: its callers are unknown (``all_callers_known`` says so)."""
        found = self._callers.get(func)
        if found is not None:
            return found
        self._callers[func] = ()  # recursion guard
        function = self.project.function(func.module, func.qualname)
        result: List[Tuple[SiteRef, Optional[Obj]]] = []
        cut = False
        if function is not None:
            owner = self._method_owner(func.module, function)
            name = function.name
            refs = []
            if owner is not None and function.name == "__init__":
                klass = self.project.klass(owner.module, owner.qualname)
                name = klass.name if klass is not None else ""
                supers = self.super_inits(owner)
                result.extend(supers[:MAX_CALLERS])
                cut = len(supers) > MAX_CALLERS
                for heir in self._inheriting_names(name):  # ``SegTrainer(cfg)`` runs ``BaseTrainer.__init__``
                    refs.extend(self.project.calls_named(heir))
            refs = self.project.calls_named(name) + refs if name else refs
            if owner is not None and name:  # ``getattr(hook, fn_name)(self, **kwargs)`` given this name
                refs = refs + self._dispatch_sites(name)
            if owner is not None and name in CALLED_METHODS and self.called_method(owner) == func:
                refs = refs + self._instance_calls(owner)  # ``model(batch)`` runs ``forward``
            if owner is None or function.name == "setup":  # ``setup(self, config)`` of a class trainable
                launched = self._launch_sites(func if owner is None else owner)
                result.extend((ref, None) for ref in launched[:MAX_CALLERS])
                cut = len(launched) > MAX_CALLERS
            if owner is None or function.name == "__init__":  # ``hydra.utils.instantiate(cfg.data)``
                result.extend(self._instantiating_calls(func, owner))
                if owner is not None:  # ``TASK_REGISTRY["captioning"](cfg)`` builds the class
                    result.extend(self._table_calls(func, owner))
            if len(refs) > MAX_CANDIDATES:
                cut = True
            elif not cut:
                for ref in refs:
                    if len(result) >= MAX_CALLERS:
                        cut = True
                        break
                    match = self._calls(ref, func, owner, function)
                    if match is not False:
                        result.append((ref, match))
        found = tuple(result)
        self._callers[func] = found
        if cut:
            self._callers_cut.add(func)
        return found

    def _launch_sites(self, func: Func) -> List[SiteRef]:
        """Process starters that call ``func`` in each process they start, with the arguments
        they were given (``mp.spawn(worker, args=(world_size, cfg))``,
        ``Process(target=worker, args=(cfg,))``): callers of ``func`` like a direct call."""
        if self._launched is None:
            from .libraries import PROCESS_TARGETS

            self._launched = {}  # indexed once per run: target function (or trainable class) → the sites starting it
            for name in sorted(LAUNCHING_NAMES | TRIAL_RUNNER_NAMES):
                for ref in self.project.calls_named(name):
                    if name == "run" and not _tune_run(self.project.call(ref).func) \
                            and not _parallel_run(self.project.call(ref).func):
                        continue  # ``trainer.run(...)``: not looked at
                    launcher = self.launcher(ref)
                    if launcher is None:
                        continue
                    trial = launcher in TRIAL_RUNNERS
                    position, keyword = TRIAL_RUNNERS[launcher][:2] if trial else PROCESS_TARGETS[launcher]
                    for found in self.keyword_at(ref, None, keyword, position) or ():
                        target = found.obj
                        if (isinstance(target, Func) or (trial and isinstance(target, Cls))) \
                                and ref not in self._launched.get(target, ()):
                            self._launched.setdefault(target, []).append(ref)
        return self._launched.get(func, [])

    def launcher(self, ref: SiteRef) -> Optional[str]:
        """The process starter the call at ``ref`` is, when it calls a target with arguments
        (``LAUNCHED_ARGUMENTS``), else None."""
        found = self._launchers.get(ref, self)
        if found is self:
            from .libraries import LAUNCHED_ARGUMENTS

            site = self.project.call(ref)
            ctx = self.context(ref.module, site.scope)
            found = next((f.obj.qualname for f in self.eval(site.func, ctx) if isinstance(f.obj, Ext)
                          and (f.obj.qualname in LAUNCHED_ARGUMENTS or f.obj.qualname in TRIAL_RUNNERS)), None)
            self._launchers[ref] = found
        return found

    def _launched_argument(self, site: CallSite, ref: SiteRef, caller: Optional[Ctx], param: Param, position: int,
                           launcher: str) -> Optional[Results]:
        """What a process starter passes for ``param`` of its target: the process index (unknown)
        first for torch's spawn, then the items of its ``args`` tuple; nothing by keyword."""
        from .libraries import LAUNCHED_ARGUMENTS

        if param.kind not in ("pos", "posonly") or position < 0:
            return None
        where, keyword, injected = LAUNCHED_ARGUMENTS[launcher]
        if position < injected:
            return UNKNOWN_RESULT  # the index of the process
        if keyword is None:  # the arguments after the function, one by one (ignite's ``run(func, *args)``)
            at = where + position - injected
            if any(type(arg) is Starred for arg in site.args[:at + 1]):
                return UNKNOWN_RESULT  # ``run(func, *args)``: which one it is, is not known
            if at >= len(site.args):
                return None  # not given: the parameter's default
            caller = caller or self.context(ref.module, site.scope)
            step = Step(ref.module, site.arg_spans[at], f"passed as `{param.name}` by `{launcher.rsplit('.', 1)[1]}`")
            return extend(self.eval(site.args[at], caller), step)
        spans = dict(zip((k for k, _ in site.keywords), site.keyword_spans))
        value, span = dict((k, v) for k, v in site.keywords if k).get(keyword), spans.get(keyword)
        if value is None and len(site.args) > where and type(site.args[where]) is not Starred:
            value, span = site.args[where], site.arg_spans[where]
        if value is None:
            return None
        caller = caller or self.context(ref.module, site.scope)
        step = Step(ref.module, span, f"passed as `{param.name}` by `{launcher.rsplit('.', 1)[1]}`")
        return extend(join(self.element_at(f, position - injected) for f in self.eval(value, caller)), step)

    def _trial_config(self, site: CallSite, ref: SiteRef, caller: Optional[Ctx], param: Param, position: int,
                      launcher: str, function: FunctionSummary) -> Results:
        """What a search driver passes for ``param`` of its trainable: the trial's config (the
        ``param_space``/``config`` given, its sampled entries unknown) first, after ``self`` for a
        class trainable's ``setup``; nothing else is known."""
        config_at = 1 if function.scope_kind == "class" else 0
        if param.kind not in ("pos", "posonly") or position != config_at:
            return UNKNOWN_RESULT
        keyword = TRIAL_RUNNERS[launcher][2]
        given = self.keyword_at(ref, caller or self.context(ref.module, site.scope), keyword)
        if given is None:
            return UNKNOWN_RESULT
        step = Step(ref.module, site.span, f"passed as `{param.name}` by `{launcher.rsplit('.', 1)[1]}`")
        return extend(given, step)

    def _inheriting_names(self, name: str) -> List[str]:
        """Names of the project classes that may inherit ``__init__`` from a class named
        ``name``: those whose bases name it (by their last name), and theirs in turn, up to a
        class that defines its own ``__init__`` (its constructions run that one; a base it
        calls through ``super().__init__`` is found by ``super_inits``). Which of their
        constructions really reach the ``__init__`` asked about is decided by ``_calls``."""
        out: List[str] = []
        frontier = [name]
        for _ in range(MAX_INHERITANCE):
            following = []
            for base in frontier:
                for _, klass in self._heirs_named(base):
                    if klass.name not in out and klass.name != name:
                        out.append(klass.name)
                        if "__init__" not in klass.methods:
                            following.append(klass.name)
            frontier = following
        return out

    def _heirs_named(self, name: str) -> List[Tuple[str, ClassSummary]]:
        """(module, class) of the classes of the modules summarised up front whose bases are
        written with the last name ``name`` (indexed once per run)."""
        if self._heirs is None:
            self._heirs = {}
            for info in self.project.eager_modules():
                for klass in info.summary.classes.values():
                    for base in klass.bases:
                        named = last_name(base)
                        if named:
                            self._heirs.setdefault(named, []).append((info.key, klass))
        return self._heirs.get(name, [])

    def subclasses(self, cls: Cls) -> List[Cls]:
        """The classes of the modules summarised up front that derive from ``cls``, at any
        depth: found by the names their bases are written with, checked on their method
        resolution order."""
        found = self._subclasses.get(cls)
        if found is not None:
            return found
        self._subclasses[cls] = []  # recursion guard
        klass = self.project.klass(cls.module, cls.qualname)
        out: List[Cls] = []
        seen: Set[Tuple[str, str]] = set()
        frontier = [klass.name] if klass is not None else []
        while frontier:
            following = []
            for written in frontier:
                for module, heir in self._heirs_named(written):
                    if (module, heir.qualname) in seen:
                        continue
                    seen.add((module, heir.qualname))
                    following.append(heir.name)
                    candidate = Cls(module, heir.qualname)
                    if cls in self.mro(candidate):
                        out.append(candidate)
            frontier = following
        self._subclasses[cls] = out
        return out

    def _abstract_overrides(self, func: Func, owner: Cls) -> Optional[List[Tuple[Cls, Func]]]:
        """For an ``@abstractmethod`` called on an instance of ``owner`` whose class is not
        known (``self.build_loaders()`` in a base trainer's ``__init__``): the subclasses'
        implementations, each with its class. None when ``func`` is not abstract."""
        key = (func, owner)
        if key in self._overrides_of:
            return self._overrides_of[key]
        function = self.project.function(func.module, func.qualname)
        found = None
        if function is not None and self._decorated(function, ABSTRACT_DECORATORS):
            found = []
            for sub in self.subclasses(owner):
                method = self.method(sub, function.name)
                implementation = self.project.function(method.module, method.qualname) if method is not None else None
                if implementation is not None and not self._decorated(implementation, ABSTRACT_DECORATORS):
                    found.append((sub, method))
        self._overrides_of[key] = found
        return found

    def called_method(self, cls: Cls) -> Optional[Func]:
        """What calling an instance of ``cls`` runs: its ``__call__``, or, when a library base's
        ``__call__`` hands over to a method the class defines, that method (``forward`` of an
        ``nn.Module`` or of a PyTorch Geometric ``BaseTransform``: ``LIBRARY_CALL_HOOKS``)."""
        method = self.method(cls, "__call__")
        if method is not None:
            return method
        for item in self.mro(cls):
            hook = LIBRARY_CALL_HOOKS.get(item.qualname) if isinstance(item, Ext) else None
            if hook is not None:
                return self.method(cls, hook)
        return None

    def _instance_calls(self, owner: Cls) -> List[SiteRef]:
        """Call sites that may call an instance of ``owner`` (or of a subclass): the calls by a
        name the code keeps such an instance in (``model = build_model(cfg)`` ... ``self.model
        = model`` ... ``self.model(batch)``: ``model``), a name called from more than
        ``MAX_CANDIDATES`` places left out. Checked by ``_calls`` on what each calls."""
        names: Set[str] = set()
        for cls in [owner] + self.subclasses(owner):
            for ref, _ in self.constructions(cls)[0]:
                names |= self._holding_names(ref, 1)
        refs: List[SiteRef] = []
        for name in sorted(names):
            found = self.project.calls_named(name)
            if len(found) <= MAX_CANDIDATES:
                refs.extend(found)
        return refs

    def _holding_names(self, ref: SiteRef, depth: int) -> Set[str]:
        """The names the object made at ``ref`` is kept in: a local or global bound to it (or
        to ``.cuda()``/``.to(...)``/``.eval()`` of it), an attribute set to it or to such a
        name in the same function, and, ``depth`` calls up, the names the callers of a
        function returning it keep it in."""
        site = self.project.call(ref)
        summary = self.project.summary(ref.module)
        function = summary.functions.get(site.scope) if site.scope else None
        bindings = function.bindings if function is not None else summary.bindings
        names = {name for name, made in bindings.items()
                 if any(b.kind == "assign" and self._made_at(b.value, ref.index, summary) for b in made)}
        for store in summary.stores:
            if store.scope == site.scope and store.kind == "assign" and store.attr != "[]" and (
                    self._made_at(store.value, ref.index, summary)
                    or (type(store.value) is Name and store.value.id in names)):
                names.add(store.attr)
        if depth > 0 and function is not None and any(
                self._made_at(value, ref.index, summary) or (type(value) is Name and value.id in names)
                for value in function.returns):
            for caller, _ in self.callers(Func(ref.module, site.scope)):
                names |= self._holding_names(caller, depth - 1)
        return names

    def _made_at(self, value, index: int, summary) -> bool:
        """``value`` is the result of call ``index``, or of a method of it handing back the same
        module (``Net().cuda()``, ``.to(device)``, ``.eval()``), or a branch of a conditional
        expression is."""
        for _ in range(3):
            if type(value) is Op and value.op == "if":
                return any(self._made_at(branch, index, summary) for branch in value.args[1:])
            if type(value) is not Call:
                return False
            if value.index == index:
                return True
            func = summary.calls[value.index].func
            if type(func) is not Attr or func.name not in SAME_MODULE_METHODS:
                return False
            value = func.base
        return False

    def _calls(self, ref: SiteRef, func: Func, owner: Optional[Cls], function: FunctionSummary):
        """False when the call at ``ref`` does not call ``func``; else the bound instance (or None)."""
        site = self.project.call(ref)
        ctx = self.context(ref.module, site.scope)
        if owner is not None and function.name == "__init__":
            if isinstance(site.func, Attr) and isinstance(site.func.base, Call):  # super().__init__
                return False  # found through ``super_inits``
            for found in self.eval(site.func, ctx):
                if found.obj == owner:
                    return Inst(owner, ref, ctx)
                if isinstance(found.obj, Cls) and owner in self.mro(found.obj):
                    if self.method(found.obj, "__init__") == func:
                        return Inst(found.obj, ref, ctx)
            return False
        if isinstance(site.func, Attr):
            for receiver in self.eval(site.func.base, ctx):
                obj = receiver.obj
                if isinstance(obj, Inst) and isinstance(obj.cls, Cls) and self.method(obj.cls, function.name) == func:
                    return obj
                if (isinstance(obj, Inst) and obj.site is None and owner is not None and obj.cls != owner
                        and obj.cls in self.mro(owner) and self.method(owner, function.name) == func):
                    return Inst(owner)  # ``self.hook()`` in a base class, the hook defined by a subclass
                if isinstance(obj, Cls) and self.method(obj, function.name) == func:
                    return None
                if isinstance(obj, Mod):
                    for target in self.attribute(receiver, function.name, ctx):
                        if target.obj == func:
                            return None
            return self._instance_called(site, ctx, func, owner, function)
        for found in self.eval(site.func, ctx):
            if found.obj == func:
                return None
            if isinstance(found.obj, Bound) and found.obj.func == func:  # a method looked up by name
                return found.obj.self_obj
        return self._instance_called(site, ctx, func, owner, function)

    def _instance_called(self, site: CallSite, ctx: Ctx, func: Func, owner: Optional[Cls], function: FunctionSummary):
        """The instance the call at ``site`` calls when that runs ``func`` (``model(batch)``,
        ``self.model(batch)`` running ``forward``); else False."""
        if owner is None or function.name not in CALLED_METHODS:
            return False
        for found in self.eval(site.func, ctx):
            if isinstance(found.obj, Inst) and isinstance(found.obj.cls, Cls) and self.called_method(found.obj.cls) == func:
                return found.obj
        return False

    def _name_lookups(self) -> List[Tuple[SiteRef, FunctionSummary, str, List[int]]]:
        """Every ``getattr(o, p)(...)`` whose name ``p`` is a parameter of its function: the
        ``getattr`` call, the function, ``p`` and the calls of the looked-up method (indexes in
        the module's call table). Indexed once per run."""
        if self._lookups is None:
            self._lookups = []
            for ref in self.project.calls_named("getattr"):
                lookup = self.project.call(ref)
                if len(lookup.args) < 2 or type(lookup.args[1]) is not Name or not lookup.scope:
                    continue
                function = self.project.function(ref.module, lookup.scope)
                if function is None or not any(p.name == lookup.args[1].id for p in function.params):
                    continue
                calls = self.project.summary(ref.module).calls
                outer = [index for index in sites_in_scope(self.project, ref.module, lookup.scope)
                         if calls[index].func == Call(ref.index)]
                if outer:
                    self._lookups.append((ref, function, lookup.args[1].id, outer))
        return self._lookups

    def _dispatchers(self) -> Set[Tuple[str, str]]:
        """(module, scope) of the functions that call a method looked up by a name they are
        given (``getattr(hook, fn_name)(...)``, ``fn_name`` a parameter)."""
        if self._dispatcher_scopes is None:
            self._dispatcher_scopes = {(ref.module, function.qualname) for ref, function, _, _ in self._name_lookups()}
        return self._dispatcher_scopes

    def _dispatch_sites(self, name: str) -> List[SiteRef]:
        """The calls of a method looked up by a name a dispatcher is given: in
        ``def call_hook(self, fn_name, **kwargs)``, ``getattr(hook, fn_name)(self, **kwargs)``
        calls the method ``name`` of each hook when some call of ``call_hook`` passes the
        literal ``name`` (mmengine's runner, a trainer's ``_call("on_epoch_start", epoch)``)."""
        if self._dispatched is None:
            self._dispatched = {}
            for ref, function, param, outer in self._name_lookups():
                for given in self._literal_arguments(Func(ref.module, function.qualname), function, param):
                    for index in outer:
                        self._dispatched.setdefault(given, []).append(SiteRef(ref.module, index))
        return self._dispatched.get(name, [])

    def _literal_arguments(self, func: Func, function: FunctionSummary, param: str) -> List[str]:
        """The literal strings the callers of ``func`` pass as its parameter ``param``."""
        out: List[str] = []
        for site, own in self.callers(func):
            call_site = self.project.call(site)
            bound = Ctx(func.module, function.qualname, site, self.context(site.module, call_site.scope), own)
            names = literal_choices(self.param(function, param, bound), str)
            out.extend(name for name in names or () if name not in out)
        return out

    def super_inits(self, owner: Cls) -> List[Tuple[SiteRef, Inst]]:
        """The ``super().__init__(...)`` sites that may reach ``owner.__init__``, each with the
        instance it initialises (the class whose method makes the call). Indexed once per run
        by every base of the calling class."""
        if self._super_sites is None:
            self._super_sites = {}
            for ref in self.project.calls_named("super().__init__"):
                site = self.project.call(ref)
                scope_class = self._scope_class(ref.module, site.scope)
                if scope_class is None:
                    continue
                for base in self.bases(scope_class):
                    self._super_sites.setdefault(base, []).append((ref, Inst(scope_class)))
        return self._super_sites.get(owner, [])

    def _scope_class(self, module: str, scope: str) -> Optional[Cls]:
        function = self.project.function(module, scope)
        if function is not None and function.scope_kind == "class":
            return Cls(module, function.scope)
        return None

    # classes ----------------------------------------------------------------------------
    def bases(self, cls: Cls) -> Tuple[Obj, ...]:
        return self.mro(cls)[1:]

    def mro(self, cls: Obj) -> Tuple[Obj, ...]:
        """The class and its bases, most derived first (project classes and outside ones)."""
        found = self._mro.get(cls)
        if found is not None:
            return found
        self._mro[cls] = (cls,)  # recursion guard
        order: List[Obj] = [cls]
        if isinstance(cls, Cls):
            klass = self.project.klass(cls.module, cls.qualname)
            if klass is not None:
                ctx = self.context(cls.module, klass.scope)
                for base in klass.bases:
                    for found_base in self.eval(base, ctx):
                        obj = found_base.obj
                        if isinstance(obj, (Cls, Ext)):
                            for item in self.mro(obj):
                                if item not in order:
                                    order.append(item)
        result = tuple(order)
        self._mro[cls] = result
        return result

    def super_method(self, base: Value, name: str, ctx: Ctx) -> Optional[Bound]:
        """``super().name`` (no arguments) in a method of a project class: the next definition
        of ``name`` after that class in the order of ``self``'s class (of the method's own
        class when ``self`` is unknown), bound to ``self``; None when an outside class comes
        first or nothing defines it. ``super().__init__`` is left to ``super_inits``, which
        finds the calls that reach a constructor."""
        if type(base) is not Call or name == "__init__":
            return None
        site = self.project.call(_new(SiteRef, (ctx.module, base.index)))
        if type(site.func) is not Name or site.func.id != "super" or site.args or site.keywords:
            return None
        function = self.project.function(ctx.module, ctx.scope) if ctx.scope else None
        if function is None or function.scope_kind != "class":
            return None
        owner = Cls(ctx.module, function.scope)
        self_obj = ctx.self_obj if ctx.self_obj is not None else Inst(owner)
        order = self.mro(self_obj.cls) if type(self_obj) is Inst and type(self_obj.cls) is Cls else ()
        if owner not in order:
            order = self.mro(owner)
        for item in order[order.index(owner) + 1:]:
            if not isinstance(item, Cls):
                return None  # an outside class's method comes first
            klass = self.project.klass(item.module, item.qualname)
            if klass is not None and name in klass.methods:
                return Bound(self_obj, Func(item.module, f"{item.qualname}.{name}"))
        return None

    def method(self, cls: Cls, name: str) -> Optional[Func]:
        key = (cls, name)
        found = self._methods.get(key, self)
        if found is self:
            found = self._methods[key] = self._method(cls, name)
        return found

    def _method(self, cls: Cls, name: str) -> Optional[Func]:
        for item in self.mro(cls):
            if isinstance(item, Cls):
                klass = self.project.klass(item.module, item.qualname)
                if klass is not None and name in klass.methods:
                    return Func(item.module, f"{item.qualname}.{name}")
        return None

    def class_attribute(self, cls: Cls, name: str) -> Optional[Results]:
        for item in self.mro(cls):
            if isinstance(item, Cls):
                klass = self.project.klass(item.module, item.qualname)
                if klass is None:
                    continue
                if name in klass.methods:
                    return one(Func(item.module, f"{item.qualname}.{name}"))
                if name in klass.bindings:
                    return self.class_bindings(klass, name, self.context(item.module, item.qualname))
            elif isinstance(item, Ext) and item.qualname not in BARE_BASES:
                return one(Ext(f"{item.qualname}.{name}"))
        return None

    def self_stores(self, cls: Cls) -> Dict[str, list]:
        """attr → [(method summary, store)] for ``self.attr = ...`` in the class's own methods."""
        key = (cls.module, cls.qualname)
        found = self._stores.get(key)
        if found is not None:
            return found
        table: Dict[str, list] = {}
        summary = self.project.summary(cls.module)
        klass = summary.classes.get(cls.qualname) if summary is not None else None
        if klass is not None:
            by_scope = self.stores_by_scope(cls.module)
            numbered = sorted(item for m in set(klass.methods) for item in by_scope.get(f"{cls.qualname}.{m}", ()))
            for _, store in numbered:  # in the module's order
                if not isinstance(store.target, Name):
                    continue
                function = summary.functions.get(store.scope)
                if function is None or not function.params or function.params[0].name != store.target.id:
                    continue
                table.setdefault(store.attr, []).append((function, store))
        self._stores[key] = table
        return table

    def stores_by_scope(self, module: str) -> Dict[str, list]:
        """scope → [(number, store)] of a module's attribute stores, indexed once per module
        (``self_stores`` looks up each class's methods instead of going through every store)."""
        found = self._scope_stores.get(module)
        if found is None:
            found = self._scope_stores[module] = {}
            for number, store in enumerate(self.project.summary(module).stores):
                found.setdefault(store.scope, []).append((number, store))
        return found

    def instance_attribute(self, inst: Inst, name: str, reader: Optional[str] = None) -> Results:
        """``obj.name`` for an instance of a project class, with what code outside the class
        sets there after building it (``cfg.workers = 8``); ``reader``: the function reading it."""
        key = (inst, name, reader)
        found = self._instance_attributes.get(key)
        if found is None:
            if inst.site is None:
                found = self._class_attribute_value(inst, name, reader)
                given = self._set_on_instances(inst.cls, name) if isinstance(inst.cls, Cls) else ()
                if given:  # any instance of the class: also what code holding one sets there
                    placeholder = found and all(type(f.obj) is Lit and f.obj.value is None for f in found)
                    found = join(given if placeholder else [found] + given)
            else:
                found = self.overridden(inst, name, lambda: self._class_attribute_value(inst, name, reader))
            self._instance_attributes[key] = found
        return found

    def _set_on_instances(self, cls: Cls, name: str) -> List[Results]:
        """What code outside the class sets as ``.name`` on instances of ``cls`` or of its
        subclasses (``hook.trainer = weakref.proxy(self)`` in a trainer's ``register_hooks``):
        what ``self.name`` may hold in a method of the class, after it. A placeholder the class
        sets (``trainer = None``) is what those stores fill. Memoised per class and name."""
        key = (cls, name)
        found = self._set_on_any.get(key)
        if found is not None:
            return found
        self._set_on_any[key] = []  # recursion guard
        found = []
        for module, store in self._outside_stores_of(name):
            ctx = self.context(module, store.scope)
            if any(isinstance(f.obj, Inst) and isinstance(f.obj.cls, Cls) and f.obj.site is not None
                   and cls in self.mro(f.obj.cls) for f in self.eval(store.target, ctx)):
                found.append(extend(self.eval(store.value, ctx), Step(module, store.span, f"set as `.{name}`")))
        self._set_on_any[key] = found
        return found

    def overridden(self, obj, name: str, own) -> Results:
        """``own()`` (what the object says ``name`` is), replaced by what the code that built it
        unconditionally sets there afterwards (``cfg = Cfg(); cfg.workers = 8``), or joined
        with what is set elsewhere or under a condition."""
        always, sometimes, fills, unknown = self.outside_stores(obj, name)
        if always:
            return extend(join(always + sometimes), unknown)
        kept = own()
        if unknown is not None:  # a branch sets what the model cannot see: the value holds, deciding nothing
            kept = extend(kept, unknown)
        if sometimes:
            return join([without_unset(kept) if fills else kept] + sometimes)
        return kept

    def set_after(self, obj, name: str) -> Results:
        """What code outside ``obj``'s class sets as ``obj.name`` after building it
        (``full.transform = Compose([...])`` on a torchvision dataset)."""
        always, sometimes, _, _ = self.outside_stores(obj, name)
        return join(always + sometimes) if always or sometimes else ()

    def outside_stores(self, obj, name: str):
        key = (obj, name)
        found = self._overrides.get(key)
        if found is not None:
            return found
        self._overrides[key] = ([], [], False, None)  # recursion guard
        always, defaults, sometimes, fills, unknown = [], [], [], False, None
        last = None  # where the unconditional store in effect is made
        for module, store in self._outside_stores_of(name) + self._home_stores(obj, name):
            ctx = self.context(module, store.scope)
            if not any(same_object(f.obj, obj) for f in self.eval(store.target, ctx)):
                continue
            step = Step(module, store.span, f"set as `.{name}`")
            value = extend(self.eval(store.value, ctx), step)
            unconditional = store.block == -1 and store.loop == -1
            if unconditional and not store.scope and self._local_root(module, store):
                defaults = [value]  # a module's own config object filled where it is built: its default
            elif unconditional and (self._local_root(module, store) or self._global_root(module, store)):
                always = [value]  # set unconditionally by the code holding the object: the last one wins
                last = (module, store.scope, store.span.row)
            else:
                known = tuple(f for f in value if not isinstance(f.obj, Top))
                if known:  # a value set only sometimes adds what is known of it; the default still holds
                    sometimes.append(known)
                    fills = fills or store.fills  # a body of ``if x.attr == 0:`` replaces the unset default
                if len(known) < len(value):
                    unknown = Step(module, store.span, f"replaced on some runs (`.{name}` set here)")
                    unknown_at = (module, store.scope, store.span.row)
        if unknown is not None and last is not None and unknown_at[:2] == last[:2] and unknown_at[2] < last[2]:
            unknown = None  # set before the unconditional store that replaces it
        always = always or defaults  # what a function sets on the object replaces the module's default
        self._overrides[key] = (always, sometimes, fills, unknown)
        return always, sometimes, fills, unknown

    def _outside_stores_of(self, name: str) -> tuple:
        """(module, store) of the ``x.name = value`` statements made from outside ``x``'s class,
        in the modules summarised up front: indexed once per run."""
        if self._stores_outside is None:
            index: Dict[str, list] = {}
            for info in self.project.eager_modules():
                for store in info.summary.stores:
                    if self._sets_from_outside(info.key, store):
                        index.setdefault(store.attr, []).append((info.key, store))
            self._stores_outside = {attr: tuple(stores) for attr, stores in index.items()}
        return self._stores_outside.get(name, ())

    def _global_root(self, module: str, store) -> bool:
        """The store's target starts from a module-level object its function does not bind
        (``cfg.TRAIN.NUM_WORKERS = args.workers`` in ``main()`` on the ``cfg`` a config module
        made): the same object wherever it is read."""
        name = root_name(store.target)
        function = self.project.function(module, store.scope) if store.scope else None
        if name is None or function is None or name in function.bindings:
            return False
        summary = self.project.summary(module)
        bindings = summary.bindings.get(name, ()) if summary is not None else ()
        return bool(bindings) and all(b.kind in ("assign", "import") for b in bindings)

    def _home_stores(self, obj, name: str) -> tuple:
        """Stores of ``name`` in the module that built ``obj`` when the pre-filter did not read
        that module up front (a config module: ``__C = EasyDict()`` ... ``__C.TRAIN.NUM_WORKERS = 0``)."""
        site = getattr(obj, "site", None)
        info = self.project.modules.get(site.module) if isinstance(site, SiteRef) else None
        summary = self.project.summary(info.key) if info is not None and not info.eager else None
        if summary is None:
            return ()
        return tuple((info.key, store) for store in summary.stores
                     if store.attr == name and self._sets_from_outside(info.key, store))

    def _sets_from_outside(self, module: str, store) -> bool:
        """``obj.attr = value`` made by code holding ``obj`` (not a method on its own ``self``)."""
        return store.kind == "assign" and store.attr != "[]" and not self._on_own_self(module, store)

    def _on_own_self(self, module: str, store) -> bool:
        """A store on the method's own ``self`` (a static method's first parameter is not one)."""
        function = self.project.function(module, store.scope) if store.scope else None
        return (function is not None and function.scope_kind == "class" and bool(function.params)
                and not self._is_static(function)
                and isinstance(store.target, Name) and store.target.id == function.params[0].name)

    def _local_root(self, module: str, store) -> bool:
        """The store's target starts from a local variable its function assigned (``cfg = Cfg()``
        ... ``cfg.data.workers = 8``), not a parameter another caller may pass differently."""
        name = root_name(store.target)
        if not store.scope and name is not None:  # a module's own object, set where it is built
            summary = self.project.summary(module)
            bindings = summary.bindings.get(name, ()) if summary is not None else ()
            return bool(bindings) and all(b.kind == "assign" for b in bindings)
        function = self.project.function(module, store.scope) if store.scope else None
        if name is None or function is None:
            return False
        bindings = function.bindings.get(name, ())
        return bool(bindings) and all(b.kind == "assign" for b in bindings)

    @bounded(UNKNOWN_RESULT)
    def _class_attribute_value(self, inst: Inst, name: str, reader: Optional[str] = None) -> Results:
        """``obj.name`` as the class defines it (stores in its methods, fields, class attributes).
        Seen from another function than the method storing it, a store that method later
        refines on every path (``self.x = next(it)`` ... ``self.x = self.x.cuda(non_blocking=True)``)
        no longer holds once the method returns."""
        cls = inst.cls
        parts = []
        for item in self.mro(cls):
            if not isinstance(item, Cls):
                continue
            stores = [(f, s) for f, s in self.self_stores(item).get(name, ()) if s.kind != "del"]
            for function, store in stores:
                if reader != store.scope and self._refined_later(item.module, function, store, stores):
                    continue
                ctx = self.method_ctx(inst, item.module, function)
                if not self.branch_taken(function, store.block, ctx):
                    continue
                step = Step(item.module, store.span, f"stored as `self.{name}`")
                part = extend(self.eval(store.value, ctx), step)
                if any(other.fills and other.scope == store.scope and other.span > store.span for _, other in stores):
                    part = without_unset(part)  # ``if self.x == 0: self.x = ...`` after it in the same method
                parts.append(part)
            if parts:
                found = join(parts)
                if inst.site is None and item == cls and all(f.obj == Lit(None) for f in found):
                    # a ``None`` placeholder the subclasses fill (a base data module's
                    # ``self.train_set = None``, built by each subclass's ``setup()``)
                    heirs = self.heir_attribute(name, cls)
                    if not is_top(heirs):
                        return join([found, heirs])
                return found
            field = self.field(item, inst, name)
            if field is not None:
                return field
        if name == "hparams" and self._saves_hyperparameters(cls):
            return one(Hparams(inst))
        passed = self.outside_base_argument(inst, name)
        if passed is not None:
            return passed
        attr = self.class_attribute(cls, name)
        if attr is None:
            # set by none of the class's own methods: a subclass sets it (a base trainer's
            # ``self.train_loader`` that each subclass's ``setup`` builds)
            found = self.loader_attribute(name, cls)
            if inst.site is None and is_top(found):
                return self.heir_attribute(name, cls)
            return found
        results = []
        for found in attr:
            if isinstance(found.obj, Func):
                function = self.project.function(found.obj.module, found.obj.qualname)
                if function is not None and self.is_property(function):
                    ctx = self.method_ctx(inst, found.obj.module, function)
                    results.append(join(self.eval(v, ctx) for v in self.returned(function, ctx)))
                elif function is not None and self._is_static(function):
                    results.append(one(found.obj))
                else:
                    results.append(one(Bound(inst, found.obj), found.trail))
            else:
                results.append((found,))
        return join(results)

    def _refined_later(self, module: str, function: FunctionSummary, store, stores) -> bool:
        """A later store of the same attribute in the same method, on every path after ``store``
        (its block holds ``store``'s), whose value is made from the attribute itself."""
        self_name = function.params[0].name
        if not function.span.row <= store.span.row <= function.end_row:
            return False  # a method of the same name defined again (a property's setter)
        return any(other.scope == store.scope and other.span > store.span and other.span.row <= function.end_row
                   and other.block < len(function.blocks) and store.block < len(function.blocks)
                   and _encloses(function.blocks, other.block, store.block)
                   and self._reads_attribute(module, other.value, self_name, store.attr)
                   for _, other in stores)

    def _reads_attribute(self, module: str, value, root: str, attr: str, depth: int = 0) -> bool:
        """Whether ``value`` is computed from ``root.attr`` (through calls, items, operators)."""
        if depth > 4:
            return False
        kind = type(value)
        if kind is Attr:
            base = value.base
            if value.name == attr and type(base) is Name and base.id == root:
                return True
            return self._reads_attribute(module, base, root, attr, depth + 1)
        if kind is Call:
            site = self.project.call(SiteRef(module, value.index))
            return any(self._reads_attribute(module, v, root, attr, depth + 1)
                       for v in (site.func, *site.args, *(v for _, v in site.keywords)))
        if kind is Item:
            return self._reads_attribute(module, value.base, root, attr, depth + 1)
        if kind is Op or kind is Seq:
            items = value.args if kind is Op else value.items
            return any(self._reads_attribute(module, v, root, attr, depth + 1) for v in items)
        if kind is Starred:
            return self._reads_attribute(module, value.value, root, attr, depth + 1)
        return False

    def _saves_hyperparameters(self, cls: Cls) -> bool:
        """Lightning's ``self.save_hyperparameters()`` in an ``__init__`` that builds ``cls``
        (its own, or a base's its ``super().__init__(...)`` runs)."""
        for module, function, _ in self._init_chain(Inst(cls)):
            summary = self.project.summary(module)
            if any(isinstance(summary.calls[i].func, Attr) and summary.calls[i].func.name == "save_hyperparameters"
                   for i in sites_in_scope(self.project, module, function.qualname)):
                return True
        return False

    def hparam(self, hparams: Hparams, name: str) -> Results:
        """``self.hparams.<name>``: the ``__init__`` argument ``name`` of that construction (the
        outermost ``__init__`` taking it: Lightning collects every ``__init__`` on the way, a
        subclass's arguments over its base's)."""
        for _, function, ctx in self._init_chain(hparams.inst):
            if any(p.name == name for p in function.params):
                return self.param(function, name, ctx)
        return UNKNOWN_RESULT

    def _init_chain(self, inst: Inst):
        """(module, ``__init__``, context) of each project ``__init__`` building ``inst``: its
        class's, then each one the one before runs with ``super().__init__(...)``, bound by
        that call."""
        ctx: Optional[Ctx] = None
        site: Optional[SiteRef] = None
        for item in self.mro(inst.cls) if isinstance(inst.cls, Cls) else ():
            if not isinstance(item, Cls):
                return
            klass = self.project.klass(item.module, item.qualname)
            if klass is None or "__init__" not in klass.methods:
                continue
            function = self.project.function(item.module, f"{item.qualname}.__init__")
            if function is None:
                return
            ctx = self.method_ctx(inst, item.module, function) if ctx is None \
                else Ctx(item.module, function.qualname, site, ctx, inst)
            yield item.module, function, ctx
            calls = self.project.summary(item.module).calls
            site = next((SiteRef(item.module, i) for i in sites_in_scope(self.project, item.module, function.qualname)
                         if isinstance(calls[i].func, Attr) and calls[i].func.name == "__init__"
                         and isinstance(calls[i].func.base, Call)), None)
            if site is None:
                return

    def outside_init_call(self, inst: Inst):
        """(call, context, shift) whose arguments reach the ``__init__`` of an outside base class
        (``class Folder(ImageFolder)``): the construction itself, or the ``super().__init__(...)``
        of the last project class whose ``__init__`` the chain of ``super().__init__`` calls runs
        before the outside base's, each bound by the call before it. None when no outside base
        is involved, or a project ``__init__`` on the way calls none."""
        if inst.site is None or not isinstance(inst.cls, Cls):
            return None
        site, ctx, shift = inst.site, inst.ctx, 0
        for item in self.mro(inst.cls):
            if isinstance(item, Ext):
                return site, ctx, shift
            klass = self.project.klass(item.module, item.qualname)
            if klass is None or "__init__" not in klass.methods:
                continue
            init = self.project.function(item.module, f"{item.qualname}.__init__")
            summary = self.project.summary(item.module)
            for index in sites_in_scope(self.project, item.module, init.qualname):
                call = summary.calls[index]
                if isinstance(call.func, Attr) and call.func.name == "__init__":
                    ctx = Ctx(item.module, init.qualname, site, ctx, inst)
                    site, shift = SiteRef(item.module, index), 0 if isinstance(call.func.base, Call) else 1
                    break
            else:
                return None
        return None

    def outside_base_argument(self, inst: Inst, name: str) -> Optional[Results]:
        """``self.<name>`` an outside base class stores from the keyword ``name`` of its ``__init__``
        (given there, or in the ``**kwargs`` the subclass's ``__init__`` forwards to it); in a
        method, for any construction of the class (``self.args`` of a ``Trainer`` subclass built
        with ``args=training_args``)."""
        if not isinstance(inst.cls, Cls) or not any(isinstance(item, Ext) for item in self.mro(inst.cls)):
            return None
        if inst.site is None:
            sites, complete = self.constructions(inst.cls)
            parts = [self.outside_base_argument(Inst(inst.cls, site, ctx), name) for site, ctx in sites]
            if not sites or not complete or any(part is None for part in parts):
                return None
            return join(parts)
        found = self.outside_init_call(inst)
        if found is None:
            return None
        site, ctx, _ = found
        call = self.project.call(site)
        if not any(key == name or key is None for key, _ in call.keywords):
            return None
        return self.keyword_at(site, ctx, name)

    def method_ctx(self, inst: Inst, module: str, function: FunctionSummary) -> Ctx:
        """The context a method of ``inst`` runs in (``__init__`` binds the construction's arguments)."""
        if function.name == "__init__" and inst.site is not None:
            site = self.project.call(inst.site)
            if not (isinstance(site.func, Attr) and isinstance(site.func.base, Call)):
                return Ctx(module, function.qualname, inst.site, inst.ctx, inst)
        return Ctx(module, function.qualname, None, None, inst)

    def field(self, cls: Cls, inst: Inst, name: str) -> Optional[Results]:
        """A dataclass / NamedTuple field: the constructor's argument, else its default."""
        klass = self.project.klass(cls.module, cls.qualname)
        if klass is None:
            return None
        for position, field in enumerate(klass.fields):
            if field.name != name:
                continue
            if inst.site is None and inst.cls == cls:  # ``self.x`` in a method: what any construction gives
                sites, complete = self.constructions(cls)
                if sites:
                    parts = [self.field(cls, Inst(cls, site, ctx), name) or UNKNOWN_RESULT for site, ctx in sites]
                    return join(parts + ([] if complete else [UNKNOWN_RESULT]))
            if inst.site is not None:
                original = self._replaced(inst)
                if original is not None:  # ``dataclasses.replace(cfg, epochs=3)``: the keyword, else ``cfg``'s field
                    passed = self.keyword_at(inst.site, inst.ctx, name)
                    return passed if passed is not None else join(
                        [self.field(cls, f.obj, name) or UNKNOWN_RESULT if isinstance(f.obj, Inst) and f.obj.cls == inst.cls
                         else UNKNOWN_RESULT for f in original])  # ``cls``: the class declaring the field, maybe a base
                passed = self.keyword_at(inst.site, inst.ctx, name, position)
                if passed is not None:
                    return passed
            if field.default is not None:
                step = Step(cls.module, field.default_span or field.span, f"default of field `{name}`")
                return extend(self.eval(field.default, self.context(cls.module, cls.qualname)), step)
            return UNKNOWN_RESULT
        return None

    def _replaced(self, inst: Inst) -> Optional[Results]:
        """The object ``inst`` is a ``dataclasses.replace`` of (its first argument), or None."""
        site = self.project.call(inst.site)
        if last_name(site.func) != "replace" or not site.args:
            return None
        ctx = inst.ctx or self.context(inst.site.module, site.scope)
        if not any(isinstance(f.obj, Ext) and f.obj.qualname == "dataclasses.replace" for f in self.eval(site.func, ctx)):
            return None
        return self.eval(site.args[0], ctx)

    def constructions(self, cls: Cls):
        """(call sites that build ``cls`` with their contexts, whether that is all of them)."""
        found = self._constructions.get(cls)
        if found is not None:
            return found
        self._constructions[cls] = ((), False)  # recursion guard
        klass = self.project.klass(cls.module, cls.qualname)
        refs = self.project.calls_named(klass.name) if klass is not None else []
        out = []
        if len(refs) <= MAX_CANDIDATES:
            for ref in refs:
                ctx = self.context(ref.module, self.project.call(ref).scope)
                if any(f.obj == cls for f in self.eval(self.project.call(ref).func, ctx)):
                    out.append((ref, ctx))
        init = self.method(cls, "__init__")
        for ref, _ in self._table_calls(init, cls) if init is not None else ():
            out.append((ref, self.context(ref.module, self.project.call(ref).scope)))  # ``MODELS[name](cfg)``
        for ref in self._instantiations():  # ``hydra.utils.instantiate(cfg.data)`` naming the class
            if cls in self._instantiated_objects(ref):
                out.append((ref, self.context(ref.module, self.project.call(ref).scope)))
        found = (tuple(out[:MAX_CALLERS]), len(refs) <= MAX_CANDIDATES and len(out) <= MAX_CALLERS)
        self._constructions[cls] = found
        return found

    # attributes -------------------------------------------------------------------------
    @bounded(UNKNOWN_RESULT)
    def attribute(self, found: Found, name: str, ctx: Ctx) -> Results:
        obj = found.obj
        kind = type(obj)
        if kind is Mod:
            summary = self.project.summary(obj.module)
            if summary is not None and (name in summary.bindings or summary.star_imports):
                result = self.global_name(obj.module, name)
                if result != UNKNOWN_RESULT or name in summary.bindings:
                    return result
            if summary is not None and "_base_" in summary.bindings:  # an OpenMMLab config: a base's name
                inherited = mmconfig.base_name(self, obj.module, name)
                if inherited is not None:
                    return inherited
            info = self.project.modules.get(obj.module)
            if info is not None:
                sub = self.project.find_module(info, f"{info.name}.{name}")
                if sub is not None:
                    return one(Mod(sub.key))
            return UNKNOWN_RESULT
        if kind is Ext:
            return one(Ext(f"{obj.qualname}.{name}"), found.trail)
        if kind is Cls:
            attr = self.class_attribute(obj, name)
            return attr if attr is not None else UNKNOWN_RESULT
        if kind is Inst:
            if self.is_bag(obj):
                return self.overridden(obj, name, lambda: self.bag_attribute(obj, name))
            if isinstance(obj.cls, Cls):
                return extend(self.instance_attribute(obj, name, ctx.scope), None)
            return self.libraries.instance_attribute(self, obj, name) or UNKNOWN_RESULT
        if kind is Batch:
            return one(obj, found.trail)
        if kind is Managed:
            return self.attribute(Found(obj.loader, found.trail), name, ctx)
        if kind is Namespace:
            return self.overridden(obj, name, lambda: externals.namespace_attribute(self, obj, name))
        if kind is Hparams:
            return self.hparam(obj, name)
        if kind is Config:
            return configfiles.member(self, found, name)
        if kind is Container and obj.kind == "dict" and name not in DICT_METHODS:
            # a section of a config bag read by attribute (``cfg.data.workers`` of
            # ``OmegaConf.create({"data": {...}})`` or an ``EasyDict``): its entry, or what is set there later
            return self.overridden(obj, name, lambda: self.dict_item(obj, name) or UNKNOWN_RESULT)
        if kind is Top:
            return self.loader_attribute(name)
        if kind is Lit and name == "type" and type(obj.value) is str:
            return one(Lit(obj.value.split(":")[0]), found.trail)  # ``torch.device("cuda:0").type``
        if kind is Lit and name == "parent" and type(obj.value) is str:
            return one(Lit(os.path.dirname(obj.value)), found.trail)  # ``Path(__file__).parent``
        return UNKNOWN_RESULT

    def is_bag(self, obj: Inst) -> bool:
        """An attribute bag: ``SimpleNamespace``, ``easydict`` and the like, or a project one."""
        return obj.cls.qualname in ATTRIBUTE_BAGS if isinstance(obj.cls, Ext) else self.is_bag_class(obj.cls)

    def is_bag_class(self, cls: Cls) -> bool:
        """A project ``dict`` subclass read by attribute (``class EasyDict(dict)`` defining
        ``__getattr__``, StyleGAN's ``dnnlib.EasyDict``): an attribute bag like ``easydict``'s."""
        key = ("bag", cls)
        found = self._decorations.get(key)
        if found is None:
            mro = self.mro(cls)
            found = any(isinstance(item, Ext) and item.qualname in ("builtins.dict", "dict") for item in mro) and any(
                isinstance(item, Cls) and self.method(item, "__getattr__") is not None for item in mro)
            self._decorations[key] = found
        return found

    def bag_attribute(self, bag: Inst, name: str) -> Results:
        """``hp.workers`` of ``hp = SimpleNamespace(workers=2)`` / ``EasyDict({"workers": 2})``:
        the keyword or the entry of the dict it was built from (what is set on it later is
        added by ``overridden``)."""
        if bag.site is None:
            return UNKNOWN_RESULT
        given = self.keyword_at(bag.site, bag.ctx, name)
        if given is not None:
            return given
        parts = []
        for found in self.keyword_at(bag.site, bag.ctx, None, 0) or ():
            obj = found.obj
            if type(obj) is Container and obj.kind == "dict":
                parts.append(self.dict_item(obj, name) or UNKNOWN_RESULT)
            elif type(obj) is Inst and isinstance(obj.cls, Ext) and obj.cls.qualname in ATTRIBUTE_BAGS:
                parts.append(self.attribute(found, name, bag.ctx or Ctx(bag.site.module)))
            else:
                parts.append(UNKNOWN_RESULT)
        return join(parts) if parts else UNKNOWN_RESULT

    def _store_class(self, module: str, store) -> Optional[Tuple[str, str]]:
        """(module, class qualname) of the method a store is made in, if it is a method."""
        function = self.project.function(module, store.scope)
        return (module, function.scope) if function is not None and function.scope_kind == "class" else None

    def loader_attribute(self, name: str, within: Optional[Cls] = None) -> Results:
        """``<unknown>.train_loader``: when every class of the project that sets ``self.<name>``
        (at most three) sets it to a DataLoader, the attribute is taken to be one of those
        loaders (a trainer handed a data manager it cannot see being built). Otherwise unknown.
        ``within``: the class of the instance, whose own subclasses are asked first (a base
        trainer's ``self.train_loader``: what its subclasses set, not what any class sets)."""
        if self._stores_by_attr is None:
            self._stores_by_attr = {}
            for info in self.project.eager_modules():
                for store in info.summary.stores:
                    if isinstance(store.target, Name) and store.kind == "assign":
                        self._stores_by_attr.setdefault(store.attr, []).append((info.key, store))
        stores = self._stores_by_attr.get(name, ())
        heirs = {(c.module, c.qualname) for c in self.subclasses(within)} if within is not None and stores else set()
        own = [(module, store) for module, store in stores if self._store_class(module, store) in heirs]
        key = (name, frozenset(heirs)) if own else name  # the subclasses' stores when they make some, else every class's
        found = self._duck.get(key)
        if found is not None:
            return found
        self._duck[key] = UNKNOWN_RESULT  # recursion guard
        parts = []
        classes = set()
        for module, store in own or stores:
            function = self.project.function(module, store.scope)
            if function is None or function.scope_kind != "class" or not function.params \
                    or function.params[0].name != store.target.id:
                continue
            classes.add((module, function.scope))
            owner = Inst(Cls(module, function.scope))
            values = tuple(f for f in self.eval(store.value, Ctx(module, function.qualname, None, None, owner))
                           if not isinstance(f.obj, Top))  # a copy of the attribute from elsewhere says nothing
            if not all(self._holds_loaders(f.obj) for f in values):
                return UNKNOWN_RESULT
            parts.append(extend(values, Step(module, store.span, f"`.{name}` is a DataLoader wherever the project sets it")))
        result = join(parts) if any(parts) and len(classes) <= 3 else UNKNOWN_RESULT
        self._duck[key] = result
        return result

    def heir_attribute(self, name: str, cls: Cls) -> Results:
        """``self.<name>`` on an instance of ``cls`` whose class is not known, when ``cls`` never
        sets it and its subclasses do (at most ``MAX_HEIRS_SETTING`` of them): what they set
        (a base trainer's ``self.train_set`` that the subclass's ``setup()`` builds, read by a
        callback handed the trainer). Otherwise unknown."""
        key = ("heirs", name, cls)
        found = self._duck.get(key)
        if found is not None:
            return found
        self._duck[key] = UNKNOWN_RESULT  # recursion guard
        setters = [sub for sub in self.subclasses(cls) if any(
            store.kind != "del" for _, store in self.self_stores(sub).get(name, ()))]
        result = UNKNOWN_RESULT
        if setters and len(setters) <= MAX_HEIRS_SETTING:
            result = join(self._class_attribute_value(Inst(sub), name) for sub in setters)
        self._duck[key] = result
        return result

    def _holds_loaders(self, obj, depth: int = 0) -> bool:
        """A loader, or a dict/list of loaders (``self.test_loader[name]["query"]``, two levels
        deep at most; ``None`` placeholders filled in later do not count)."""
        if isinstance(obj, Managed) or (isinstance(obj, Inst) and self.is_loader(obj)):
            return True
        if isinstance(obj, Container) and depth < 2:
            items = [f.obj for f in self.container_values(obj) if f.obj != Lit(None)]
            return bool(items) and all(self._holds_loaders(item, depth + 1) for item in items)
        return False

    def item(self, value: Item, ctx: Ctx) -> Results:
        parts = []
        keys = None
        for found in self.eval(value.base, ctx):
            obj = found.obj
            if isinstance(obj, Container):
                if keys is None:
                    keys = self.eval(value.key, ctx)
                key = keys[0].obj if len(keys) == 1 and isinstance(keys[0].obj, Lit) else None
                choices = literal_choices(keys) if obj.kind == "dict" and key is None and len(keys) > 1 else None
                if choices is not None:  # one key per element of a literal table
                    parts.extend(self._entry(obj, Lit(choice)) for choice in choices)
                elif obj.kind == "dict":
                    parts.append(self._entry(obj, key))
                elif value.key == SLICE:
                    parts.append((found,))  # ``batches[rank::world]``: a part of the same list, not an item
                elif key is not None and isinstance(key.value, int):
                    parts.append(self.element_at(found, key.value))
                else:
                    parts.append(self.container_values(obj))
            elif isinstance(obj, Batch):
                keys = keys if keys is not None else self.eval(value.key, ctx)
                parts.append(UNKNOWN_RESULT if _tensor_index(keys) else (found,))
            elif obj == SYS_MODULES and type(value.key) is Name and value.key.id == "__name__":
                parts.append(one(Mod(ctx.module), found.trail))  # ``getattr(sys.modules[__name__], spec["name"])``
            elif isinstance(obj, (Cls, Ext)) and isinstance(value.base, (Name, Attr)):
                parts.append((found,))  # a subscripted generic: ``Dataset[T_co]``
            elif isinstance(obj, Inst) and self.is_pyg_dataset(obj) and self._indices_key(value, ctx):
                parts.append((found,))  # ``dataset[:n]``, ``dataset[split["train"]]``: the same dataset, fewer items
            elif isinstance(obj, Inst) and obj.cls == ASDICT and obj.site is not None and \
                    type(value.key) is Const and type(value.key.value) is str:
                parts.append(self.asdict_item(obj, value.key.value) or UNKNOWN_RESULT)  # ``asdict(cfg)["type"]``
            elif isinstance(obj, Inst) and obj.cls == GLOBALS and obj.site is not None:
                keys = keys if keys is not None else self.eval(value.key, ctx)
                parts.append(self._global_items(obj.site.module, keys))
            elif isinstance(obj, Inst) and isinstance(obj.cls, Ext) and obj.cls.qualname == "builtins.vars" \
                    and obj.site is not None:  # ``cfg = vars(parser.parse_args())``, then ``cfg["workers"]``
                keys = keys if keys is not None else self.eval(value.key, ctx)
                parts.append(self._vars_item(obj, keys))
            elif isinstance(obj, Inst) and isinstance(obj.cls, Ext) and not self.is_loader(obj):
                keys = keys if keys is not None else self.eval(value.key, ctx)
                index = keys[0].obj.value if len(keys) == 1 and type(keys[0].obj) is Lit else None
                known = self.libraries.part(self, obj, index) if type(index) is int and index >= 0 else None
                read = value.key == SLICE or type(value.key) is Seq or (keys and all(_value_key(f.obj) for f in keys))
                parts.append(known if known is not None  # ``parser.parse_args_into_dataclasses()[0]``
                             else one(Inst(Ext(f"{obj.cls.qualname}{'[:]' if read else '[]'}")), found.trail))  # ``h5["images"]``: part of it; ``[:]``: its values read out
            elif isinstance(obj, Iterated) and parsed_table(obj) is not None:
                parts.append(one(Inst(Ext(f"{parsed_table(obj)}[]")), found.trail))  # ``rec["props"]`` of a record
            elif isinstance(obj, (Config, Hparams)):  # ``cfg["data"]``, ``self.hparams["lr"]``: a named entry
                keys = keys if keys is not None else self.eval(value.key, ctx)
                key = keys[0].obj if len(keys) == 1 and isinstance(keys[0].obj, Lit) else None
                if key is None or not isinstance(key.value, str):
                    parts.append(UNKNOWN_RESULT)
                else:
                    parts.append(configfiles.member(self, found, key.value) if isinstance(obj, Config)
                                 else self.hparam(obj, key.value))
            elif isinstance(obj, Varargs):
                keys = keys if keys is not None else self.eval(value.key, ctx)
                key = keys[0].obj if len(keys) == 1 and isinstance(keys[0].obj, Lit) else None
                if key is not None and type(key.value) is int:
                    parts.append(self.vararg_at(obj, key.value) or UNKNOWN_RESULT)
                else:
                    parts.append(join([self.vararg_values(obj), UNKNOWN_RESULT]))
            elif isinstance(obj, Kwargs):
                keys = keys if keys is not None else self.eval(value.key, ctx)
                key = keys[0].obj if len(keys) == 1 and isinstance(keys[0].obj, Lit) else None
                got = self.kwargs_item(obj, key.value) if key is not None and isinstance(key.value, str) else None
                parts.append(got if got is not None else UNKNOWN_RESULT)
            else:
                parts.append(UNKNOWN_RESULT)
        return join(parts)

    def is_pyg_dataset(self, inst: Inst) -> bool:
        """An instance of a PyTorch Geometric dataset (of the library, or a project subclass)."""
        cls = inst.cls
        if isinstance(cls, Ext):
            name = cls.qualname  # the class itself, not what a call on one gives (``QM9(root).get(0)``)
            return "(" not in name and (name.startswith(PYG_DATASETS) or name in PYG_DATASET_BASES)
        return isinstance(cls, Cls) and any(isinstance(item, Ext) and item.qualname in PYG_DATASET_BASES
                                            for item in self.mro(cls))

    def _indices_key(self, value: Item, ctx: Ctx) -> bool:
        """A subscript key that selects several items: a slice, a list display, or values among
        which a list, an array or a tensor, and no literal (an index: ``dataset[0]``)."""
        if value.key == SLICE or (type(value.key) is Seq and value.key.kind == "list"):
            return True
        keys = self.eval(value.key, ctx)
        return not any(type(f.obj) is Lit for f in keys) and any(
            (type(f.obj) is Container and f.obj.kind in ("list", "tuple"))
            or (type(f.obj) is Inst and type(f.obj.cls) is Ext and f.obj.cls.qualname.startswith(("torch.", "numpy.")))
            for f in keys)

    def _global_items(self, module: str, keys: Results) -> Results:
        """``globals()[name]``: the module's global of each name ``name`` may be (a builder
        picking a class by a config's ``type``), unknown unless every one is a known string."""
        names = literal_choices(keys, str)
        if names is None:
            return UNKNOWN_RESULT
        return join(self.global_name(module, name) for name in names)

    def _entry(self, container: Container, key: Optional[Lit]) -> Results:
        """``d[key]`` of a dict display: the entry, or every value for a key not known (a
        registry's: unknown, since what a config names may be registered elsewhere)."""
        got = self.dict_item(container, key.value) if key is not None else None
        if got is None and key is not None and type(key.value) is str and not container.value.keys:
            got = self._registered_on_demand(container, key.value)
        if got is None and self.is_registry(container):
            got = UNKNOWN_RESULT  # a registry read under a key not known: what a config names
        return got if got is not None else self.container_values(container)

    def _registered_on_demand(self, container: Container, key: str) -> Optional[Results]:
        """``key`` registered in the empty dict ``container`` (a registry) by a decorated
        definition of a module the pre-filter skipped (``@COLLATE_FNS.register_module(name=
        "PaddedPointCollate")`` in a ``collate.py`` that mentions no dataset): the modules of the
        project whose text names the key beside a decorator, among those a module summarised
        up front imports (a decorator registers only in an imported module), are summarised and
        their registrations read. Memoised per registry and key."""
        memo_key = (container.ctx.module, id(container.value), key)
        if memo_key in self._on_demand:
            return self._on_demand[memo_key]
        self._on_demand[memo_key] = None  # recursion guard
        info = self.project.modules.get(container.ctx.module)
        named = (f'"{key}"', f"'{key}'", f"class {key}", f"def {key}")  # the key written out, or a definition
        found: List[Results] = []
        for other, text in self.project.registering_skipped(info.boundary, REGISTERING) if info is not None else ():
            if other.key == info.key or key not in text or not any(form in text for form in named):
                continue  # neither a key written out nor a definition of that name
            registered = registrations.registered_by(self, [other.key])
            found.extend(value for k, value in registered.entries.get(info.key, {}).get(id(container.value), ())
                         if k == key)
        result = join(found) if found else None
        self._on_demand[memo_key] = result
        return result

    @bounded(None)
    def dict_item(self, container: Container, key) -> Optional[Results]:
        display = container.value
        if not isinstance(display, DictDisplay):
            return None
        stored = self._stored(container, key)
        overlay: Optional[Results] = None  # a config file's mapping splatted over the entries before it
        step: Optional[Step] = None
        for k, v in reversed(tuple(zip(display.keys, display.values))):  # the last entry for a key wins
            if k is None:
                nested = self.splat_lookup(v, container.ctx, key) if isinstance(key, str) else None
                if nested is not None and overlay is None and nested == configfiles.UNKNOWN_RESULT:
                    overlay = nested
                    step = self._overlay_step(v, container.ctx)
                    continue
                if nested is not None:
                    return join([self._under(nested, overlay, step)] + stored)
                continue
            if isinstance(k, Const) and k.value == key:
                found = self.eval(v, container.ctx)
                if stored:  # ``{"train": None}`` filled in later: what is stored replaces the placeholder
                    found = tuple(f for f in found if f.obj != Lit(None))
                return join([self._under(found, overlay, step)] + stored)
        if overlay is not None:
            return join([overlay] + stored)
        return join(stored) if stored else None

    @staticmethod
    def _under(found: Results, overlay: Optional[Results], step: Optional[Step]) -> Results:
        """A default a config file read at run time may replace (``{**DEFAULTS,
        **yaml.safe_load(f)}``): the value, unless the file sets it; like an argparse default,
        it decides no choice (``externals.overridable``). Without a place to show, the file's
        unknown stays."""
        if overlay is None:
            return found
        return extend(found, step) if step is not None else overlay

    def _overlay_step(self, value: Value, ctx: Ctx) -> Optional[Step]:
        """Where a splatted config overlay is read (the call in ``yaml.safe_load(f) or {}``, or
        in the assignment of the local name splatted)."""
        for _ in range(MAX_OVERLAY_STEPS):
            if type(value) is Op and value.args:
                value = value.args[0]
            elif type(value) is Seq and value.kind == "comp" and len(value.items) == 1:
                value = value.items[0]  # ``{k: v for k, v in vars(args).items() if v is not None}``
            elif type(value) in (Part, Element):
                value = value.base
            elif type(value) is Name:
                function = self.project.function(ctx.module, ctx.scope)
                bindings = function.bindings.get(value.id, ()) if function is not None else ()
                if len(bindings) != 1 or bindings[0].kind not in ("assign", "loop"):
                    return None
                value = bindings[0].value
            if type(value) is Call:
                site = self.project.call(SiteRef(ctx.module, value.index))
                return Step(ctx.module, site.span, externals.CONFIG_OVERLAY) if site is not None else None
        return None

    def _own_registrations(self, module: str) -> "registrations.Registered":
        """The registrations a module summarised on demand makes into its own registries
        (those of the modules summarised up front are in ``registered``)."""
        info = self.project.modules.get(module)
        if info is None or info.eager:
            return registrations.Registered({}, set())
        return registrations.registered_by(self, [module])

    def registered(self) -> "registrations.Registered":
        """What decorators put in the project's registries (``dslint.model.registrations``), once per run."""
        if self._registered is None:
            self._registered = registrations.Registered({}, set())  # recursion guard: lookups made while indexing
            indexed = set(self._item_stores)
            self._tables_busy += 1
            try:
                self._registered = registrations.registered(self)
            finally:
                self._tables_busy -= 1
            for module in set(self._item_stores) - indexed:
                del self._item_stores[module]  # indexed without the registrations: again when next asked
        return self._registered

    def external_lookup(self, registry: Inst, ref: SiteRef, ctx: Ctx) -> Results:
        """``REGISTRY.get(name)`` of an installed registry (``libraries.EXTERNAL_REGISTRIES``):
        what the project's decorated definitions registered under that name (its modules
        summarised up front, and the skipped ones they import that register); unknown for a
        name not known or not registered here."""
        return self.registered_under(registry, self.keyword_at(ref, ctx, "name", 0) or UNKNOWN_RESULT)

    def registered_under(self, registry, keys: Results) -> Results:
        """What the project registered in the installed registry ``registry`` under each name
        ``keys`` may be; unknown for a name not known or not registered here."""
        names = literal_choices(keys, str)
        if names is None or not isinstance(registry, Inst) or registry.site is None:
            return UNKNOWN_RESULT
        if self._external is None:
            self._external = {}  # recursion guard
            modules = [info.key for info in self.project.eager_modules()]
            for boundary in dict.fromkeys(info.boundary for info in self.project.eager_modules()):
                modules.extend(other.key for other, _ in self.project.registering_skipped(boundary, REGISTERING))
            self._external = registrations.external(self, modules)
        entries = self._external.get(registry.site, {})
        parts = [join(entries[name]) if name in entries else UNKNOWN_RESULT for name in names]
        return join(parts)

    def is_registry(self, container: Container) -> bool:
        """Whether decorators register definitions in this dict (``registrations``)."""
        return id(container.value) in self.registered().entries.get(container.ctx.module, {})

    def item_stores(self, container: Container) -> List[Tuple[object, Results]]:
        """(key, value) of ``x[key] = value`` statements of the container's module whose ``x`` is
        this display (``loaders = {}`` ... ``loaders["train"] = DataLoader(...)``, also through
        ``self.loaders[name]["query"] = ...``). Key None: not a literal."""
        index = self._item_stores.get(container.ctx.module)
        if index is None:
            index = self._item_stores[container.ctx.module] = {}  # recursion guard
            self._tables_busy += 1
            try:
                index.update(self._index_item_stores(container.ctx.module))
            finally:
                self._tables_busy -= 1
        return index.get(id(container.value), [])

    def display_item_stores(self, container: Container) -> List[Tuple[object, Ctx]]:
        """(store, context) of the ``x[key] = value`` assignments of the function that builds the
        dict or list display ``container`` whose ``x`` is that display (``self.h5 = {}`` then
        ``self.h5[name] = h5py.File(path)`` in a loop): what it is filled with where it is made."""
        module, scope = container.ctx.module, container.ctx.scope
        summary = self.project.summary(module)
        ctx = self.context(module, scope)
        return [(store, ctx) for store in (summary.stores if summary is not None else ())
                if store.attr == "[]" and store.kind == "assign" and store.scope == scope
                and any(isinstance(f.obj, Container) and f.obj.value is container.value
                        for f in self.eval(store.target, ctx))]

    def _index_item_stores(self, module: str) -> Dict[int, list]:
        summary = self.project.summary(module)
        stores = [(n, s) for n, s in enumerate(summary.stores) if s.attr == "[]" and s.kind == "assign"] \
            if summary is not None else []
        out: Dict[int, list] = {}
        if len(stores) > MAX_ITEM_STORES:
            return out  # numeric code: too many to evaluate, dict registries are not followed there
        registered = self.registered()
        own = self._own_registrations(module)
        for display, entries in [*registered.entries.get(module, {}).items(), *own.entries.get(module, {}).items()]:
            out.setdefault(display, []).extend(entries)
        sources: Dict[int, list] = {}
        for number, store in stores:
            if (module, number) in registered.replaced or (module, number) in own.replaced:
                continue  # a decorator's ``REGISTRY[name] = cls``: its registrations stand for it
            ctx = self.context(module, store.scope)
            for found in self.eval(store.target, ctx):
                if isinstance(found.obj, Container) and isinstance(found.obj.value, DictDisplay):
                    # a key known to be one of a few literals (``loaders[split] = ...`` in a loop
                    # over ``{"train": ..., "val": ...}.items()``) filling a dict that starts empty:
                    # stored under each of them (over a dict of defaults, which entry each value
                    # replaces is not followed)
                    keys = literal_choices(self.eval(store.key, ctx)) or (None,)
                    if len(keys) > 1 and any(k is not None for k in found.obj.value.keys):
                        keys = (None,)
                    step = Step(module, store.span, "stored in the dict here")
                    value = extend(self.eval(store.value, ctx), step)
                    for key in keys:
                        out.setdefault(id(found.obj.value), []).append((key, value))
                        sources.setdefault(id(found.obj.value), []).append((key, store.value, store.scope, step))
        for display, key, value, source in self._dict_updates(module):
            out.setdefault(display, []).append((key, value))
            if source is not None:
                sources.setdefault(display, []).append((key,) + source)
        self._store_sources[module] = sources
        return out

    def _stored(self, container: Container, key) -> List[Results]:
        """What ``x[key] = v`` and ``x.update(key=v)`` statements put in the display under
        ``key``. Those the function building a ``dict(...)`` makes are evaluated in the
        display's own context (``loader_args.update(sampler=sampler)`` with the ``sampler`` of
        this call, not of every call); a written ``{...}`` keeps what the index evaluated."""
        entries = [value for k, value in self.item_stores(container) if k == key]
        ctx = container.ctx
        if container.site is None or (ctx.call is None and ctx.self_obj is None):
            return entries  # a written ``{...}``: its stores as indexed (contexts not told apart)
        sources = self._store_sources.get(ctx.module, {}).get(id(container.value))
        if not sources:
            return entries
        memo_key = (container, key)
        found = self._stored_memo.get(memo_key)
        if found is None:
            self._stored_memo[memo_key] = entries  # recursion guard: the values indexed without this context
            found = self._stored_memo[memo_key] = self._stored_here(container, key, entries, sources)
        return found

    def _stored_here(self, container: Container, key, entries: List[Results], sources) -> List[Results]:
        ctx = container.ctx
        local = [(expr, step) for k, expr, scope, step in sources if k == key and scope == ctx.scope]
        if not local:
            return entries
        steps = {step for _, step in local}
        kept = [value for value in entries if not (value and value[0].trail and value[0].trail[0] in steps)]
        return kept + [extend(self.eval(expr, ctx), step) for expr, step in local]

    def _dict_updates(self, module: str):
        """(display id, key, values) of ``kwargs.update(k=v)`` and ``kwargs.update(other)``
        calls on a local dict (``train_kwargs.update(cuda_kwargs)``): what they put in."""
        summary = self.project.summary(module)
        if summary is None:
            return
        updates = [(i, site) for i, site in enumerate(summary.calls) if isinstance(site.func, Attr)
                   and site.func.name == "update" and isinstance(site.func.base, Name) and len(site.args) <= 1]
        for index, site in updates[:MAX_ITEM_STORES]:
            ctx = self.context(module, site.scope)
            targets = [f.obj.value for f in self.eval(site.func.base, ctx)
                       if isinstance(f.obj, Container) and isinstance(f.obj.value, DictDisplay)]
            if not targets:
                continue
            step = Step(module, site.span, "put in the dict here")
            items = [(name, extend(self.eval(value, ctx), step), (value, site.scope, step))
                     for name, value in site.keywords if name]
            for found in (self.eval(site.args[0], ctx) if site.args else ()):
                other = found.obj
                if isinstance(other, Container) and isinstance(other.value, DictDisplay):
                    items += [(k.value, extend(self.eval(v, other.ctx), step), None) for k, v in
                              zip(other.value.keys, other.value.values) if isinstance(k, Const)]
            for display in targets:
                for key, value, source in items:
                    yield id(display), key, value, source

    @bounded(UNKNOWN_RESULT)
    def container_values(self, container: Container) -> Results:
        """What a display holds: its items, and what its function appends to it later
        (``steps = [Resize()]`` ... ``steps.append(Lambda(f))``)."""
        display = container.value
        if isinstance(display, DictDisplay):
            return join([join(self.eval(v, container.ctx) for v in display.values)]
                        + [value for _, value in self.item_stores(container)])
        if isinstance(display, Seq):
            return join([self._display_items(container), self.appended(container)])
        return UNKNOWN_RESULT

    def _display_items(self, container: Container) -> Results:
        """The items a list/tuple/set display writes out (``[*head, x]`` holds those of ``head``).
        Memoised: displays built from displays (``path = (*path, key)`` in a recursion) are
        asked again along every way to them (a cycle through one answers unknown)."""
        if not container.value.items or not any(type(v) is Starred for v in container.value.items):
            return self._written_items(container)  # no display inside: nothing to share
        return memoised(self._display_memo, container, self._written_items, container)

    def _written_items(self, container: Container) -> Results:
        ctx = container.ctx
        return join(join(self._spread(f) for f in self.eval(v.value, ctx)) if type(v) is Starred else self.eval(v, ctx)
                    for v in container.value.items)

    def _spread(self, found: Found) -> Results:
        """The elements ``*value`` writes out in a display, or the item of ``for i, item in
        enumerate(value)``: a list's items and what was appended to it (``ops.append(Lambda(f))``
        ... ``ops += [ToTensor()]``; ``tasks.append(Subset(...))`` ... ``enumerate(tasks)``), else
        what iterating gives. (``iterate`` itself leaves appended items out: the loops over loaders
        are found with it, and a loop over kept batches is not a loop over their loader; a plain
        loop variable takes them only from a list built in another function, ``_loop_items``,
        since a list of its own function may be filled from the loop itself.)"""
        obj = found.obj
        if type(obj) is Container and type(obj.value) is Seq and obj.value.kind == "list":
            return self.container_values(obj)
        return self.iterate(found)

    def appended(self, container: Container, in_loops: bool = False, attributes: bool = False,
                 straight: bool = False) -> Results:
        """Values ``append``/``extend``/``insert`` add to a list display held by a local name of
        its function, or (not ``in_loops``, or ``attributes``) by an attribute it stores the
        display in (``self.ops = []`` ... ``self.ops.append(f)``); ``in_loops``: only the calls
        made in a loop, one element per pass. Memoised: asked again for every evaluation of a
        loop over the list (a cycle through it answers unknown)."""
        return memoised(self._appended, (container, in_loops, attributes, straight), self._appended_to, container,
                        in_loops, attributes, straight)

    def _display_names(self, module: str, function: FunctionSummary) -> Dict[int, Set[str]]:
        """id of a list display → the local names of ``function`` bound to it (``ops = []``,
        ``xs, ys = [], []``): indexed once per function."""
        key = (module, function.qualname)
        found = self._display_names_of.get(key)
        if found is None:
            found = self._display_names_of[key] = {}
            for name, bindings in function.bindings.items():
                for binding in bindings:
                    for value in (binding.value, _unpacked(binding.value)):
                        if type(value) is Seq:
                            found.setdefault(id(value), set()).add(name)
        return found

    def _appended_to(self, container: Container, in_loops: bool, attributes: bool, straight: bool = False) -> Results:
        ctx = container.ctx
        function = self.project.function(ctx.module, ctx.scope) if ctx.scope else None
        if function is None or not isinstance(container.value, Seq) or container.value.kind != "list":
            return ()
        display = container.value
        names = self._display_names(ctx.module, function).get(id(display), ())
        # per-pass appends (``in_loops``: DSL501's per-sample records) only through local names:
        # an attribute filled in a loop is as often one entry per class or patch size
        attrs = self._stored_display(ctx.module).get(id(container.value), ()) if attributes or not in_loops else ()
        if not names and not attrs:
            return ()
        summary = self.project.summary(ctx.module)
        parts = []
        scopes = [(ctx.scope, names, attrs, ctx)]
        if attributes and attrs and function.scope_kind == "class" and function.params:
            own = {attr for name, attr in attrs if name == function.params[0].name}
            scopes += [(qualname, (), {(method.params[0].name, attr) for attr in own}, self.context(ctx.module, qualname))
                       for qualname, method in summary.functions.items()
                       if own and method.scope == function.scope and qualname != ctx.scope and method.params]
        for scope, local, stored, where in scopes:  # the attribute is filled by the class's other methods too
            for index in sites_in_scope(self.project, ctx.module, scope):
                site = summary.calls[index]
                func = site.func
                if not (isinstance(func, Attr) and func.name in ("append", "extend", "insert") and site.args
                        and (site.loop >= 0 or not in_loops or scope != ctx.scope)
                        and not (straight and site.loop >= 0)):
                    continue
                base = func.base
                if not ((type(base) is Name and base.id in local) or
                        (type(base) is Attr and type(base.base) is Name and (base.base.id, base.name) in stored)):
                    continue
                for found in self.eval(site.args[-1], where):
                    if func.name == "extend" and isinstance(found.obj, Container):
                        parts.append(self.container_values(found.obj))
                    else:
                        parts.append((found,))
        return join(parts)

    def _stored_display(self, module: str) -> Dict[int, set]:
        """id of a list display → the (name, attribute) pairs a statement of its module stores
        it in (``self.ops = []``)."""
        found = self._stored_displays.get(module)
        if found is None:
            found = self._stored_displays[module] = {}
            summary = self.project.summary(module)
            for store in summary.stores if summary is not None else ():
                if (store.kind == "assign" and type(store.value) is Seq and store.value.kind == "list"
                        and type(store.target) is Name):
                    found.setdefault(id(store.value), set()).add((store.target.id, store.attr))
        return found

    @bounded(UNKNOWN_RESULT)
    def starred_at(self, value: Value, ctx: Ctx, index: int) -> Optional[Results]:
        """Element ``index`` of a ``*value`` argument; None when every value it may be is a
        caller's ``*args`` with fewer positionals than that (not given: the default applies)."""
        parts = []
        missing = False
        for found in self.eval(value, ctx):
            obj = found.obj
            if type(obj) is Varargs:
                got = self.vararg_at(obj, index)
                if got is None:
                    missing = True
                    continue
                parts.append(got)
            elif isinstance(obj, Container) and isinstance(obj.value, Seq) and obj.kind in ("tuple", "list") \
                    and not any(isinstance(item, Starred) for item in obj.value.items) \
                    and not 0 <= index < len(obj.value.items):
                missing = True  # ``*(batch_size, True)`` holds two positionals: the rest are keywords or defaults
            else:
                parts.append(self.element_at(found, index))
        if not parts:
            return None if missing else UNKNOWN_RESULT
        if missing:
            parts.append(UNKNOWN_RESULT)  # given by some callers only
        return join(parts)

    def vararg_call(self, varargs: Varargs) -> Optional[Tuple[SiteRef, int, Ctx]]:
        """(the call binding a ``*args`` parameter, the index of the first positional argument
        it collects there, the context of those arguments), or None."""
        ctx = varargs.ctx
        function = self.project.function(varargs.func.module, varargs.func.qualname)
        if ctx.call is None or function is None:
            return None
        site = self.project.call(ctx.call)
        skip = self._receiver_skip(function, ctx)
        before = 0
        for param in function.params:
            if param.kind == "vararg":
                break
            if param.kind in ("pos", "posonly"):
                before += 1
        return ctx.call, max(0, before - skip) + ctx.shift, ctx.caller or self.context(ctx.call.module, site.scope)

    def _vararg_args(self, varargs: Varargs):
        call = self.vararg_call(varargs)
        if call is None:
            return None
        ref, first, caller = call
        return self.project.call(ref).args[first:], caller

    def vararg_at(self, varargs: Varargs, index: int) -> Optional[Results]:
        """``args[index]`` of a bound ``*args``: the caller's positional argument there, or
        None when the caller passed fewer (memoised: forwarding chains ``f(*args)`` →
        ``g(*args)`` reach the same question from many callers)."""
        return memoised(self._varargs, (varargs, index), self._vararg_at, varargs, index)

    @bounded(UNKNOWN_RESULT)
    def _vararg_at(self, varargs: Varargs, index: int) -> Optional[Results]:
        if index is ALL_VARARGS:
            return self._vararg_values(varargs)
        call = self._vararg_args(varargs)
        if call is None:
            return UNKNOWN_RESULT
        args, caller = call
        if index < 0:
            if any(isinstance(arg, Starred) for arg in args):
                return UNKNOWN_RESULT
            return self.eval(args[index], caller) if -len(args) <= index else None
        for position, arg in enumerate(args):
            if isinstance(arg, Starred):
                return self.starred_at(arg.value, caller, index - position)
            if position == index:
                return self.eval(arg, caller)
        return None

    def vararg_values(self, varargs: Varargs) -> Results:
        """Every positional argument a bound ``*args`` collects."""
        return self.vararg_at(varargs, ALL_VARARGS) or ()

    @bounded(UNKNOWN_RESULT)
    def _vararg_values(self, varargs: Varargs) -> Results:
        call = self._vararg_args(varargs)
        if call is None:
            return UNKNOWN_RESULT
        args, caller = call
        return join([join(self.iterate(f) for f in self.eval(arg.value, caller)) if isinstance(arg, Starred)
                     else self.eval(arg, caller) for arg in args]) if args else ()

    def element_at(self, found: Found, index: int) -> Results:
        obj = found.obj
        if type(obj) is Varargs:
            return self.vararg_at(obj, index) or UNKNOWN_RESULT
        if isinstance(obj, Container) and obj.kind == "pair" and index in (0, 1):  # an item of ``d.items()``
            entries = Container("dict", obj.value, obj.ctx)
            return self.iterate(Found(entries)) if index == 0 else self.container_values(entries)
        if isinstance(obj, Container) and isinstance(obj.value, Seq) and obj.kind in ("tuple", "list"):
            items = obj.value.items
            if any(isinstance(i, Starred) for i in items) or not -len(items) <= index < len(items):
                return self.container_values(obj)
            return self.eval(items[index], obj.ctx)
        if isinstance(obj, Batch):
            return (found,)
        if isinstance(obj, Inst) and isinstance(obj.cls, Ext):
            return self.libraries.part(self, obj, index) or UNKNOWN_RESULT
        return UNKNOWN_RESULT

    def part(self, found: Found, index: int) -> Results:
        if index < 0:
            return UNKNOWN_RESULT
        return self.element_at(found, index)

    # calls ------------------------------------------------------------------------------
    def call(self, ref: SiteRef, ctx: Ctx) -> Results:
        site = self.project.call(ref)
        func = site.func
        if isinstance(func, Attr):
            parent = self.super_method(func.base, func.name, ctx)
            if parent is not None:
                return self.invoke(Found(parent), ref, ctx)
            return join(self.method_call(f, func.name, ref, ctx) for f in self.eval(func.base, ctx))
        return join(self.invoke(f, ref, ctx) for f in self.eval(func, ctx))

    @bounded(UNKNOWN_RESULT)
    def method_call(self, receiver: Found, name: str, ref: SiteRef, ctx: Ctx) -> Results:
        obj = receiver.obj
        if name in PYG_SUBSET_METHODS and isinstance(obj, Inst) and self.is_pyg_dataset(obj):
            return (receiver,)  # ``QM9(root).shuffle()``: the same dataset, in another order
        if isinstance(obj, Inst) and obj.cls == ASDICT and obj.site is not None and name in ("get", "pop"):
            keys = self.keyword_at(ref, ctx, None, 0) or UNKNOWN_RESULT  # ``kwargs = asdict(cfg)``, ``kwargs.pop("type")``
            if len(keys) == 1 and type(keys[0].obj) is Lit and type(keys[0].obj.value) is str:
                return self.asdict_item(obj, keys[0].obj.value) or self.keyword_at(ref, ctx, None, 1) or one(Lit(None))
        if isinstance(obj, Inst) and obj.cls == GLOBALS and obj.site is not None and name == "get":
            found = self._global_items(obj.site.module, self.keyword_at(ref, ctx, None, 0) or UNKNOWN_RESULT)
            default = self.keyword_at(ref, ctx, None, 1)  # ``globals().get(name)``: the global, or the default
            return join([found, default or one(Lit(None))])
        if isinstance(obj, Inst) and isinstance(obj.cls, Ext):
            if name in BAG_COPIES and obj.cls.qualname in ATTRIBUTE_BAGS:
                return (receiver,)  # ``_C.clone()``: the same entries
            if name == "get" and obj.cls.qualname in EXTERNAL_REGISTRIES and obj.site is not None:
                return self.external_lookup(obj, ref, ctx)  # ``READER_REGISTRY.get(cfg.DATA.READER)``
            if name == "build" and obj.cls.qualname in EXTERNAL_REGISTRIES and obj.site is not None:
                return self.instantiate_call(ref, ctx)  # ``TRANSFORMS.build(dict(type="Resize", ...))``
            handled = self.libraries.method_call(self, obj, name, ref, ctx)
            if handled is not None:
                return handled
            return one(Inst(Ext(f"{obj.cls.qualname}().{name}"), ref, ctx))
        if isinstance(obj, Batch):
            return externals.tensor_method(self, obj, name, ref, ctx)
        if isinstance(obj, Namespace):
            return UNKNOWN_RESULT
        if isinstance(obj, Kwargs) and name in ("get", "pop", "setdefault"):
            return externals.kwargs_get(self, obj, ref, ctx)
        if isinstance(obj, Container) and obj.kind == "dict" and name in ("get", "pop", "setdefault"):
            return externals.dict_get(self, obj, ref, ctx)
        if isinstance(obj, Container) and obj.kind == "dict" and name == "copy":
            return (receiver,)  # the same entries (``kwargs = BASE.copy()``)
        if isinstance(obj, Container) and obj.kind == "dict" and name in ("values", "items", "keys"):
            # a view: iterating ``values()`` gives the entries (also those stored later,
            # ``loaders[task] = DataLoader(...)``), ``items()`` (key, entry) pairs
            return (receiver,) if name == "keys" else one(Container(name, obj.value, obj.ctx))
        if isinstance(obj, Gen) and name in ("__next__", "send"):
            return self.iterate(receiver)
        if isinstance(obj, Config) and name == "get":
            return externals.config_get(self, receiver, ref, ctx)
        if isinstance(obj, Mod) and name == "get" and self._config_module(obj.module):
            return self._config_module_get(receiver, ref, ctx)  # ``cfg.get("custom_hooks", [])``
        if type(obj) is Lit and type(obj.value) is str:
            return externals.string_method(self, receiver, name, ref, ctx)
        if isinstance(obj, Inst) and isinstance(obj.cls, Cls):
            described = self._described_method(obj.cls, name)
            if described is not None:  # the library's own source is linted: its table entry still decides
                return one(Inst(Ext(described), ref, ctx))
            if name in SAME_MODULE_METHODS and self.method(obj.cls, name) is None and self.is_torch_module(obj.cls):
                return (receiver,)  # ``Net().cuda()``, ``model.to(device)``: the module itself
        return join(self.invoke(f, ref, ctx) for f in self.attribute(receiver, name, ctx))

    def _config_module(self, module: str) -> bool:
        """An OpenMMLab config file read with ``Config.fromfile`` (a module binding no ``get`` of
        its own, with ``_base_`` or in a ``configs`` folder)."""
        info = self.project.modules.get(module)
        return info is not None and info.summary is not None and "get" not in info.summary.bindings \
            and mmconfig.is_config(info)

    def _config_module_get(self, receiver: Found, ref: SiteRef, ctx: Ctx) -> Results:
        """``cfg.get(name, default)`` of a config module: the name it (or a base) binds, else the default."""
        names = literal_choices(self.keyword_at(ref, ctx, None, 0) or UNKNOWN_RESULT, str)
        if names is None:
            return UNKNOWN_RESULT
        summary = self.project.summary(receiver.obj.module)
        parts = []
        for name in names:
            bound = name in summary.bindings or mmconfig.base_name(self, receiver.obj.module, name) is not None
            parts.append(self.attribute(receiver, name, ctx) if bound
                         else self.keyword_at(ref, ctx, None, 1) or one(Lit(None)))
        return join(parts)

    def is_torch_module(self, cls: Cls) -> bool:
        """A project subclass of ``torch.nn.Module``."""
        return any(isinstance(item, Ext) and item.qualname in TORCH_MODULES for item in self.mro(cls))

    def _described_method(self, cls: Cls, name: str) -> Optional[str]:
        """The dotted name of ``cls.name`` when the library table describes it (linting
        accelerate's own tree, ``Accelerator.prepare`` is still what the table says)."""
        owner = library_name(self, cls)
        if owner is None:
            return None
        dotted = f"{owner}.{name}"
        return dotted if self.libraries.wrapper_named(dotted) is not None else None

    @bounded(UNKNOWN_RESULT)
    def invoke(self, callee: Found, ref: SiteRef, ctx: Ctx) -> Results:
        obj = callee.obj
        kind = type(obj)
        if kind is Func:
            return self.run_function(obj, ref, ctx, None)
        if kind is Bound:
            own = obj.self_obj
            if type(own) is Inst and own.site is None and type(own.cls) is Cls:
                overrides = self._abstract_overrides(obj.func, own.cls)
                if overrides:  # the method of whichever subclass the instance is of
                    return join([self.run_function(method, ref, ctx, Inst(sub)) for sub, method in overrides[:MAX_CALLERS]]
                                + ([UNKNOWN_RESULT] if len(overrides) > MAX_CALLERS else []))
            return self.run_function(obj.func, ref, ctx, obj.self_obj)
        if kind is Cls:
            return one(Inst(obj, ref, ctx))
        if kind is Ext:
            return externals.call(self, obj.qualname, ref, ctx)
        if kind is Inst:
            if isinstance(obj.cls, Cls):
                method = self.method(obj.cls, "__call__")
                if method is not None:
                    return self.run_function(method, ref, ctx, obj)
                return UNKNOWN_RESULT
            if isinstance(obj.cls, Ext) and obj.cls.qualname in externals.PARTIALS:
                return self.call_partial(obj, ref, ctx)
            return one(Inst(Ext(f"{obj.cls.qualname}()"), ref, ctx))
        return UNKNOWN_RESULT

    @bounded(UNKNOWN_RESULT)
    def run_function(self, func: Func, ref: SiteRef, ctx: Ctx, self_obj: Optional[Obj], shift: int = 0) -> Results:
        function = self.project.function(func.module, func.qualname)
        if function is None:
            return UNKNOWN_RESULT
        inner = self.call_context(func, ref, ctx, self_obj, shift)
        if function.is_generator:
            return one(Gen(func, inner))
        if not function.returns:
            return one(Lit(None))
        return join(self.eval(value, inner) for value in self.returned(function, inner))

    @staticmethod
    def call_context(func: Func, ref: SiteRef, ctx: Ctx, self_obj: Optional[Obj], shift: int = 0) -> Ctx:
        """The context ``func`` runs in when called at ``ref`` from ``ctx``: its parameters bound
        to that call's arguments, the callers' chain cut at ``MAX_CALL_DEPTH``."""
        caller = ctx if ctx.depth() < MAX_CALL_DEPTH else Ctx(ctx.module, ctx.scope, self_obj=ctx.self_obj)
        return Ctx(func.module, func.qualname, ref, caller, self_obj, shift)

    def call_partial(self, partial: Inst, ref: SiteRef, ctx: Ctx) -> Results:
        """Calling ``functools.partial(f, ...)``: ``f`` runs with the partial's arguments first."""
        targets = self.keyword_at(partial.site, partial.ctx, "func", 0) or UNKNOWN_RESULT
        parts = []
        for found in targets:
            if isinstance(found.obj, Func):
                parts.append(self.run_function(found.obj, partial.site, partial.ctx, None, shift=1))
            elif isinstance(found.obj, (Cls, Ext)):
                parts.append(one(Inst(found.obj, ref, ctx)))  # partial(DataLoader, ...)(dataset)
            else:
                parts.append(UNKNOWN_RESULT)
        return join(parts)

    # iteration ---------------------------------------------------------------------------
    @bounded(UNKNOWN_RESULT)
    def iterate(self, found: Found) -> Results:
        obj = found.obj
        kind = type(obj)
        if kind is Inst:
            if self.is_loader(obj):
                return one(Batch(obj), found.trail)
            if isinstance(obj.cls, Ext):
                return self.libraries.iterate(self, obj) or one(Iterated(obj))
            return self._iterate_instance(found)
        if kind is Batch:
            return (found,)
        if kind is Managed:
            return one(Batch(obj), found.trail)
        if kind is Container:
            if obj.kind == "values":
                return self.container_values(Container("dict", obj.value, obj.ctx))
            if obj.kind == "items":
                return one(Container("pair", obj.value, obj.ctx))
            if isinstance(obj.value, DictDisplay):
                return join(self.eval(k, obj.ctx) for k in obj.value.keys if k is not None)
            return self._display_items(obj)
        if kind is Gen:
            function = self.project.function(obj.func.module, obj.func.qualname)
            if function is None:
                return UNKNOWN_RESULT
            return join(self.eval(v, obj.ctx) for v in self.returned(function, obj.ctx))
        if kind is Iterated:
            return (found,)
        if kind is Varargs:
            return self.vararg_values(obj)
        return UNKNOWN_RESULT

    def _iterate_instance(self, found: Found) -> Results:
        """Iterating an instance of a project class: what ``__iter__`` returns is iterated (a
        generator's yields), or ``__next__``'s results when ``__iter__`` returns ``self``."""
        obj = found.obj
        if obj in self._iterating:
            return UNKNOWN_RESULT
        self._iterating.add(obj)
        try:
            method = self.method(obj.cls, "__iter__")
            if method is None:
                return one(Iterated(obj))
            parts = []
            ctx = obj.ctx or self.context(method.module)
            for result in self.run_function(method, obj.site or SiteRef("", -1), ctx, obj):
                if result.obj == obj:
                    following = self.method(obj.cls, "__next__")
                    parts.append(self.run_function(following, obj.site or SiteRef("", -1), ctx, obj)
                                 if following is not None else UNKNOWN_RESULT)
                else:
                    parts.append(self.iterate(result))
            return join(parts)
        finally:
            self._iterating.discard(obj)

    def is_loader(self, inst: Inst) -> bool:
        return self.libraries.loader_spec(self, inst) is not None


def same_object(found, obj) -> bool:
    """The same built object, whatever context it was reached in."""
    if isinstance(obj, Inst) and isinstance(found, Inst):
        return found.cls == obj.cls and found.site == obj.site
    if isinstance(obj, Namespace) and isinstance(found, Namespace):
        return found.parser.site == obj.parser.site
    if isinstance(obj, Container) and isinstance(found, Container):  # one display, whichever call reached it
        return found.value is obj.value and found.ctx.module == obj.ctx.module and found.ctx.scope == obj.ctx.scope
    return found == obj


def scope_ctx(module: str, scope: str) -> Ctx:
    return Ctx(module, scope)


def module_of(project: Project, module: str) -> Optional[ModuleInfo]:
    return project.modules.get(module)


__all__ = ["Resolver", "join", "one", "extend", "TOP", "Top", "PositiveInt", "Varargs"]
