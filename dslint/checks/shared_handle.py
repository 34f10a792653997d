"""DSL104 shared-handle: one file offset / decoder state shared by every worker.

A handle opened in the parent (module scope, a Dataset's ``__init__`` or ``__len__``, or a
helper or staticmethod they call) is inherited by every forked worker: reads interleave on
one offset (silently wrong samples) and a video decoder that already ran in the parent
hangs in its dead thread pool; spawn cannot pickle it at all. Open it per worker instead.
"""

from __future__ import annotations

from typing import Iterator, Optional, Set, Tuple

from ..analysis.values import DictDisplay, Name, Seq
from ..diagnostics import Finding
from ..model import effects
from ..model.objects import Cls, Container, Ctx, Ext, Func, Inst
from ..model.queries import WORKER_METHODS, Model
from ..model.resolver import join
from .base import finding

CODE = "DSL104"
HANDLE_CONSTRUCTORS = frozenset({
    "cv2.VideoCapture", "h5py.File", "lmdb.open", "lmdb.Environment", "sqlite3.connect", "builtins.open", "io.open",
    "tarfile.open", "tarfile.TarFile", "zipfile.ZipFile", "PIL.ImageFont.truetype",
    # video and table readers holding a decoder or an HDF5 file and their read position
    "decord.VideoReader", "decord.AudioReader", "av.open", "pandas.HDFStore", "tables.open_file",
})


def _constructors(model: Model):
    extra = getattr(model.settings, "handle_constructors", None) or ()
    return HANDLE_CONSTRUCTORS | {c for c in extra if isinstance(c, str)}


# Objects that keep using their handle: an HDF5 dataset of a file, an LMDB transaction, a
# database cursor, a member opened from an archive.
DERIVED = {
    "h5py.File": ("[]", "().get", "().require_dataset"),
    "lmdb.open": ("().begin",), "lmdb.Environment": ("().begin",),
    "sqlite3.connect": ("().cursor",),
    "zipfile.ZipFile": ("().open",), "tarfile.open": ("().extractfile",), "tarfile.TarFile": ("().extractfile",),
}


def handle_of(model: Model, results):
    """The handle constructor name an answer holds, if it is a handle (or an object bound to one),
    also as the items of a list or dict built from one per path (``[cv2.VideoCapture(p) for p in paths]``)."""
    constructors = _constructors(model)
    for found in results:
        obj = found.obj
        if isinstance(obj, Container):
            obj = next((item.obj for item in _built_items(model, obj) if _handle_name(item.obj, constructors)), None)
        name = _handle_name(obj, constructors)
        if name is not None:
            return name
    return None


def _built_items(model: Model, container: Container):
    """The items a list or dict gets where it is built (its display or comprehension, and what
    that function appends), not those stored into it later: ``self.files = {}`` filled in
    ``__getitem__`` is the lazy, per-worker cache."""
    display = container.value
    items = display.values if isinstance(display, DictDisplay) else display.items if isinstance(display, Seq) else ()
    built = [model.resolver.eval(item, container.ctx) for item in items]
    if isinstance(display, Seq):
        built.append(model.resolver.appended(container))
    return join(built)


def _handle_name(obj, constructors):
    """The handle constructor of one object (a handle, or an object bound to one), or None."""
    if isinstance(obj, Inst) and isinstance(obj.cls, Ext):
        name = obj.cls.qualname
        if name in constructors:
            return name
        for constructor, suffixes in DERIVED.items():
            if constructor in constructors and any(name == constructor + suffix for suffix in suffixes):
                return constructor
    return None


def check(model: Model) -> Iterator[Finding]:
    reported: Set[Tuple[str, object]] = set()
    reads = {}
    for loader, workers, function in model.worker_runs():
        if workers is not None and workers.threads:
            continue
        if function.self_obj is not None and isinstance(function.self_obj, Inst) and isinstance(function.self_obj.cls, Cls):
            summary = model.function_summary(function.func)
            reads.setdefault(function.self_obj, (loader, set(), function))[1].update(summary.self_reads)
        yield from _module_handles(model, function, reported)
    for dataset, (loader, attrs, function) in reads.items():
        reopened = _reopened_by_worker_init(model, loader, dataset)
        for item in model.resolver.mro(dataset.cls):
            if not isinstance(item, Cls):
                continue
            stores = model.resolver.self_stores(item)
            for attr in sorted(attrs & set(stores)):
                if attr in reopened:
                    continue
                yield from _attr_handle(model, dataset, item, attr, stores[attr], function, reported)


def _attr_handle(model: Model, dataset: Inst, cls: Cls, attr: str, stores, function, reported) -> Iterator[Finding]:
    opened = None
    for method, store in sorted(stores, key=lambda p: (p[1].span.row, p[1].span.col)):
        if method.name in WORKER_METHODS \
                or _parent_opener(model, dataset, cls, method) is None:
            if not store.none_guarded:
                return  # (re)opened lazily in the worker
            continue
        if store.kind == "del" or (store.value == _NONE and opened is not None):
            opened = None
            continue
        if _from_with(model, cls, method, store):
            continue
        ctx = model.resolver.method_ctx(dataset, cls.module, method)
        constructor = handle_of(model, model.resolver.eval(store.value, ctx))
        if constructor is not None:
            opened = (method, store, constructor)
    if opened is None:
        return
    method, store, constructor = opened
    key = (cls.module, store.span)
    if key in reported:
        return
    reported.add(key)
    klass = model.project.klass(cls.module, cls.qualname)
    short = constructor.replace("builtins.", "")
    ctx = model.resolver.method_ctx(dataset, cls.module, method)
    values = model.resolver.eval(store.value, ctx)
    direct = any(isinstance(f.obj, Inst) and isinstance(f.obj.cls, Ext) and f.obj.cls.qualname == constructor
                 for f in values)
    where = _parent_opener(model, dataset, cls, method)
    opener = f"`{klass.name}.{method.name}`"
    if where == "__len__":
        opener += (" (run by `__len__`" if method.name != "__len__" else " (which runs") + \
            " in the main process: the sampler asks for the dataset's length before workers start)"
    what = f"`{short}(...)` opened in {opener} as `self.{attr}`" if direct else \
        f"`self.{attr}`, holding `{short}(...)` handles opened in {opener}," \
        if any(isinstance(f.obj, Container) for f in values) else \
        f"`self.{attr}`, part of a `{short}(...)` opened in {opener},"
    remedy = "keep the path and open it lazily in the worker, on first use in `__getitem__`" if where == "__init__" else \
        "read the length once in `__init__` (in a `with` block) and open the handle only in `__getitem__`"
    yield finding(
        model, CODE, cls.module, store.span,
        f"{what} is shared by every DataLoader worker (one file offset / decoder state): {remedy}",
        tuple(function.trail),
        attr=attr, constructor=constructor, owner="class",
        fixable=direct and method.name == "__init__",  # the fixer rewrites ``__init__``'s own statements only
    )


# Methods the main process runs on the dataset before (and between) the workers' starts:
# ``__init__``, and ``__len__``, which the sampler calls (``RandomSampler`` at construction,
# every sampler when an epoch's indexes are drawn, so a later epoch's workers inherit what it
# opened; ``len(loader)`` too). A handle opened lazily there is the parent's.
PARENT_METHODS = ("__init__", "__len__")


def _parent_opener(model: Model, dataset: Inst, cls: Cls, method) -> Optional[str]:
    """Which of ``PARENT_METHODS`` runs ``method`` in the main process: the method itself, or
    one calling it directly (a helper or staticmethod), of the dataset's class or of the class
    defining the helper (a mixin's ``open_lmdb`` called from the dataset's ``__init__`` is
    found through the MRO); None for a method only workers run."""
    if method.name in PARENT_METHODS:
        return method.name
    target = Func(cls.module, method.qualname)
    for name in PARENT_METHODS:
        for owner in (dataset.cls, cls):
            caller = model.resolver.method(owner, name)
            if caller is not None and any(callee == target for callee, _, _ in model.callees(caller, dataset)):
                return name
    return None


def _from_with(model: Model, cls: Cls, method, store) -> bool:
    """``with h5py.File(p) as f: self.x = f``: the handle is closed when the block ends."""
    value = store.value
    if not isinstance(value, Name):
        return False
    bindings = method.bindings.get(value.id, ())
    return bool(bindings) and all(b.kind == "with" for b in bindings)


def _reopened_by_worker_init(model: Model, loader, dataset: Inst) -> Set[str]:
    """Attributes a ``worker_init_fn`` assigns on the worker's dataset copy, directly
    (``info.dataset.env = lmdb.open(...)``) or in a dataset method it calls (``info.dataset.open_db()``)."""
    init = effects.worker_init(model, loader, dataset)
    attrs: Set[str] = set()
    for func in [*init.functions, *init.methods.values()]:
        attrs |= {store.attr for store in model.project.summary(func.module).stores if store.scope == func.qualname}
    return attrs


def _module_handles(model: Model, function, reported) -> Iterator[Finding]:
    summary = model.function_summary(function.func)
    module_summary = model.project.summary(function.func.module)
    for name in summary.loads:
        if name in summary.bindings or name not in module_summary.bindings:
            continue
        for binding in module_summary.bindings[name]:
            if binding.kind != "assign" or binding.guarded:
                continue
            constructor = handle_of(model, model.resolver.eval(binding.value, Ctx(function.func.module)))
            if constructor is None:
                continue
            key = (function.func.module, binding.span)
            if key in reported:
                continue
            reported.add(key)
            short = constructor.replace("builtins.", "")
            yield finding(
                model, CODE, function.func.module, binding.span,
                f"`{short}(...)` opened at module level as `{name}` and read by worker code "
                f"(`{summary.name}`) is shared by every DataLoader worker: open it lazily in the worker, on "
                f"first use in `__getitem__`",
                tuple(function.trail),
                attr=name, constructor=constructor, owner="module",
                fixable=False,  # the fixer rewrites handles opened in ``__init__`` only
            )


from ..analysis.values import NONE as _NONE  # noqa: E402
