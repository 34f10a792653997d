"""OpenMMLab configurations: the loaders mmengine's ``Runner`` builds from dicts.

mmdet, mmseg, mmpose and the other OpenMMLab projects describe their loaders in config
files, not in code: ``train_dataloader = dict(batch_size=2, num_workers=2,
persistent_workers=True, sampler=dict(...), dataset=dict(...))``. mmengine's
``Runner.build_dataloader`` (mmengine 0.10 ``runner/runner.py``) builds the dataset, the
samplers, ``collate_fn`` and ``worker_init_fn`` itself and passes every other key to
``DataLoader(**cfg)``: a key left out is DataLoader's default (``num_workers`` 0).

A config inherits from others: ``_base_ = ['../_base_/datasets/coco_detection.py', ...]``
(paths relative to the config; ``mmdet::...`` names a config of an installed package). Its
own ``train_dataloader = dict(...)`` is merged into the base's key by key, unless it says
``_delete_=True``. So ``train_dataloader = dict(num_workers=0)`` over a base with
``persistent_workers=True`` builds ``DataLoader(..., num_workers=0, persistent_workers=True)``
and raises: the report users file most about these projects.

Here such a loader is an ``Inst`` of ``Ext("mmengine.config.<name>_config")`` built at the config's
``dict(...)`` call; its arguments are read from that call first, then from the bases'
(``sources``). A base that cannot be read (another package's, a computed path) leaves every
key the known configs do not give unknown, never DataLoader's default. The same loaders
are built from ``Runner(train_dataloader=dict(...))`` in code.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Dict, List, NamedTuple, Optional, Tuple

from ..analysis.summary import Span
from ..analysis.values import FAR, Attr, Call, Const, Name
from .objects import Container, Ctx, Ext, Inst, Lit, SiteRef

if TYPE_CHECKING:
    from .loaders import Source
    from .objects import Results
    from .project import ModuleInfo
    from .resolver import Resolver

LOADER_NAMES = ("train_dataloader", "val_dataloader", "test_dataloader")
PREFIX, SUFFIX = "mmengine.config.", "_config"
NAMES = tuple(PREFIX + name + SUFFIX for name in LOADER_NAMES)  # the loader kinds of the library table
RUNNERS = frozenset({"mmengine.runner.Runner", "mmengine.Runner", "mmengine.runner.runner.Runner"})
CONFIG_FOLDERS = frozenset({"configs", "config"})
MAX_BASES = 16  # configs followed up one inheritance chain


class Chain(NamedTuple):
    """Where a config loader's keys are written, the config's own ``dict(...)`` first, and
    whether every base on the way could be read."""

    sites: Tuple[SiteRef, ...]
    complete: bool


def configured(inst) -> bool:
    """Whether ``inst`` is a loader this module made (its arguments come from ``sources``)."""
    return isinstance(inst, Inst) and isinstance(inst.cls, Ext) and inst.cls.qualname.startswith(PREFIX)


def config_loaders(resolver: "Resolver") -> List[Inst]:
    """The loaders configured by the project: ``<name> = dict(...)`` at module level of a
    config file, and ``dict(...)`` given to ``Runner(<name>=...)`` in code."""
    out: List[Inst] = []
    configs = [info for info in resolver.project.eager_modules() if is_config(info)]
    if configs and _own_builder(resolver) and not _mmengine_runner_used(resolver):
        configs = []  # a project building its loaders from these dicts itself: not mmengine's semantics
    for info in configs:
        for name in LOADER_NAMES:
            site = _dict_site(resolver, info.key, name)
            if site is not None:
                out.append(Inst(Ext(PREFIX + name + SUFFIX), site, Ctx(info.key)))
    out.extend(_runner_loaders(resolver))
    return out


def is_config(info: "ModuleInfo") -> bool:
    """A config file: it inherits (``_base_``), or it sits in a ``configs`` folder and
    configures a loader at module level."""
    summary = info.summary
    if summary is None:
        return False
    if "_base_" in summary.bindings:
        return True
    if not any(name in summary.bindings for name in LOADER_NAMES):
        return False
    parts = os.path.relpath(info.key, info.boundary).split(os.sep)[:-1]
    return any(part in CONFIG_FOLDERS for part in parts)


def _dict_site(resolver: "Resolver", module: str, name: str) -> Optional[SiteRef]:
    """The ``dict(...)`` call module-level ``name`` is bound to at the end of the module
    (one binding reaching it, a call of the builtin ``dict`` with keywords only)."""
    from .resolver import reaching

    summary = resolver.project.summary(module)
    bindings = summary.bindings.get(name) if summary is not None else None
    if not bindings:
        return None
    last = reaching(bindings, FAR, summary.blocks)
    if len(last) != 1 or last[0].kind != "assign" or type(last[0].value) is not Call:
        return None
    index = last[0].value.index
    site = summary.calls[index]
    if not (isinstance(site.func, Name) and site.func.id == "dict") or site.args:
        return None
    if not any(isinstance(f.obj, Ext) and f.obj.qualname == "builtins.dict"
               for f in resolver.eval(site.func, Ctx(module))):
        return None  # ``dict`` rebound
    return SiteRef(module, index)


BUILDER_NAMES = ("build_dataloader", "build_data_loader")


def _own_builder(resolver: "Resolver") -> bool:
    """The project defines its own ``build_dataloader`` that builds a ``DataLoader`` from a
    mapping (``DataLoader(dataset, ..., **dataloader_cfg)``) and changes the worker keys of
    what it is given (a debug config's ``num_workers=0`` with the persistence turned off
    there): its config files are read by its own code, not by mmengine's ``Runner``. A
    builder that only takes out the dataset and the sampler hands the config's worker keys
    to the loader as the ``Runner`` does."""
    for info in resolver.project.eager_modules():
        for qualname, function in info.summary.functions.items():
            if function.name not in BUILDER_NAMES:
                continue
            for ref in resolver.project.calls_named("DataLoader"):
                site = resolver.project.call(ref)
                if ref.module == info.key and site.scope == qualname and any(k is None for k, _ in site.keywords) \
                        and _edits_worker_keys(info.summary, qualname):
                    return True
    return False


WORKER_KEYS = frozenset({"num_workers", "persistent_workers", "prefetch_factor", "pin_memory", "pin_memory_device"})
EDITING_METHODS = frozenset({"update", "setdefault", "pop", "__setitem__"})


def _edits_worker_keys(summary, scope: str) -> bool:
    """Whether ``scope`` may change a worker key of a mapping: an item stored, set by default,
    popped or deleted under such a key or a key not written out, or a mapping updated."""
    def worker_key(key) -> bool:
        return not (type(key) is Const and isinstance(key.value, str)) or key.value in WORKER_KEYS

    if any(store.scope == scope and store.attr == "[]" and worker_key(store.key) for store in summary.stores):
        return True
    for site in summary.calls:
        if site.scope != scope or type(site.func) is not Attr or site.func.name not in EDITING_METHODS:
            continue
        if site.func.name == "update" or not site.args or worker_key(site.args[0]):
            return True
    return False


def _mmengine_runner_used(resolver: "Resolver") -> bool:
    """Whether the project builds mmengine's ``Runner`` (``Runner(...)``, ``Runner.from_cfg(cfg)``)."""
    for name in ("Runner", "from_cfg"):
        for ref in resolver.project.calls_named(name):
            site = resolver.project.call(ref)
            func = site.func.base if name == "from_cfg" and type(site.func) is Attr else site.func
            if any(isinstance(f.obj, Ext) and f.obj.qualname in RUNNERS
                   for f in resolver.eval(func, Ctx(ref.module, site.scope))):
                return True
    return False


def _runner_loaders(resolver: "Resolver") -> List[Inst]:
    """``Runner(train_dataloader=dict(...), ...)``: the dicts given to mmengine's Runner."""
    out = []
    for ref in resolver.project.calls_named("Runner"):
        site = resolver.project.call(ref)
        ctx = Ctx(ref.module, site.scope)
        if not any(isinstance(f.obj, Ext) and f.obj.qualname in RUNNERS for f in resolver.eval(site.func, ctx)):
            continue
        for key, value in site.keywords:
            if key not in LOADER_NAMES:
                continue
            for found in resolver.eval(value, ctx):
                obj = found.obj
                if isinstance(obj, Container) and obj.kind == "dict" and obj.site is not None:
                    out.append(Inst(Ext(PREFIX + key + SUFFIX), obj.site, obj.ctx))
    return out


def chain(resolver: "Resolver", inst: Inst) -> Chain:
    """The ``dict(...)`` calls giving the keys of the config loader ``inst``, most specific
    first (memoised per run)."""
    memo: Dict[Inst, Chain] = resolver.__dict__.setdefault("_config_chains", {})
    found = memo.get(inst)
    if found is None:
        if inst.site is None:
            return Chain((), False)
        name = inst.cls.qualname[len(PREFIX):-len(SUFFIX)]
        sites, complete = [inst.site], True
        if not _deletes(resolver, inst.site):
            more, complete = _inherited(resolver, inst.site.module, name, {inst.site.module})
            sites.extend(more)
        found = memo[inst] = Chain(tuple(sites), complete)
    return found


def sources(resolver: "Resolver", inst: Inst) -> List["Source"]:
    from .loaders import Source

    return [Source(site, Ctx(site.module) if site != inst.site else inst.ctx) for site in chain(resolver, inst).sites]


def complete(resolver: "Resolver", inst: Inst) -> bool:
    """Whether a key none of the configs gives is DataLoader's default (every base was read)."""
    return chain(resolver, inst).complete


def _inherited(resolver: "Resolver", module: str, name: str, seen: set) -> Tuple[List[SiteRef], bool]:
    """The ``dict(...)`` calls of ``name`` in the bases of ``module``: the first base that
    configures it (mmengine refuses a key defined by two bases), then that one's bases."""
    bases, complete = _bases(resolver, module)
    for base in bases:
        if base in seen or len(seen) >= MAX_BASES:
            return [], False
        seen.add(base)
        site = _dict_site(resolver, base, name)
        if site is not None:
            if _deletes(resolver, site):
                return [site], complete
            more, known = _inherited(resolver, base, name, seen)
            return [site] + more, complete and known
        more, known = _inherited(resolver, base, name, seen)
        complete = complete and known
        if more:
            return more, complete
    return [], complete


def _bases(resolver: "Resolver", module: str) -> Tuple[List[str], bool]:
    """The project modules ``_base_`` names (their keys), and whether every one was found."""
    summary = resolver.project.summary(module)
    if summary is None or "_base_" not in summary.bindings:
        return [], True
    info = resolver.project.modules[module]
    paths: List[str] = []
    for found in resolver.global_name(module, "_base_"):
        obj = found.obj
        if isinstance(obj, Lit) and isinstance(obj.value, str):
            paths.append(obj.value)
        elif isinstance(obj, Container) and obj.kind in ("list", "tuple"):
            for item in obj.value.items:
                if not (isinstance(item, Const) and isinstance(item.value, str)):
                    return [], False
                paths.append(item.value)
        else:
            return [], False
    folder = os.path.dirname(info.key)
    out = []
    complete = bool(paths)
    for path in paths:
        target = os.path.normpath(os.path.join(folder, path)) if "::" not in path else ""
        if target in resolver.project.modules:
            out.append(target)
        else:
            complete = False  # another package's config, or a file outside the project
    return out, complete


def _deletes(resolver: "Resolver", site: SiteRef) -> bool:
    """``dict(_delete_=True, ...)``: the base's keys are dropped, not merged."""
    call = resolver.project.call(site)
    return any(key == "_delete_" and isinstance(value, Const) and value.value is True for key, value in call.keywords)


# mmengine's and mmcv's ``Config.fromfile(path)``: the config module at ``path``, read as a
# module whose top-level names a base fills in (``cfg.data.workers_per_gpu``)
FROM_FILE = frozenset({
    "mmengine.Config.fromfile", "mmengine.config.Config.fromfile", "mmengine.config.config.Config.fromfile",
    "mmcv.Config.fromfile", "mmcv.utils.Config.fromfile", "mmcv.utils.config.Config.fromfile",
})
MAX_CONFIG_FILES = 8  # config files a path the command line gives may be, followed one by one


def from_file(resolver: "Resolver", module: str, paths) -> "Results":
    """The config modules ``Config.fromfile`` reads: the file a written path names, or, for a
    path the command line gives (``args.config``), each config file of the project (up to
    ``MAX_CONFIG_FILES``, ``_base_`` folders left out): the run reads one of them."""
    from . import configfiles
    from .objects import UNKNOWN_RESULT, Found, Mod, Step

    written = [f for f in paths if isinstance(f.obj, Lit) and isinstance(f.obj.value, str)]
    if written and len(written) == len(paths):
        out = []
        for found in written:
            path = configfiles.locate(resolver, module, found.obj.value)
            key = os.path.normpath(path) if path is not None else None
            if key not in resolver.project.modules:
                return UNKNOWN_RESULT
            out.append(Found(Mod(key), found.trail))
        return tuple(out)
    candidates = _project_configs(resolver, module)
    if not candidates or len(candidates) > MAX_CONFIG_FILES:
        return UNKNOWN_RESULT
    return tuple(Found(Mod(key), (Step(key, Span(1, 1, 1, 1), "a config file the command line may name"),))
                 for key in candidates)


def _project_configs(resolver: "Resolver", module: str) -> List[str]:
    """The config files of ``module``'s project: modules in a ``configs`` folder that are not
    bases (``_base_`` folders)."""
    info = resolver.project.modules.get(module)
    if info is None:
        return []
    out = []
    for key, other in sorted(resolver.project.modules.items()):
        if other.boundary != info.boundary or not key.endswith(".py"):
            continue
        parts = os.path.relpath(key, other.boundary).split(os.sep)[:-1]
        if any(part in CONFIG_FOLDERS for part in parts) and "_base_" not in parts and not key.endswith("__init__.py"):
            out.append(key)
    return out


def base_name(resolver: "Resolver", module: str, name: str, seen: Optional[set] = None):
    """A top-level name a config module does not bind, from the bases it inherits (the first
    base that binds it), or None."""
    seen = seen if seen is not None else {module}
    bases, _ = _bases(resolver, module)
    for base in bases:
        if base in seen or len(seen) >= MAX_BASES:
            return None
        seen.add(base)
        summary = resolver.project.summary(base)
        if summary is not None and name in summary.bindings:
            return resolver.global_name(base, name)
        found = base_name(resolver, base, name, seen)
        if found is not None:
            return found
    return None
