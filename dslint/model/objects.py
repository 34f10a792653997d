"""What the resolver says a value is: abstract objects, contexts and evidence.

A symbolic value (``analysis.values``) means different things in different places: a
parameter is whatever its callers pass. The resolver evaluates a value *in a context* and
answers with a few abstract objects, each with the trail of places that made it so (the
default that made ``num_workers`` zero, the call that passed the lambda). Objects are
small hashable tuples so results can be memoised and compared.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Tuple, Union

from ..analysis.summary import Span
from ..analysis.values import distinct_types


class SiteRef(NamedTuple):
    """A call site of the project: the module's key and the index in its call table."""

    module: str
    index: int


class _CtxFields(NamedTuple):
    module: str
    scope: str = ""
    call: Optional[SiteRef] = None
    caller: Optional["Ctx"] = None
    self_obj: Optional["Obj"] = None
    shift: int = 0  # positional arguments of ``call`` that are not the function's (functools.partial)
    level: int = 0  # how deeply contexts nest in this one (bounded: see MAX_LEVEL)
    digest: int = 0  # the hash, computed once (see ``nested``)


class Ctx(_CtxFields):
    """Where a value is evaluated.

    ``scope`` is the function (or class body, or "" for the module) whose names the value
    uses. ``call`` is the call that invoked that function, binding its parameters, with
    ``caller`` the context of that call's arguments; a context without ``call`` stands for
    every caller at once. ``self_obj`` is the instance a method runs on, when known.
    Contexts nest (a caller's context, an instance built in another context); beyond
    ``MAX_LEVEL`` the outer parts are dropped, so objects stay small and recursion ends.
    """

    __slots__ = ()

    def __new__(cls, module, scope="", call=None, caller=None, self_obj=None, shift=0, level=None):
        if caller is None and self_obj is None:  # the common context: nothing nested
            digest = hash(("Ctx", module, scope, call, None, None, shift, 0))
            return tuple.__new__(cls, (module, scope, call, None, None, shift, 0, digest))
        level = 1 + max(caller.level if caller is not None else -1, level_of(self_obj) - 1)
        if level > MAX_LEVEL:
            caller = None
            self_obj = Inst(self_obj.cls) if isinstance(self_obj, Inst) else None
            level = 0
        fields = (module, scope, call, caller, self_obj, shift, level)
        return tuple.__new__(cls, fields + (hash(("Ctx",) + fields),))

    def depth(self) -> int:
        depth, ctx = 0, self
        while ctx is not None and ctx.call is not None:
            depth += 1
            ctx = ctx.caller
        return depth


MAX_LEVEL = 6


class Lit(NamedTuple):
    """A Python literal (int, float, str, bool, None)."""

    value: Any


class PositiveInt(NamedTuple):
    """An int known to be positive whose value is not known (``os.cpu_count()``)."""

    why: str = ""


class Top(NamedTuple):
    """Anything: the model does not know. Never a finding by itself."""

    why: str = ""


class Func(NamedTuple):
    """A function (or lambda) of the project."""

    module: str
    qualname: str


class Cls(NamedTuple):
    """A class of the project."""

    module: str
    qualname: str


class Ext(NamedTuple):
    """Something outside the project, by its dotted name (``torch.utils.data.DataLoader``)."""

    qualname: str


class Mod(NamedTuple):
    """A module of the project."""

    module: str


class Inst(NamedTuple):
    """An object built by calling ``cls`` (a ``Cls`` or an ``Ext``) at ``site`` in ``ctx``.

    ``site`` None: an instance whose construction is not known (``self`` seen from inside
    the class). An ``Ext`` instance is also what calling an outside function returns.
    """

    cls: "Obj"
    site: Optional[SiteRef] = None
    ctx: Optional[Ctx] = None
    digest: int = 0  # the hash, computed once (see ``nested``)


class Bound(NamedTuple):
    """A method of ``self_obj``."""

    self_obj: "Obj"
    func: Func
    digest: int = 0  # the hash, computed once (see ``nested``)


class Container(NamedTuple):
    """A list/tuple/set/dict display or comprehension, kept symbolic with its context."""

    kind: str  # list | tuple | set | comp | dict
    value: Any  # the analysis.values display
    ctx: Ctx
    site: Optional[SiteRef] = None  # the ``dict(...)`` call it came from (its keywords have spans)
    digest: int = 0  # the hash, computed once (see ``nested``)


class Managed(NamedTuple):
    """A loader handed back by a framework (``accelerator.prepare``) that manages it."""

    loader: Inst
    library: str
    moves_batches: str  # "device" | "non_blocking"
    shards: bool
    sets_epoch: bool
    digest: int = 0  # the hash, computed once (see ``nested``)


class Batch(NamedTuple):
    """Data that came out of iterating a loader; ``on_device`` once copied to a GPU."""

    loader: Union[Inst, Managed]
    on_device: bool = False
    digest: int = 0  # the hash, computed once (see ``nested``)


class Iterated(NamedTuple):
    """An element of iterating something that is not a known loader."""

    base: "Obj"
    digest: int = 0  # the hash, computed once (see ``nested``)


class Gen(NamedTuple):
    """The generator a call of the generator function ``func`` returns (its yields in ``ctx``)."""

    func: Func
    ctx: Ctx
    digest: int = 0  # the hash, computed once (see ``nested``)


class Namespace(NamedTuple):
    """What ``parser.parse_args()`` returns: attributes are the parser's argument defaults."""

    parser: Inst
    digest: int = 0  # the hash, computed once (see ``nested``)


class Hparams(NamedTuple):
    """``self.hparams`` of a Lightning module whose ``__init__`` calls ``save_hyperparameters()``:
    its attributes are ``__init__``'s arguments as ``inst`` was built."""

    inst: Inst
    digest: int = 0  # the hash, computed once (see ``nested``)


class Config(NamedTuple):
    """A mapping of a YAML configuration file (``model.yamlconfig``): the file's path and the
    keys leading to it (``()`` for the whole file)."""

    path: str
    keys: Tuple[str, ...] = ()


class Kwargs(NamedTuple):
    """The ``**kwargs`` parameter of ``func`` as bound at ``ctx.call``."""

    func: Func
    ctx: Ctx
    digest: int = 0  # the hash, computed once (see ``nested``)


class Varargs(NamedTuple):
    """The ``*args`` parameter of ``func`` as bound at ``ctx.call``."""

    func: Func
    ctx: Ctx
    digest: int = 0  # the hash, computed once (see ``nested``)


def level_of(obj) -> int:
    """How deeply contexts nest inside an object (0 for one that holds none)."""
    while obj is not None:
        kind = type(obj)
        if kind in (Inst, Container, Gen, Kwargs, Varargs):
            return obj.ctx.level + 1 if obj.ctx is not None else 0
        if kind is Bound:
            obj = obj.self_obj
        elif kind in (Batch, Managed):
            obj = obj.loader
        elif kind is Namespace:
            obj = obj.parser
        elif kind is Hparams:
            obj = obj.inst
        elif kind is Iterated:
            obj = obj.base
        else:
            return 0
    return 0


Obj = Union[Lit, PositiveInt, Top, Func, Cls, Ext, Mod, Inst, Bound, Container, Managed, Batch, Iterated, Gen, Namespace,
            Hparams, Config, Kwargs, Varargs]
TOP = Top()
distinct_types(SiteRef, Lit, PositiveInt, Top, Func, Cls, Ext, Mod, Config)


def nested(*classes, by_identity=()) -> None:
    """Objects that hold other objects (contexts, instances, containers) are hashed and compared
    millions of times as memo keys and members of answers: each computes its hash once, from
    its fields' (themselves cached) hashes, and keeps it in its last field ``digest``.
    A field named in ``by_identity`` (a syntax value) counts by the object itself: the same
    display evaluated in the same context is one container, two equal-looking displays are two."""

    def __hash__(self):
        return tuple.__getitem__(self, -1)

    def __eq__(self, other):
        return self is other or (type(self) is type(other) and tuple.__getitem__(self, -1) == tuple.__getitem__(other, -1)
                                 and tuple.__eq__(self, other))

    def __ne__(self, other):
        return not __eq__(self, other)

    for cls in classes:
        make = cls.__new__
        count = len(cls._fields) - 1
        identity = tuple(cls._fields.index(name) for name in by_identity if name in cls._fields)
        least = next(i for i, name in enumerate(cls._fields) if name in cls._field_defaults)  # fields without default
        tail = tuple(cls._field_defaults[name] for name in cls._fields[least:count])

        def __new__(klass, *args, _make=make, _count=count, _identity=identity, _least=least, _tail=tail, **kwargs):
            if not kwargs and _least <= len(args) <= _count:  # positional: the NamedTuple's own constructor is not needed
                fields = args + _tail[len(args) - _least:]
            else:
                fields = tuple.__getitem__(_make(klass, *args, **kwargs), slice(0, _count))
            keyed = fields
            if _identity:
                keyed = list(fields)
                for index in _identity:
                    keyed[index] = id(keyed[index])
                keyed = tuple(keyed)
            return tuple.__new__(klass, fields + (hash((klass.__name__,) + keyed),))

        cls.__new__ = __new__
        cls.__hash__ = __hash__
        cls.__eq__ = __eq__
        cls.__ne__ = __ne__
    

nested(Inst, Bound, Container, Managed, Batch, Iterated, Gen, Namespace, Hparams, Kwargs, Varargs,
       by_identity=("value",))
Ctx.__hash__ = Inst.__hash__
Ctx.__eq__ = Inst.__eq__
Ctx.__ne__ = Inst.__ne__


MAX_CHOICES = 8  # literal values one lookup is made with (``REGISTRY[t.pop("type")]`` over a table of configs)


def literal_choices(results, kind: Optional[type] = None) -> Optional[Tuple[object, ...]]:
    """The distinct literal values an answer may be (of type ``kind`` when given), when there
    is at least one and at most ``MAX_CHOICES``, and every one is such a literal; else None.
    A lookup by name or key is then made once per value."""
    if not results or len(results) > MAX_CHOICES:
        return None
    if not all(type(f.obj) is Lit and (kind is None or type(f.obj.value) is kind) for f in results):
        return None
    values: List[object] = []
    for found in results:
        if found.obj.value not in values:  # by equality: a literal's value need not hash
            values.append(found.obj.value)
    return tuple(values)


class Step(NamedTuple):
    """One place in a finding's evidence: a module, a span and what happens there."""

    module: str
    span: Span
    note: str


Trail = Tuple[Step, ...]


class Found(NamedTuple):
    """One thing a value may be, and why."""

    obj: Obj
    trail: Trail = ()


Results = Tuple[Found, ...]
UNKNOWN_RESULT: Results = (Found(TOP),)


MAX_RESULTS = 24  # objects per answer; beyond, the answer also says Top
MAX_TRAIL = 8


# Answers are combined here, beside what they are made of, so that the modules the resolver
# itself imports (the library table, the outside calls) use them without importing it.
def join(parts: Iterable[Results]) -> Results:
    """Union of answers, one entry per object (the first trail wins), capped in width."""
    parts = parts if type(parts) is list else list(parts)
    if len(parts) == 1 and type(parts[0]) is tuple and len(parts[0]) <= 1:
        return parts[0]  # one answer of at most one object: already what the union would be
    seen: Dict[Obj, Found] = {}
    keep = seen.setdefault  # one hash of the object per entry: the first one found stays
    for part in parts:
        for found in part:
            keep(found[0], found)
    if len(seen) > MAX_RESULTS:
        kept = list(seen.values())[:MAX_RESULTS]
        return tuple(kept) + UNKNOWN_RESULT
    return tuple(seen.values())


_new = tuple.__new__  # a NamedTuple from its fields without its Python-level ``__new__`` (the same object)


def one(obj: Obj, trail: Trail = ()) -> Results:
    return (_new(Found, (obj, trail)),)


def extend(results: Results, step: Optional[Step]) -> Results:
    """The same answer with ``step`` prepended to each trail (the hop that led here)."""
    if step is None:
        return results
    return tuple([_new(Found, (f[0], ((step,) + f[1])[:MAX_TRAIL])) for f in results])


def objects(results: Results):
    return [found.obj for found in results]


NUMBERS = frozenset({"builtins.int", "builtins.float"})  # what ``int(...)``/``float(...)`` make


def made_number(obj) -> bool:
    """An ``int`` or ``float`` made at run time (``int(row)``, the count of ``enumerate``)."""
    return isinstance(obj, Inst) and isinstance(obj.cls, Ext) and obj.cls.qualname in NUMBERS


def is_top(results: Results) -> bool:
    return any(isinstance(found.obj, Top) for found in results)
