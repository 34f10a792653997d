"""What a training script reads from its YAML configuration: ``OmegaConf.load(path)``,
``yaml.safe_load(open(path))`` and the ``cfg`` hydra's ``@hydra.main(config_path=...,
config_name=...)`` hands its function (the primary file, and the files its ``defaults:`` list
names by group: ``- data: imagenet`` is ``conf/data/imagenet.yaml`` under ``cfg.data``).

A value in such a file is what the program runs with unless a command-line override or
another file changes it: like an ``argparse`` default, it is the value, but it decides no
choice (``externals.overridable``). A path is looked up beside the module that names it,
then at its import root and its project folder; a file not found, outside the project, or
written in YAML the subset does not read (``yamlconfig``) is unknown.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Optional

from ..analysis.summary import Span
from ..analysis.values import Call
from . import yamlconfig
from .objects import Cls, Config, Ext, Found, Inst, Lit, Results, SiteRef, Step, Top, one

if TYPE_CHECKING:
    from .resolver import Resolver

NOTE = "config file value"  # a step's note: what ``externals.overridable`` recognises
YAML_LOADERS = frozenset({"yaml.safe_load", "yaml.load", "yaml.full_load", "yaml.unsafe_load"})
HYDRA_MAIN = frozenset({"hydra.main", "hydra.main.main"})
CONFIG_STORE = "hydra.core.config_store.ConfigStore"  # ``ConfigStore.instance().store``
# hydra's ``instantiate(cfg.data, ...)`` calls what the mapping's ``_target_`` names with the
# mapping's other entries as keywords (``call`` is the same function under another name);
# torchtune's ``config.instantiate(cfg.dataset, tokenizer)`` does the same with ``_component_``
INSTANTIATE = {
    "hydra.utils.instantiate": "_target_",
    "hydra.utils.call": "_target_",
    "torchtune.config.instantiate": "_component_",
    "torchtune.config._instantiate.instantiate": "_component_",
}
PARTIAL = "_partial_"  # true: a ``functools.partial`` of the target, not a call
UNKNOWN_RESULT: Results = (Found(Top("config")),)


def entry(resolver: "Resolver", config: Config) -> Optional[yamlconfig.Entry]:
    """The entry of ``config``'s file at its keys (a hydra group merged in), or None."""
    found = _where(resolver, config)
    return found[1] if found is not None else None


def _where(resolver: "Resolver", config: Config):
    """(the file it is written in, the entry) of ``config``'s keys: a key the primary file
    lacks may be a hydra group, written in its own file."""
    path, document = config.path, _document(resolver, config.path)
    for depth, key in enumerate(config.keys):
        if document is None or not isinstance(document.value, dict):
            return None
        found = document.value.get(key)
        if found is None and depth == 0:
            group = _group(resolver, config.path, key)
            if group is not None:
                path, found = group
        document = found
    return (path, document) if document is not None else None


def member(resolver: "Resolver", found: Found, name: str) -> Results:
    """``cfg.data`` / ``cfg["data"]`` / ``cfg.get("data")``: a nested mapping, or the value."""
    config = found.obj
    child = Config(config.path, config.keys + (name,))
    where = _where(resolver, child)
    if where is None:
        return UNKNOWN_RESULT
    path, written = where
    if isinstance(written.value, dict):
        return one(child, found.trail)
    if isinstance(written.value, list) or written.value is yamlconfig.UNKNOWN:
        return UNKNOWN_RESULT
    shown = "null" if written.value is None else str(written.value).lower() if isinstance(written.value, bool) \
        else written.value
    step = Step(path, Span(written.row, 1, written.row, 1 << 20), f"{NOTE} `{name}: {shown}` ({os.path.basename(path)})")
    return one(Lit(written.value), found.trail + (step,))


def splatted(resolver: "Resolver", found: Found, key: str) -> Optional[Results]:
    """``key`` of a mapping splatted into a call (``DataLoader(ds, **cfg.loader)``): its value
    when the file writes it, None when the mapping has no such key (the call is not given
    it), unknown when the mapping itself is not known."""
    written = writes_key(resolver, found.obj, key)
    if written is None:
        return UNKNOWN_RESULT
    return member(resolver, found, key) if written else None


def writes_key(resolver: "Resolver", config: Config, key: str) -> Optional[bool]:
    """Whether the mapping ``config`` names holds ``key`` (None: the mapping is not known)."""
    mapping = entry(resolver, config)
    if mapping is None or not isinstance(mapping.value, dict):
        return None
    return key in mapping.value


COMMAND_LINE = "sys.argv"


def loaded(resolver: "Resolver", module: str, paths: Results) -> Results:
    """The file a call loads, given what its path argument evaluates to. A path the command
    line may give beside a written default (``sys.argv[1] if len(sys.argv) > 1 else
    "conf/small.yaml"``) is the default, as an ``argparse`` default is: the file the program
    reads unless told otherwise."""
    if any(type(f.obj) is Lit for f in paths):
        paths = tuple(f for f in paths if not (type(f.obj) is Ext and f.obj.qualname == COMMAND_LINE))
    parts = []
    for found in paths:
        if type(found.obj) is not Lit or not isinstance(found.obj.value, str) or not found.obj.value:
            return UNKNOWN_RESULT
        path = locate(resolver, module, found.obj.value)
        if path is None:
            return UNKNOWN_RESULT
        parts.append(one(Config(path), found.trail))
    return tuple(f for part in parts for f in part) or UNKNOWN_RESULT


def locate(resolver: "Resolver", module: str, written: str, suffixes=("",)) -> Optional[str]:
    """The file ``written`` names, as a path the run can open (relative like the module's own
    path when that is), beside the module, at its import root or in its project folder."""
    info = resolver.project.modules.get(module)
    if info is None:
        return None
    bases = [os.path.dirname(info.path)]
    for folder in (info.root, info.boundary):
        if folder:
            bases.append(os.path.relpath(folder) if not os.path.isabs(info.path) else folder)
    for base in dict.fromkeys(bases):
        for suffix in suffixes:
            candidate = written + suffix if os.path.isabs(written) else os.path.join(base, written + suffix)
            if _document(resolver, candidate, info.boundary) is not None:
                return os.path.normpath(candidate)
    return None


def hydra_config(resolver: "Resolver", module: str, function) -> Optional[Results]:
    """The config ``@hydra.main(config_path=..., config_name=...)`` gives ``function``, or None
    when it is not such a function (or its file is not found)."""
    summary = resolver.project.summary(module)
    for decorator in function.decorators:
        if type(decorator) is not Call:
            continue
        site = summary.calls[decorator.index]
        ctx = resolver.context(module, function.scope)
        if not any(getattr(f.obj, "qualname", None) in HYDRA_MAIN for f in resolver.eval(site.func, ctx)):
            continue
        ref = SiteRef(module, decorator.index)
        folder = _literal(resolver.keyword_at(ref, ctx, "config_path", 0))
        name = _literal(resolver.keyword_at(ref, ctx, "config_name", 1))
        if not isinstance(name, str):
            return UNKNOWN_RESULT
        written = os.path.join(folder, name) if isinstance(folder, str) else name
        path = locate(resolver, module, written, ("",) if yamlconfig.is_yaml(written) else (".yaml",))
        if path is not None:
            return one(Config(path))
        return _stored_config(resolver, name) or UNKNOWN_RESULT
    return None


def _stored_config(resolver: "Resolver", name: str) -> Optional[Results]:
    """The structured config a ``ConfigStore.instance().store(name=name, node=TrainConf)`` of
    the project keeps for the primary config ``name`` (a dataclass: its defaults), when
    there is no such file."""
    parts = []
    for ref in resolver.project.calls_named("store"):
        site = resolver.project.call(ref)
        ctx = resolver.context(ref.module, site.scope)
        if not any(getattr(f.obj, "qualname", "").startswith(CONFIG_STORE) for f in resolver.eval(site.func, ctx)):
            continue
        if _literal(resolver.keyword_at(ref, ctx, "name", 0)) != name or any(key == "group" for key, _ in site.keywords):
            continue
        node = resolver.keyword_at(ref, ctx, "node", 1) or ()
        step = Step(ref.module, site.span, f"the structured config hydra's ConfigStore keeps as `{name}`")
        parts.extend(Found(Inst(f.obj) if type(f.obj) is Cls else f.obj, (step,) + f.trail) for f in node)
    return tuple(parts) or None


def _literal(results: Optional[Results]):
    """The one literal an answer holds, or None."""
    if results and len(results) == 1 and type(results[0].obj) is Lit:
        return results[0].obj.value
    return None


def _group(resolver: "Resolver", path: str, key: str):
    """A hydra ``defaults:`` entry ``- key: option`` of the primary file: (the file
    ``<folder>/key/option.yaml`` beside it, its document), the mapping under ``key``."""
    document = _document(resolver, path)
    defaults = document.value.get("defaults") if document is not None and isinstance(document.value, dict) else None
    if defaults is None or not isinstance(defaults.value, list):
        return None
    for item in defaults.value:
        if isinstance(item.value, dict) and key in item.value and isinstance(item.value[key].value, str):
            option = item.value[key].value
            candidate = os.path.normpath(os.path.join(os.path.dirname(path), key, option + ".yaml"))
            document = _document(resolver, candidate)
            return (candidate, document) if document is not None else None
    return None


def files_read(resolver: "Resolver"):
    """The YAML files the run read or looked for: what its findings depend on besides the
    project's Python files (``reuse`` records them)."""
    return resolver.__dict__.get("_config_files", {}).keys()


def _document(resolver: "Resolver", path: str, boundary: Optional[str] = None) -> Optional[yamlconfig.Entry]:
    """The parsed file (memoised per run, and recorded: ``files_read``), read only inside the
    project it belongs to; a path that names no YAML file is not read."""
    if not yamlconfig.is_yaml(path):
        return None
    cache = resolver.__dict__.setdefault("_config_files", {})
    if path in cache:
        return cache[path]
    root = boundary or _boundary_of(resolver, path)
    found = yamlconfig.load(path, root) if root is not None else None
    cache[path] = found
    return found


def _boundary_of(resolver: "Resolver", path: str) -> Optional[str]:
    """The project folder holding ``path`` (a file already located, or one beside it)."""
    absolute = os.path.abspath(path)
    for info in resolver.project.modules.values():
        if info.boundary and absolute.startswith(info.boundary.rstrip(os.sep) + os.sep):
            return info.boundary
    return None
