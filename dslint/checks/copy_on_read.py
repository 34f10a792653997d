"""DSL501 copy-on-read (off by default): a Python list/dict of objects read by workers.

Reading a Python object in a forked worker writes its reference count, which copies the
page holding it: a large list of Python objects indexed in ``__getitem__`` ends up copied
into every worker, and memory grows until the OOM killer ends a worker. Fires only with
evidence of many objects: a parsed annotation file (``json.load``, ``pickle.load``,
``yaml.safe_load``), per-sample dicts or objects appended in a loop or built by a
comprehension; a plain list of file paths (``sorted(glob(...))``) is left alone.
"""

from __future__ import annotations

from typing import Iterator, Optional, Set, Tuple

from ..diagnostics import Finding
from ..model.objects import Cls, Container, Ext, Inst
from ..model.queries import WORKER_METHODS, Model
from .base import finding

CODE = "DSL501"
LOADED_TABLES = frozenset({"json.load", "json.loads", "pickle.load", "pickle.loads", "yaml.safe_load", "yaml.load",
                           "yaml.full_load", "ujson.load", "orjson.loads", "simplejson.load"})


def check(model: Model) -> Iterator[Finding]:
    reported: Set[Tuple[str, object]] = set()
    reads = {}
    for loader, workers, function in model.worker_runs():
        if loader is None or not workers.positive:
            continue
        if isinstance(function.self_obj, Inst) and isinstance(function.self_obj.cls, Cls):
            reads.setdefault(function.self_obj, (set(), function))[0].update(
                model.function_summary(function.func).self_reads)
    for obj, (attrs, function) in reads.items():
        for item in model.resolver.mro(obj.cls):
            if not isinstance(item, Cls):
                continue
            stores = model.resolver.self_stores(item)
            for attr in sorted(attrs & set(stores)):
                for method, store in stores[attr]:
                    if method.name in WORKER_METHODS:
                        continue
                    ctx = model.resolver.method_ctx(obj, item.module, method)
                    evidence = _many_objects(model, model.resolver.eval(store.value, ctx))
                    if evidence is None or (item, attr) in reported:
                        continue  # one finding per attribute: its other stores are the same cause
                    reported.add((item, attr))
                    klass = model.project.klass(item.module, item.qualname)
                    yield finding(
                        model, CODE, item.module, store.span,
                        f"`self.{attr}` of `{klass.name}` holds {evidence} and is read by forked DataLoader "
                        f"workers: reference-count writes copy it into every worker; store it as numpy/pyarrow "
                        f"arrays",
                        tuple(function.trail),
                    )


def _many_objects(model: Model, results) -> Optional[str]:
    for found in results:
        obj = found.obj
        if isinstance(obj, Inst) and isinstance(obj.cls, Ext):
            name = obj.cls.qualname
            if name in LOADED_TABLES:
                return f"a parsed annotation file (`{name}`)"
        if isinstance(obj, Container):
            kinds = _element_kinds(model, obj)
            if kinds & {"dict", "object", "table"}:
                return "a Python list of per-sample dicts/objects" if "table" not in kinds else \
                    "Python objects built from a loaded annotation table"
    return None


def _element_kinds(model: Model, container: Container) -> Set[str]:
    """What a list holds, when it is many things: dicts built per element by a comprehension,
    dicts or objects appended in a loop, loaded annotation tables. A literal list of a few
    objects (``[Resize(), Flip()]``) says nothing about its size."""
    kinds: Set[str] = set()
    elements = list(model.resolver.appended(container, in_loops=True))
    if container.kind == "comp":
        elements += [f for f in model.resolver.container_values(container)
                     if isinstance(f.obj, Container) and f.obj.kind == "dict"]
    for found in elements:
        obj = found.obj
        if isinstance(obj, Container) and obj.kind == "dict":
            kinds.add("dict")
        elif isinstance(obj, Inst) and isinstance(obj.cls, Cls):
            kinds.add("object")
        elif isinstance(obj, Inst) and isinstance(obj.cls, Ext) and obj.cls.qualname in LOADED_TABLES:
            kinds.add("table")
    return kinds
