"""DSL104 shared-handle: one file offset / decoder state shared by every worker.

A handle opened in the parent (module scope, a Dataset's ``__init__`` or ``__len__``, or a
helper or staticmethod they call) is inherited by every forked worker: reads interleave on
one offset (silently wrong samples) and a video decoder that already ran in the parent
hangs in its dead thread pool; spawn cannot pickle it at all. Open it per worker instead.
"""

from __future__ import annotations

from typing import Iterator, List, NamedTuple, Optional, Set, Tuple

from ..analysis.summary import Span
from ..analysis.values import DictDisplay, Name, Seq
from ..diagnostics import Finding
from ..model import effects
from ..model.objects import Cls, Container, Ctx, Ext, Func, Inst, Step
from ..model.queries import WORKER_METHODS, Model
from ..model.resolver import join
from .base import finding

CODE = "DSL104"
HANDLE_CONSTRUCTORS = frozenset({
    "cv2.VideoCapture", "h5py.File", "lmdb.open", "lmdb.Environment", "sqlite3.connect", "builtins.open", "io.open",
    "tarfile.open", "tarfile.TarFile", "zipfile.ZipFile", "PIL.ImageFont.truetype",
    # video and table readers holding a decoder or an HDF5 file and their read position
    "decord.VideoReader", "decord.AudioReader", "av.open", "pandas.HDFStore", "tables.open_file",
    # raster and array files behind a C library's handle (GDAL, HDF5/netCDF): neither picklable
    # nor safe to share between processes
    "rasterio.open", "netCDF4.Dataset",
    # PDF documents (PyMuPDF): a MuPDF document reading its file as pages are asked for
    "fitz.open", "fitz.Document", "pymupdf.open", "pymupdf.Document",
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
    that function appends or stores into it: ``self.h5 = {}`` then ``self.h5[name] =
    h5py.File(path)`` in a loop of ``__init__``), not those stored into it later:
    ``self.files = {}`` filled in ``__getitem__`` is the lazy, per-worker cache."""
    display = container.value
    items = display.values if isinstance(display, DictDisplay) else display.items if isinstance(display, Seq) else ()
    built = [model.resolver.eval(item, container.ctx) for item in items]
    if isinstance(display, Seq):
        built.append(model.resolver.appended(container))
    elif isinstance(display, DictDisplay):
        built.extend(_stored_where_built(model, container))
    return join(built)


def _stored_where_built(model: Model, container: Container):
    """What ``x[key] = value`` statements of the function that builds the dict display put in it."""
    for store, ctx in model.resolver.display_item_stores(container):
        yield model.resolver.eval(store.value, ctx)


def _handle_name(obj, constructors):
    """The handle constructor of one object (a handle, or an object bound to one), or None."""
    if isinstance(obj, Inst) and isinstance(obj.cls, Ext):
        name = obj.cls.qualname
        if name in constructors:
            return name
        for constructor, suffixes in DERIVED.items():
            if constructor in constructors and _derived(name, constructor, suffixes):
                return constructor
    return None


def _derived(name: str, constructor: str, suffixes) -> bool:
    """Whether ``name`` is ``constructor`` followed by one or more of ``suffixes``: a group of
    a group of an HDF5 file (``f["examples"][client]``) still reads through the file."""
    if not name.startswith(constructor) or name == constructor:
        return False
    rest = name[len(constructor):]
    while rest:
        suffix = next((s for s in suffixes if rest.startswith(s)), None)
        if suffix is None:
            return False
        rest = rest[len(suffix):]
    return True


def check(model: Model) -> Iterator[Finding]:
    reported: Set[Tuple[str, object]] = set()
    reads = {}
    in_workers = {function.func for _, _, function in model.worker_runs()}
    for loader, workers, function in model.worker_runs():
        if workers is not None and workers.threads:
            continue
        if function.self_obj is not None and isinstance(function.self_obj, Inst) and isinstance(function.self_obj.cls, Cls) \
                and not _built_by_workers(model, function.self_obj, in_workers):
            summary = model.function_summary(function.func)
            reads.setdefault(function.self_obj, (loader, set(), function))[1].update(summary.self_reads)
        if model.fork_started(loader):  # a spawned worker imports the module again: a handle of its own
            yield from _module_handles(model, function, reported)
        yield from _cached_handle(model, loader, function, reported)
    for dataset, (loader, attrs, function) in reads.items():
        attrs = model.through_properties(dataset.cls, attrs, depth=3)
        yield from _cached_properties(model, dataset, attrs, function, reported)
        reopened = _reopened_by_worker_init(model, loader, dataset)
        forked = model.fork_started(loader)
        for item in model.resolver.mro(dataset.cls):
            if not isinstance(item, Cls):
                continue
            stores = model.resolver.self_stores(item)
            found = [(attr, opened) for attr in sorted(attrs & set(stores)) if attr not in reopened
                     for opened in [_opened(model, dataset, item, stores[attr], forked)] if opened is not None]
            for handle in _by_handle(model, dataset, item, stores, found):
                yield from _report(model, dataset, item, handle, function, reported)


class Opened(NamedTuple):
    """A handle (or a part of one, or a collection of them) ``method`` stores as ``self.<attr>``."""

    attr: str
    method: object
    store: object
    constructor: str
    kind: str  # handle | part | collection


class Handle(NamedTuple):
    """One handle the workers use, where it is opened, and the parts of it they read."""

    opened: Opened
    parts: Tuple[Opened, ...] = ()


def _by_handle(model: Model, dataset: Inst, cls: Cls, stores, found) -> List[Handle]:
    """One entry per handle: the parts of a handle the workers read (``self.images =
    self.h5["images"]``) go with the store of the handle itself, made in the same method
    (``self.h5 = h5py.File(path)``), read by the workers or not; a part with no such store
    stands for its handle."""
    whole = {}
    parts = {}
    for attr, (method, store, constructor) in found:
        kind = _kind(model, dataset, cls, method, store, constructor)
        entry = Opened(attr, method, store, constructor, kind)
        if kind == "part":
            parts.setdefault((method.qualname, constructor), []).append(entry)
        else:
            whole[attr] = entry
    out = [Handle(entry) for entry in whole.values()]
    for (qualname, constructor), pieces in parts.items():
        anchor = next((i for i, h in enumerate(out) if h.opened.method.qualname == qualname
                       and h.opened.constructor == constructor and h.opened.kind == "handle"), None)
        if anchor is not None:
            out[anchor] = out[anchor]._replace(parts=tuple(pieces))
            continue
        store = _handle_store(model, dataset, cls, stores, pieces[0].method, constructor)
        out.append(Handle(store, tuple(pieces)) if store is not None else Handle(pieces[0], tuple(pieces[1:])))
    return out


def _kind(model: Model, dataset: Inst, cls: Cls, method, store, constructor: str) -> str:
    values = model.resolver.eval(store.value, model.resolver.method_ctx(dataset, cls.module, method))
    if any(isinstance(f.obj, Inst) and isinstance(f.obj.cls, Ext) and f.obj.cls.qualname == constructor for f in values):
        return "handle"
    return "collection" if any(isinstance(f.obj, Container) for f in values) else "part"


def _handle_store(model: Model, dataset: Inst, cls: Cls, stores, method, constructor: str) -> Optional[Opened]:
    """The store of a ``constructor`` handle itself that ``method`` makes (``self.h5 = h5py.File(path)``)."""
    for attr, made in sorted(stores.items()):
        for where, store in made:
            if where.qualname == method.qualname and store.kind != "del" \
                    and _kind(model, dataset, cls, where, store, constructor) == "handle":
                return Opened(attr, where, store, constructor, "handle")
    return None


def _built_by_workers(model: Model, obj: Inst, in_workers: Set[Func]) -> bool:
    """Whether ``obj`` is made only by worker code (a reader a dataset builds lazily in
    ``__getitem__``): its ``__init__`` runs in the worker, so what it opens is the worker's."""
    if obj.site is None:
        return False
    builder = Func(obj.site.module, model.project.call(obj.site).scope)
    if not builder.qualname or builder not in in_workers:
        return False
    return all(Func(site.module, model.project.call(site).scope) in in_workers
               for site, _ in model.resolver.callers(builder))


def _opened(model: Model, dataset: Inst, cls: Cls, stores, forked: bool = False):
    """(method, store, constructor) of the handle the main process leaves in an attribute
    (``stores``: the attribute's stores), or None when none is, or the worker opens its own.
    ``__setstate__`` reopens a handle in a spawned worker, which unpickles the dataset; a
    forked one (``forked``: the loader may fork) gets a copy and never runs it."""
    opened = None
    for method, store in sorted(stores, key=lambda p: (p[1].span.row, p[1].span.col)):
        if forked and method.name == "__setstate__":
            continue
        if method.name in WORKER_METHODS \
                or _parent_opener(model, dataset, cls, method) is None:
            if not store.none_guarded:
                return None  # (re)opened lazily in the worker
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
    return opened


def _report(model: Model, dataset: Inst, cls: Cls, handle: Handle, function, reported) -> Iterator[Finding]:
    attr, method, store, constructor, kind = handle.opened
    arrived = _arrival(model, dataset, cls, method, store)
    # a handle opened elsewhere (a data module's ``setup()``) and passed in is reported where
    # it is opened, the dataset's store beside it; one opened by the dataset, at its store
    module, span = (arrived[-1].module, arrived[-1].span) if arrived else (cls.module, store.span)
    filled = _filled_opening(model, dataset, cls, method, store, constructor) \
        if kind == "collection" and not arrived else None
    if filled is not None:  # ``self.captures = []`` then ``.append(cv2.VideoCapture(p))``: where they are opened
        span = filled
    if (cls.module, store.span) in reported or (module, span) in reported:
        return
    reported.update({(cls.module, store.span), (module, span)})
    klass = model.project.klass(cls.module, cls.qualname)
    short = constructor.replace("builtins.", "")
    where = _parent_opener(model, dataset, cls, method)
    opener = f"`{klass.name}.{method.name}`"
    sampler = ": the sampler asks for the dataset's length before workers start" if where == "__len__" else ""
    if where != method.name:
        opener += f" (run by `{where}` in the main process{sampler})"
    elif sampler:
        opener += f" (which runs in the main process{sampler})"
    read = [part.attr for part in handle.parts if part.attr != attr]
    parts = f" (the workers read its part{'s' if len(read) > 1 else ''} {_listed(read)})" if read and kind == "handle" else \
        f" and {_listed(read)}" if read else ""
    if arrived:
        what = f"`{short}(...)` opened here and handed to {opener} as `self.{attr}`{parts}" if kind == "handle" else \
            f"`self.{attr}` of {opener}, holding `{short}(...)` handles opened here," if kind == "collection" else \
            f"`{short}(...)` opened here, a part of which {opener} keeps as `self.{attr}`{parts},"
    else:
        what = f"`{short}(...)` opened in {opener} as `self.{attr}`{parts}" if kind == "handle" else \
            f"`self.{attr}`, holding `{short}(...)` handles opened in {opener}," if kind == "collection" else \
            f"`self.{attr}`{parts}, part of a `{short}(...)` opened in {opener},"
    remedy = "read the length once in `__init__` (in a `with` block) and open the handle only in `__getitem__`" \
        if where == "__len__" else \
        "let only the workers open it: read what `__init__` needs through a handle closed there (a `with` block)" \
        if store.none_guarded else "pass the path instead and open it lazily in the worker, on first use in " \
        "`__getitem__`" if arrived else "keep the path and open it lazily in the worker, on first use in `__getitem__`"
    steps = tuple(Step(cls.module, part.store.span, f"`self.{part.attr}`, read by the workers")
                  for part in handle.parts if part.store.span != store.span)
    if arrived:  # the way in, from the call that opens it to the dataset's store
        steps = tuple(reversed(arrived[:-1])) + (Step(cls.module, store.span, f"kept as `self.{attr}`"),) + steps
    elif filled is not None:
        steps = (Step(cls.module, store.span, f"`self.{attr}` made here"),) + steps
    yield finding(
        model, CODE, module, span,
        f"{what} is shared by every DataLoader worker (one file offset / decoder state): {remedy}",
        steps + tuple(function.trail),
        attr=attr, constructor=constructor, owner="class",
        # the fixer rewrites ``__init__``'s own statements only, and a handle whose parts
        # ``__init__`` takes would still be opened there
        fixable=kind == "handle" and not handle.parts and method.name == "__init__" and not arrived,
    )
    for part in handle.parts:
        reported.add((cls.module, part.store.span))


def _filled_opening(model: Model, dataset: Inst, cls: Cls, method, store, constructor: str) -> Optional[Span]:
    """Where the handles of a collection made empty (``self.captures = []``, ``self.h5 = {}``)
    and filled in the same method are opened: the first ``constructor`` call among its items."""
    ctx = model.resolver.method_ctx(dataset, cls.module, method)
    for found in model.resolver.eval(store.value, ctx):
        container = found.obj
        if not isinstance(container, Container):
            continue
        display = container.value
        if (isinstance(display, Seq) and display.items) or (isinstance(display, DictDisplay) and display.keys):
            return None  # built with its handles: the store is where they are opened
        for item in _built_items(model, container):
            obj = item.obj
            if isinstance(obj, Inst) and isinstance(obj.cls, Ext) and obj.cls.qualname == constructor \
                    and obj.site is not None and obj.site.module == cls.module:
                return model.project.call(obj.site).span
    return None


def _arrival(model: Model, dataset: Inst, cls: Cls, method, store) -> Tuple[Step, ...]:
    """How the handle the store keeps reached the method, when it was opened elsewhere and
    passed in (``PatchDataset(self.h5, ...)`` in a data module's ``setup()``): the steps of
    its answer, which end where it was opened; empty when the method opens it itself."""
    ctx = model.resolver.method_ctx(dataset, cls.module, method)
    for found in model.resolver.eval(store.value, ctx):
        if found.trail and handle_of(model, (found,)) is not None:
            return tuple(step for step in found.trail if step.module != cls.module or step.span != store.span)
    return ()


def _listed(attrs: List[str]) -> str:
    names = [f"`self.{attr}`" for attr in attrs]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


# Methods the main process runs on the dataset before (and between) the workers' starts:
# ``__init__``, and ``__len__``, which the sampler calls (``RandomSampler`` at construction,
# every sampler when an epoch's indexes are drawn, so a later epoch's workers inherit what it
# opened; ``len(loader)`` too). A handle opened lazily there is the parent's.
PARENT_METHODS = ("__init__", "__len__")


def _parent_opener(model: Model, dataset: Inst, cls: Cls, method) -> Optional[str]:
    """Which of ``PARENT_METHODS`` runs ``method`` in the main process: the method itself, or
    one calling it directly (a helper or staticmethod), of the dataset's class or of the class
    defining the helper (a mixin's ``open_lmdb`` called from the dataset's ``__init__`` is
    found through the MRO), or a property one of them reads (``self.env`` in ``__init__``
    runs the lazy ``env`` property there); None for a method only workers run."""
    if method.name in PARENT_METHODS:
        return method.name
    target = Func(cls.module, method.qualname)
    summary = model.function_summary(target)
    read_as_property = summary is not None and model.resolver.is_property(summary)
    for name in PARENT_METHODS:
        for owner in (dataset.cls, cls):
            caller = model.resolver.method(owner, name)
            if caller is not None and _runs(model, dataset, caller, target, method.name, read_as_property, 1):
                return name
    return None


def _runs(model: Model, dataset: Inst, caller, target: Func, name: str, as_property: bool, depth: int) -> bool:
    """Whether ``caller`` runs ``target``: calls it, or reads it as the property ``name``,
    itself or through the dataset's methods it calls (``depth`` more levels: ``__init__``
    calls ``self._read_length()``, which opens the lazy ``env`` property)."""
    summary = model.function_summary(caller)
    if summary is None:
        return False
    if as_property and name in summary.self_reads:
        return True
    callees = [callee for callee, _, _ in model.callees(caller, dataset)]
    if target in callees:
        return True
    return depth > 0 and any(_runs(model, dataset, callee, target, name, as_property, depth - 1)
                             for callee in callees if callee.module == caller.module)


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


CACHE_DECORATORS = frozenset({"lru_cache", "cache", "functools.lru_cache", "functools.cache"})


def _cached_handle(model: Model, loader, function, reported) -> Iterator[Finding]:
    """A cached opener (``@functools.lru_cache`` on ``def _archive(self, path): return
    zipfile.ZipFile(path)``) that worker code calls and the main process calls first (from
    ``__init__``, ``__len__`` or module level): the cache the workers inherit holds the
    parent's handles, and they reuse them instead of opening their own."""
    func = function.func
    summary = model.function_summary(func)
    if summary is None or not summary.returns or not _cached(model, func, summary):
        return
    returned = _returned_handle(model, func, summary, function.self_obj)
    if returned is None:
        return
    constructor, span = returned
    parent = next((site for site, _ in model.resolver.callers(func)
                   if _runs_in_parent(model.project.call(site).scope)), None)
    if parent is None or _cleared_by_worker_init(model, loader, function.self_obj, summary.name):
        return
    key = (func.module, span)
    if key in reported:
        return
    reported.add(key)
    name = summary.qualname.replace(".<locals>", "")
    short = constructor.replace("builtins.", "")
    caller = model.project.call(parent).scope.rpartition(".")[2] or "module-level code"
    yield finding(
        model, CODE, func.module, span,
        f"`{short}(...)` returned by `{name}`, whose cache the main process fills first (from `{caller}`), is "
        f"shared by every DataLoader worker (they reuse the cached handle: one file offset / decoder state): "
        f"clear the cache in each worker (`{name}.cache_clear()` in a `worker_init_fn`), or let the main "
        f"process read through a handle it closes",
        (Step(parent.module, model.project.call(parent).span, "called here by the main process"),) + tuple(function.trail),
        fixable=False,
    )


def _cached_properties(model: Model, dataset: Inst, attrs: Set[str], function, reported) -> Iterator[Finding]:
    """A ``functools.cached_property`` returning a handle (``def _h5(self): return
    h5py.File(self.path)``) that worker code reads (``attrs``, properties followed) and that
    ``__init__`` or ``__len__`` reads first, itself or through a property (``self.images.shape``
    with ``images`` reading ``self._h5``): the handle is opened in the main process and kept
    in the dataset's ``__dict__``, which every worker copies."""
    parent_reads = {}
    for name in PARENT_METHODS:
        method = model.resolver.method(dataset.cls, name)
        summary = model.function_summary(method) if method is not None else None
        if summary is not None:
            for attr in model.through_properties(dataset.cls, set(summary.self_reads), depth=3):
                parent_reads.setdefault(attr, name)
    for attr in sorted(attrs):
        method = model.resolver.method(dataset.cls, attr) if attr in parent_reads else None
        summary = model.function_summary(method) if method is not None else None
        if summary is None or not summary.returns or not model.resolver.is_cached_property(summary):
            continue
        returned = _returned_handle(model, method, summary, dataset)
        if returned is None:
            continue
        constructor, span = returned
        if (method.module, span) in reported:
            continue
        reported.add((method.module, span))
        klass = model.project.klass(dataset.cls.module, dataset.cls.qualname)
        short = constructor.replace("builtins.", "")
        opener = parent_reads[attr]
        yield finding(
            model, CODE, method.module, span,
            f"`{short}(...)` returned by the cached property `{klass.name}.{attr}`, which `{opener}` reads in the "
            f"main process, is kept in the dataset and shared by every DataLoader worker (one file offset / "
            f"decoder state): let `{opener}` read what it needs through a handle it closes, so that each worker "
            f"opens its own on first use",
            tuple(function.trail), fixable=False,
        )


def _returned_handle(model: Model, func: Func, summary, self_obj) -> Optional[Tuple[str, object]]:
    """(constructor, span) of the handle ``func`` returns (run on ``self_obj``): the span of
    the call making it when that call is in ``func``'s module, else the function's name;
    None when it returns no handle."""
    ctx = Ctx(func.module, func.qualname, None, None, self_obj)
    made = [f for value in summary.returns for f in model.resolver.eval(value, ctx)]
    constructor = handle_of(model, made)
    if constructor is None:
        return None
    handle = next((f.obj for f in made if isinstance(f.obj, Inst) and f.obj.site is not None
                   and f.obj.site.module == func.module), None)
    return constructor, (model.project.call(handle.site).span if handle is not None else summary.span)


def _cleared_by_worker_init(model: Model, loader, dataset, name: str) -> bool:
    """The ``worker_init_fn`` empties the cache (``Shards._archive.cache_clear()``)."""
    init = effects.worker_init(model, loader, dataset)
    for func in [*init.functions, *init.methods.values()]:
        summary = model.function_summary(func)
        names = summary.loads | summary.attr_loads if summary is not None else frozenset()
        if "cache_clear" in names and name in names:
            return True
    return False


def _cached(model: Model, func: Func, summary) -> bool:
    """Whether ``func`` is decorated with ``functools.lru_cache``/``cache`` (called or not)."""
    from ..analysis.values import Call, dotted, last_name

    for decorator in summary.decorators:
        if type(decorator) is Call:
            decorator = model.project.summary(func.module).calls[decorator.index].func
        if (dotted(decorator) or "") in CACHE_DECORATORS or last_name(decorator) in CACHE_DECORATORS:
            return True
    return False


def _runs_in_parent(scope: str) -> bool:
    """Code the main process runs before the workers start: module level, ``__init__``, ``__len__``."""
    return not scope or scope.rpartition(".")[2] in PARENT_METHODS


def _module_handles(model: Model, function, reported) -> Iterator[Finding]:
    summary = model.function_summary(function.func)
    module_summary = model.project.summary(function.func.module)
    for name in summary.loads:
        if name in summary.bindings:
            continue
        if name not in module_summary.bindings or all(b.kind == "import" for b in module_summary.bindings[name]):
            yield from _imported_handles(model, function, name, reported)
            continue
        for binding in module_summary.bindings[name]:
            if binding.kind != "assign" or binding.guarded:
                continue
            opener = _global_opener(model, function.func.module, module_summary, name, binding)
            if opener is not None and not _opened_first_by_parent(model, opener):
                continue  # ``global _CONN`` set lazily by a function only workers call, or per process
            constructor = handle_of(model, model.resolver.eval(binding.value, Ctx(function.func.module)))
            if constructor is None:
                continue
            key = (function.func.module, binding.span)
            if key in reported:
                continue
            reported.add(key)
            short = constructor.replace("builtins.", "")
            if opener is None:
                what = f"`{short}(...)` opened at module level as `{name}`"
                remedy = LAZY_OPEN
            else:
                what = (f"`{short}(...)` kept in the module global `{name}` by `{opener.qualname}()`, which the main "
                        f"process calls first,")
                remedy = "reopen it when the process changes (compare `os.getpid()`), or let only the workers call it"
            yield _module_handle(model, function, function.func.module, binding.span, what, remedy, name, constructor)


LAZY_OPEN = "open it lazily in the worker, on first use in `__getitem__`"


def _module_handle(model: Model, function, module: str, span, what: str, remedy: str, name: str,
                   constructor: str) -> Finding:
    """A module-level handle worker code reads: where it is opened (``what``), how to fix it."""
    return finding(
        model, CODE, module, span,
        f"{what} and read by worker code (`{model.function_summary(function.func).name}`) is shared by every "
        f"DataLoader worker: {remedy}",
        tuple(function.trail),
        attr=name, constructor=constructor, owner="module",
        fixable=False,  # the fixer rewrites handles opened in ``__init__`` only
    )


def _imported_handles(model: Model, function, name: str, reported) -> Iterator[Finding]:
    """A handle another project module opens at module level (``X_FILE = h5py.File(...)`` in
    ``utils.py``) that worker code reads through an import (``from utils import X_FILE``, also
    ``from utils import *``): every process that imports that module before forking shares it."""
    for found in model.resolver.global_name(function.func.module, name):
        obj = found.obj
        constructor = handle_of(model, (found,))
        if constructor is None or not isinstance(obj, Inst) or obj.site is None \
                or obj.site.module == function.func.module or obj.site.module not in model.project.modules:
            continue
        site = model.project.call(obj.site)
        key = (obj.site.module, site.span)
        if site.scope or site.guarded or key in reported:
            continue  # opened in a function (a factory the worker may call itself), or only when run as a script
        reported.add(key)
        short = constructor.replace("builtins.", "")
        home = model.project.modules[obj.site.module].name or obj.site.module
        yield _module_handle(model, function, obj.site.module, site.span,
                             f"`{short}(...)` opened at module level as `{name}` (imported from `{home}`)", LAZY_OPEN,
                             name, constructor)


def _global_opener(model: Model, module: str, summary, name: str, binding) -> Optional[Func]:
    """The function that binds the module global ``name`` (``global _CONN`` then ``_CONN =
    sqlite3.connect(...)``) at ``binding``, or None for a binding made at module level."""
    for function in summary.functions.values():
        if effects.binds_global(function, name, binding):
            return Func(module, function.qualname)
    return None


def _opened_first_by_parent(model: Model, opener: Func) -> bool:
    """Whether the main process runs a lazy opener of a module global before the workers (a
    caller at module level, in ``__init__`` or ``__len__``), and it does not reopen the handle
    in a new process (a check of ``os.getpid()``)."""
    summary = model.function_summary(opener)
    if summary is None or "getpid" in summary.attr_loads | summary.loads:
        return False
    return any(_runs_in_parent(model.project.call(site).scope) for site, _ in model.resolver.callers(opener))


from ..analysis.values import NONE as _NONE  # noqa: E402
