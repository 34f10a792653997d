"""DSL501 copy-on-read (off by default): a Python list/dict of objects read by workers.

Reading a Python object in a forked worker writes its reference count, which copies the
page holding it: a large list of Python objects indexed in ``__getitem__`` ends up copied
into every worker, and memory grows until the OOM killer ends a worker. Fires only with
evidence of many objects: a parsed annotation file (``json.load``, ``pickle.load``,
``yaml.safe_load``), per-sample dicts or objects appended in a loop or built by a
comprehension, tuples made of the lines of a text file (one per sample); a plain list of file
paths (``sorted(glob(...))``) is left alone.
"""

from __future__ import annotations

from typing import Iterator, Optional, Set, Tuple

from ..analysis.summary import Span
from ..analysis.values import Attr, Call, Const, DictDisplay, Element, Item, Name, Part, Seq, Starred, mentions
from ..diagnostics import Finding
from ..model.libraries import parsed_table
from ..model.objects import Cls, Container, Ext, Inst, Iterated, Lit, Step
from ..model.project import sites_in_scope
from ..model.queries import WORKER_METHODS, Model
from ..model.resolver import innermost_block
from .base import finding

CODE = "DSL501"


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
        if _streamed(model, obj.cls):
            continue
        for item in model.resolver.mro(obj.cls):
            if not isinstance(item, Cls):
                continue
            stores = model.resolver.self_stores(item)
            for attr in sorted(attrs & set(stores)):
                for method, store in stores[attr]:
                    if method.name in WORKER_METHODS or _replaced_later(store, stores[attr]):
                        continue
                    ctx = model.resolver.method_ctx(obj, item.module, method)
                    if not model.resolver.branch_taken(method, store.block, ctx):
                        continue  # ``if self._serialize: ... else: self._lst = lst`` and it is built serialized
                    sizes = _sizes(model, obj.cls, attr)
                    per_sample = sizes or _indexed_by_sample(model, obj.cls, attr)
                    evidence = _many_objects(model, model.resolver.eval(store.value, ctx), sizes, per_sample) \
                        or _grouped_records(model, obj, item, attr)
                    if evidence is None or (item, attr) in reported:
                        continue  # one finding per attribute: its other stores are the same cause
                    if _emptied_after(model, obj, item, method, store, ctx):
                        continue  # packed into one buffer and cleared before any worker starts
                    reported.add((item, attr))
                    klass = model.project.klass(item.module, item.qualname)
                    span, steps = store.span, tuple(function.trail)
                    filled = _filled_elsewhere(model, item, attr, method.qualname, store.value)
                    if filled is not None:  # ``self.infos = []`` in ``__init__``, filled by a loading method
                        span, steps = filled, (Step(item.module, store.span, f"`self.{attr}` made here"),) + steps
                    yield finding(
                        model, CODE, item.module, span,
                        f"`self.{attr}` of `{klass.name}` holds {evidence} and is read by forked DataLoader "
                        f"workers: reference-count writes copy it into every worker; store it as numpy/pyarrow "
                        f"arrays",
                        steps,
                    )


def _emptied_after(model: Model, obj: Inst, cls: Cls, method, store, ctx) -> bool:
    """``self.<attr>`` is emptied after it is stored, by the storing method or by a method of
    the object it then calls, on a branch the construction takes (mmengine's
    ``_serialize_data`` packs ``self.data_list`` into one numpy buffer and calls
    ``self.data_list.clear()``): the workers never see its objects."""
    summary = model.project.summary(cls.module)
    own = method.params[0].name if method.params else ""
    for index in sites_in_scope(model.project, cls.module, method.qualname):
        site = summary.calls[index]
        if site.span.row <= store.span.row or \
                not model.resolver.branch_taken(method, innermost_block(method.blocks, site.span.row), ctx):
            continue
        if _clears(site, own, store.attr):
            return True
        func = site.func
        if type(func) is Attr and type(func.base) is Name and func.base.id == own and own:
            callee = model.resolver.method(obj.cls, func.name)
            if callee is not None and _clears_always(model, callee, store.attr):
                return True
    return False


def _clears_always(model: Model, method, attr: str) -> bool:
    """The method calls ``self.<attr>.clear()`` outside any conditional block of its own."""
    function = model.function_summary(method)
    if function is None or not function.params:
        return False
    calls = model.project.summary(method.module).calls
    return any(_clears(calls[i], function.params[0].name, attr) and innermost_block(function.blocks, calls[i].span.row) < 0
               for i in sites_in_scope(model.project, method.module, method.qualname))


def _clears(site, own: str, attr: str) -> bool:
    """``<own>.<attr>.clear()``."""
    func = site.func
    return type(func) is Attr and func.name == "clear" and not site.args and type(func.base) is Attr \
        and func.base.name == attr and type(func.base.base) is Name and func.base.base.id == own


def _replaced_later(store, stores) -> bool:
    """A later statement of the same method assigns the attribute again, unconditionally
    (``self.data = []`` filled with arrays, then ``self.data = np.vstack(self.data)``): the
    workers read what that one stores."""
    return any(other.scope == store.scope and other.attr == store.attr and other.kind == "assign"
               and other.block == -1 and other.loop == -1 and other.span.row > store.span.row
               for _, other in stores)


def _streamed(model: Model, cls) -> bool:
    """A dataset that only streams (``__iter__`` and no ``__getitem__``): the lists it holds are
    the work its workers split (shards, scenes, files), walked once per pass, not a table of
    records looked up per sample (the rule's page: read in ``__getitem__``)."""
    resolver = model.resolver
    return (isinstance(cls, Cls) and resolver.method(cls, "__iter__") is not None
            and resolver.method(cls, "__getitem__") is None and resolver.method(cls, "__getitems__") is None)


def _filled_elsewhere(model: Model, cls: Cls, attr: str, scope: str, value) -> Optional[Span]:
    """Where another method of the class fills ``self.<attr>`` (``self.infos.extend(infos)``)
    when the store only made it an empty list: the place the records come in."""
    if not (type(value) is Seq and value.kind == "list" and not value.items):
        return None
    summary = model.project.summary(cls.module)
    for site in summary.calls:
        func = site.func
        if site.scope == scope or type(func) is not Attr or func.name not in ("append", "extend", "insert"):
            continue
        method = summary.functions.get(site.scope)
        if method is not None and method.scope == cls.qualname and _self_attribute(method, func.base, attr):
            return site.span
    return None


def _self_attribute(method, value, attr: str) -> bool:
    """Whether ``value`` is ``self.<attr>`` of ``method`` (its first parameter's attribute)."""
    return bool(method.params) and type(value) is Attr and value.name == attr and type(value.base) is Name \
        and value.base.id == method.params[0].name


def _grouped_records(model: Model, obj: Inst, cls: Cls, attr: str) -> Optional[str]:
    """"the records of a parsed annotation file, grouped" when a method of the class appends,
    in a loop, records of a parsed file to the lists the attribute maps keys to
    (``self.frames_by_seq[fa["sequence_name"]].append(fa)`` for each ``fa`` of a
    ``json.load``): a dict of lists holding every record."""
    summary = model.project.summary(cls.module)
    for site in summary.calls:
        func = site.func
        if type(func) is not Attr or func.name not in ("append", "extend") or not site.args or site.loop < 0:
            continue
        method = summary.functions.get(site.scope)
        if method is None or method.scope != cls.qualname or type(func.base) is not Item \
                or not _self_attribute(method, func.base.base, attr):
            continue
        ctx = model.resolver.method_ctx(obj, cls.module, method)
        found = model.resolver.eval(site.args[0], ctx)
        if found and all(_parsed_record(f.obj) or _parsed(f.obj) for f in found):
            return "the records of a parsed annotation file, grouped in lists"
    return None


def _many_objects(model: Model, results, sizes: bool = False, per_sample: bool = False) -> Optional[str]:
    """What makes the stored value many Python objects: a parsed annotation file, a part of one
    when the attribute is what the dataset's length counts (``self.patches =
    index["patches"]`` with ``__len__`` returning ``len(self.patches)``), a list of dicts or
    objects built per element."""
    for found in results:
        obj = found.obj
        if _parsed(obj):
            return f"a parsed annotation file (`{obj.cls.qualname}`)"
        if _frame_records(model, obj):
            return "a table's rows as Python dicts (`DataFrame.to_dict(\"records\")`)"
        table = _table_of(obj)
        if sizes and table is not None:
            return f"the entries of a parsed annotation file (`{table}`, one per sample)"
        if isinstance(obj, Container) and obj.kind == "dict" and per_sample and _line_keyed_entries(model, obj):
            return "a Python dict of per-sample records (one per line of a text file)"
        if isinstance(obj, Container):
            kinds = _element_kinds(model, obj, sizes, per_sample)
            if kinds & {"dict", "object", "table"}:
                return "a Python list of per-sample dicts/objects" if "table" not in kinds else \
                    "Python objects built from a loaded annotation table"
            if "line" in kinds:
                return "a Python list of tuples (one per line of a text file)"
            if "record" in kinds:
                return "a Python list of tuples (made from the records of a parsed annotation file)"
    return None


def _element_kinds(model: Model, container: Container, sizes: bool = False, per_sample: bool = False) -> Set[str]:
    """What a list holds, when it is many things: dicts built per element by a comprehension,
    dicts or objects appended in a loop, loaded annotation tables. A literal list of a few
    objects (``[Resize(), Flip()]``) says nothing about its size. Appends in a loop through an
    attribute (``self.samples.append({...})``) count when the attribute is what the
    dataset's length counts (``sizes``), when each appends a parsed record
    (``self.records.append(json.loads(line))``, one per line of a file), or when each appends
    a dict read out of a parsed file's records and ``__getitem__`` picks the attribute's
    entries by the sample index (``per_sample``: ``self.samples[self.active[idx]]``): an
    attribute filled in a loop is otherwise as often one entry per class or patch size."""
    kinds: Set[str] = set()
    elements = list(model.resolver.appended(container, in_loops=True))
    elements += [f for f in model.resolver.appended(container, in_loops=True, attributes=True)
                 if _parsed(f.obj) or per_sample and _from_parsed_file(model, f.obj)
                 or sizes and (not isinstance(f.obj, Inst) or _project_object(f.obj) or _table_of(f.obj) is not None)]
    if container.kind == "comp":
        elements += [f for f in model.resolver.container_values(container)
                     if isinstance(f.obj, Container) and f.obj.kind == "dict" or _parsed_record(f.obj)
                     or sizes and _table_of(f.obj) is not None]  # ``[rec["properties"] for rec in table]``
    if container.kind == "comp" and sizes and per_sample:
        elements += [f for f in model.resolver.container_values(container) if _line_tuple(model, f.obj)]
    for found in elements:
        obj = found.obj
        if isinstance(obj, Container) and obj.kind == "dict":
            kinds.add("dict")
        elif sizes and per_sample and _line_tuple(model, obj):
            kinds.add("line")
        elif per_sample and isinstance(obj, Container) and obj.kind == "tuple" and _from_parsed_file(model, obj):
            kinds.add("record")
        elif _project_object(obj) and not model.is_dataset_class(obj.cls):
            kinds.add("object")  # a list of datasets (one per language pair or shard) is not per sample
        elif _parsed(obj) or _parsed_record(obj) or sizes and _table_of(obj) is not None:
            kinds.add("table")
    return kinds


# what iterating gives one line (or row) of a text file
LINE_SOURCES = frozenset({"builtins.open", "builtins.open().readlines", "builtins.open().read().splitlines",
                          "builtins.open().read().split", "io.open", "codecs.open", "csv.reader",
                          "pathlib.Path().read_text().splitlines", "pathlib.Path().open"})


def _line_tuple(model: Model, obj) -> bool:
    """A tuple made of what a loop or comprehension reads from a text file's lines
    (``(path, spk2idx[ln.split()[0]]) for ln in f.read().splitlines()``, ``h, r, t =
    line.split("\\t")`` then ``(ent[h], rel[r], ent[t])``): one record per line."""
    if not (isinstance(obj, Container) and obj.kind == "tuple" and isinstance(obj.value, Seq)):
        return False
    return _from_lines(model, obj.ctx, obj.value.items)


def _from_lines(model: Model, ctx, values) -> bool:
    """Whether ``values`` are made of the lines of a text file: the names they load lead,
    through the assignments and loops of their own function (a few steps deep), to the
    variable of a loop over a file's lines."""
    function = model.project.function(ctx.module, ctx.scope) if ctx.scope else None
    if function is None:
        return False
    calls = model.project.summary(ctx.module).calls
    names: Set[str] = set()
    for value in values:
        _names_in(value, calls, names)
    seen: Set[str] = set()
    for _ in range(5):
        following: Set[str] = set()
        for name in names - seen:
            seen.add(name)
            for binding in function.bindings.get(name, ()):
                if binding.kind == "loop":
                    if any(isinstance(f.obj, Iterated) and _line_source(f.obj.base)
                           for f in model.resolver.eval(binding.value, ctx)):
                        return True
                    _names_in(binding.value, calls, following)  # ``for name in id_list``: where the list comes from
                elif binding.kind == "assign":
                    _names_in(binding.value, calls, following)
        names = following
    return False


def _line_keyed_entries(model: Model, container: Container) -> bool:
    """A dict filled in a loop, one entry per line of a text file (``for name in id_list:
    data[name] = {"motion": ..., "text": ...}`` with ``id_list`` the lines of a split file),
    whose entries are dicts, tuples or project objects: one record per sample."""
    if not isinstance(container.value, DictDisplay):
        return False
    for store, ctx in model.resolver.display_item_stores(container):
        if store.loop < 0 or type(store.key) is Const or type(store.target) is not Name:
            continue
        values = model.resolver.eval(store.value, ctx)
        if values and all(isinstance(f.obj, Container) and f.obj.kind in ("dict", "tuple") or _project_object(f.obj)
                          for f in values) and _from_lines(model, ctx, (store.key,)):
            return True
    return False


def _line_source(obj) -> bool:
    return isinstance(obj, Inst) and isinstance(obj.cls, Ext) and obj.cls.qualname in LINE_SOURCES


def _names_in(value, calls, out: Set[str], depth: int = 0) -> None:
    """The names ``value`` loads, through attributes, items, parts and the calls it holds."""
    if depth > 8:
        return
    kind = type(value)
    if kind is Name:
        out.add(value.id)
    elif kind in (Attr, Element, Starred):
        _names_in(value[0], calls, out, depth + 1)
    elif kind in (Item, Part):
        _names_in(value.base, calls, out, depth + 1)
        if kind is Item:
            _names_in(value.key, calls, out, depth + 1)
    elif kind is Call:
        site = calls[value.index]
        _names_in(site.func, calls, out, depth + 1)
        for arg in site.args:
            _names_in(arg, calls, out, depth + 1)
    elif kind is Seq:  # a display, or a comprehension's element
        for item in value.items:
            _names_in(item, calls, out, depth + 1)


def _from_parsed_file(model: Model, obj) -> bool:
    """A dict or tuple display holding a value read out of a parsed annotation file
    (``{"file_name": im["file_name"], "bbox": ann["bbox"]}`` appended in a loop over
    ``coco["annotations"]``, ``(a, b, paper["year"])`` per pair of a paper's authors): one
    entry per record of the file, or more."""
    if not (isinstance(obj, Container) and (obj.kind == "dict" and isinstance(obj.value, DictDisplay)
                                            or obj.kind == "tuple" and isinstance(obj.value, Seq))):
        return False
    return any(_table_of(f.obj) is not None or _parsed_record(f.obj) for f in model.resolver.container_values(obj))


def _project_object(obj) -> bool:
    return isinstance(obj, Inst) and isinstance(obj.cls, Cls)


def _table_of(obj) -> Optional[str]:
    """The parser (``json.load``) whose result ``obj`` is, or a part of (``json.load[]``): None
    for anything else (a record taken from one is ``_parsed_record``)."""
    return None if isinstance(obj, Iterated) else parsed_table(obj)


def _frame_records(model: Model, obj) -> bool:
    """A pandas table's rows made Python dicts, one per row: ``df.to_dict("records")`` (or
    ``orient="index"``)."""
    if not (isinstance(obj, Inst) and isinstance(obj.cls, Ext) and obj.site is not None
            and obj.cls.qualname.startswith("pandas.") and obj.cls.qualname.endswith("().to_dict")):
        return False
    orient = model.resolver.keyword_at(obj.site, obj.ctx, "orient", 0) or ()
    return bool(orient) and all(isinstance(f.obj, Lit) and f.obj.value in ("records", "index") for f in orient)


def _parsed(obj) -> bool:
    """What a parser returns: a loaded annotation table, or one record (``json.loads(line)``)."""
    return _table_of(obj) is not None and not obj.cls.qualname.endswith(("[]", "[:]"))


def _parsed_record(obj) -> bool:
    """An item a loop or comprehension takes from a parsed table or a part of one (``for img
    in coco["images"]``): one record of the file. A part itself (``entry["data"]``) may be an
    array: it is not counted."""
    return isinstance(obj, Iterated) and parsed_table(obj) is not None


def _indexed_by_sample(model: Model, cls, attr: str) -> bool:
    """``__getitem__`` subscripts ``self.<attr>`` with its index parameter, directly or inside
    the key (``self.samples[idx]``, ``self.samples[self.active[idx]]``): one entry per sample,
    not a per-class table read by a label."""
    method = model.resolver.method(cls, "__getitem__") if isinstance(cls, Cls) else None
    function = model.function_summary(method) if method is not None else None
    if function is None or len(function.params) < 2:
        return False
    own, index = function.params[0].name, function.params[1].name
    calls = model.project.summary(method.module).calls
    values = [b.value for items in function.bindings.values() for b in items] + list(function.returns)
    values += [a for index in sites_in_scope(model.project, method.module, method.qualname) for a in calls[index].args]
    return any(_subscripts(value, own, attr, index, calls) for value in values)


def _subscripts(value, own: str, attr: str, index: str, calls, depth: int = 0) -> bool:
    if depth > 8:
        return False
    kind = type(value)
    if kind is Item:
        base = value.base
        if type(base) is Attr and type(base.base) is Name and base.base.id == own and base.name == attr \
                and mentions(value.key, {index}, calls):
            return True
        return _subscripts(base, own, attr, index, calls, depth + 1) or \
            _subscripts(value.key, own, attr, index, calls, depth + 1)
    if kind is Attr:
        return _subscripts(value.base, own, attr, index, calls, depth + 1)
    if kind is Call:
        site = calls[value.index]
        return any(_subscripts(a, own, attr, index, calls, depth + 1) for a in site.args)
    return False


def _sizes(model: Model, cls, attr: str) -> bool:
    """The class's ``__len__`` returns ``len(self.<attr>)``, or the length of an index made
    from it (``self.indices = np.arange(len(self.anns))`` and ``len(self.indices)``): the
    attribute holds one entry per sample."""
    method = model.resolver.method(cls, "__len__") if isinstance(cls, Cls) else None
    function = model.function_summary(method) if method is not None else None
    if function is None or not function.params:
        return False
    calls = model.project.summary(method.module).calls
    for value in function.returns:
        counted = _length_attribute(calls[value.index], function.params[0].name) if type(value) is Call else None
        if counted is not None and (counted == attr or _index_of(model, cls, counted, attr)):
            return True
    return False


def _length_attribute(site, own: str) -> Optional[str]:
    """``<attr>`` of the call ``len(<own>.<attr>)``; None for any other call."""
    if type(site.func) is Name and site.func.id == "len" and len(site.args) == 1:
        held = site.args[0]
        if type(held) is Attr and type(held.base) is Name and held.base.id == own:
            return held.name
    return None


def _index_of(model: Model, cls: Cls, index: str, attr: str) -> bool:
    """``self.<index>`` is stored (in some method) from ``len(self.<attr>)``: an index over its entries."""
    if index == attr:
        return False
    calls = model.project.summary(cls.module).calls
    return any(_length_of(store.value, method.params[0].name, attr, calls)
               for method, store in model.resolver.self_stores(cls).get(index, ()))


def _length_of(value, own: str, attr: str, calls, depth: int = 0) -> bool:
    """``value`` is made from ``len(<own>.<attr>)`` (``np.arange(len(self.anns))``)."""
    if depth > 6 or type(value) is not Call:
        return False
    site = calls[value.index]
    counted = _length_attribute(site, own)
    if counted is not None:
        return counted == attr
    return any(_length_of(arg, own, attr, calls, depth + 1) for arg in site.args)
