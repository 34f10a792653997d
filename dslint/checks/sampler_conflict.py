"""DSL203 sampler-conflict: DataLoader arguments torch rejects together.

``shuffle=True`` with a ``sampler``, and ``batch_sampler`` with ``batch_size`` (other than
1), ``shuffle``, ``sampler`` or ``drop_last``, raise ``ValueError`` at construction.
"""

from __future__ import annotations

from typing import Dict, Iterator, Optional

from ..analysis.values import Const, Name, Op
from ..diagnostics import Finding
from ..model import loaders
from ..model.externals import truthiness
from ..model.objects import Lit, Step, Top
from ..model.queries import Model
from .base import finding, source

CODE = "DSL203"


def _nullness(results) -> str:
    """none | value | maybe (some possibility is None, another is not) | unknown."""
    kinds = set()
    for found in results:
        obj = found.obj
        if isinstance(obj, Top):
            return "unknown"
        kinds.add("none" if isinstance(obj, Lit) and obj.value is None else "value")
    if kinds == {"none"}:
        return "none"
    if kinds == {"value"}:
        return "value"
    return "maybe" if kinds else "unknown"


def _given(model: Model, loader, name: str) -> Optional[str]:
    found = model.argument(loader, name)
    return _nullness(found) if found is not None else None


def check(model: Model) -> Iterator[Finding]:
    for loader in model.loaders():
        spec = model.spec(loader)
        if spec is None or spec.kind != "class":
            continue
        shuffle = loaders.argument_source(model.resolver, loader, "shuffle")
        shuffles = shuffle is not None and truthiness(model.argument(loader, "shuffle") or ()) == "true"
        sampler = _given(model, loader, "sampler")
        batch_sampler = loaders.argument_source(model.resolver, loader, "batch_sampler")
        given = _given(model, loader, "batch_sampler")
        if batch_sampler is not None and given in ("value", "maybe"):
            clashes = []
            because: Dict[str, tuple] = {}  # where each clashing value comes from
            batch_size = model.argument(loader, "batch_size")
            if batch_size is not None and loaders.argument_source(model.resolver, loader, "batch_size") is not None:
                sizes = [f.obj for f in batch_size]
                if sizes and all(isinstance(o, Lit) and (o.value is None or type(o.value) is int) for o in sizes):
                    clashing = next((f for f in batch_size if f.obj.value not in (1, None)), None)
                    if clashing is not None:
                        clashes.append(f"batch_size={clashing.obj.value}")
                        because["batch_size"] = clashing.trail
            if shuffles:
                clashes.append("shuffle=True")
            if sampler == "value":  # "maybe" is often `x if batch_sampler is None else None`
                clashes.append("sampler")
            drop_last = model.argument(loader, "drop_last") or ()
            if truthiness(drop_last) == "true":
                clashes.append("drop_last=True")
                because["drop_last"] = drop_last[0].trail
            # a keyword a branch puts back to the default is the code setting it aside for the batch sampler
            clashes = [c for c in clashes if not _put_back(model, loader, c.partition("=")[0])
                       and not _set_aside_with(model, loader, batch_sampler, c.partition("=")[0])
                       and not _default_beside(model, loader, batch_sampler, c.partition("=")[0])]
            if clashes:
                yield finding(
                    model, CODE, batch_sampler.site.module, batch_sampler.span,
                    f"`batch_sampler` together with {', '.join(f'`{c}`' for c in clashes)} raises "
                    f"`ValueError: batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    f"sampler, and drop_last`: let the batch sampler decide batching and order",
                    tuple(step for c in clashes for step in because.get(c.partition("=")[0], ()))
                    + (loaders.construction_step(model.resolver, loader),),
                )
                continue
        if shuffles and sampler in ("value", "maybe"):
            module = shuffle.site.module
            written = source(model, module, shuffle.span)
            written = written if "shuffle" in written or written.startswith("**") else f"shuffle={written}"  # by position
            met = _meeting(model, loader, shuffle)
            anchor = met if met is not None else shuffle
            yield finding(
                model, CODE, anchor.site.module, anchor.span,
                f"`{written}` with a `sampler` raises `ValueError: sampler option is "
                f"mutually exclusive with shuffle`: drop it (the sampler decides the order) or use "
                f"`shuffle=(sampler is None)`",
                ((Step(module, shuffle.span, "`shuffle` is given here"),) if met is not None else ())
                + (loaders.construction_step(model.resolver, loader),),
            )


# what torch's DataLoader takes these to be when they are not given: what a batch sampler allows
DEFAULTS = {"batch_size": 1, "shuffle": False, "drop_last": False, "sampler": None}


def _put_back(model: Model, loader, name: str) -> bool:
    """A branch puts ``name`` back to the loader's default into the keyword dict the loader
    is given (``if batch_sampler is not None: kw.update(batch_size=1, shuffle=False, ...)``):
    the code sets it aside where the batch sampler is given (the branch's test is not read)."""
    plain = loaders.argument_source(model.resolver, loader, name)
    anywhere = loaders.argument_source(model.resolver, loader, name, anywhere=True)
    if anywhere is None or anywhere == plain:
        return False
    values = model.resolver.eval(anywhere.value, anywhere.ctx)
    return bool(values) and all(isinstance(f.obj, Lit) and _is_default(f.obj.value, name) for f in values)


def _is_default(value, name: str) -> bool:
    """``value`` is what the DataLoader takes ``name`` to be when it is not given (``1`` for
    ``batch_size``, not ``True``)."""
    return value == DEFAULTS[name] and type(value) is type(DEFAULTS[name])


def _default_beside(model: Model, loader, batch_sampler, name: str) -> bool:
    """The keyword is the loader's default whenever the batch sampler is given:
    ``batch_size=batch_size if batch_sampler is None else 1`` beside ``batch_sampler=batch_sampler``
    (mmengine's ``Runner.build_dataloader``)."""
    given = loaders.argument_source(model.resolver, loader, name)
    if given is None or type(given.value) is not Op or given.value.op != "if" or type(batch_sampler.value) is not Name:
        return False
    test, body, orelse = given.value.args
    if type(test) is not Op or test.op not in ("is", "is-not") or len(test.args) != 2:
        return False
    tested, none = test.args
    if type(tested) is not Name or tested.id != batch_sampler.value.id or not (type(none) is Const and none.value is None):
        return False
    values = model.resolver.eval(orelse if test.op == "is" else body, given.ctx)
    return bool(values) and all(isinstance(f.obj, Lit) and _is_default(f.obj.value, name) for f in values)


def _set_aside_with(model: Model, loader, batch_sampler, name: str) -> bool:
    """The branch that makes the batch sampler also sets ``name``'s local variable to the
    loader's default (``if iter_based: batch_sampler = InfiniteBatchSampler(...); batch_size
    = 1; shuffle = False``, mmdet's ``build_dataloader``): wherever a batch sampler is given,
    nothing clashes with it."""
    given = loaders.argument_source(model.resolver, loader, name)
    if given is None or type(given.value) is not Name or type(batch_sampler.value) is not Name \
            or given.ctx != batch_sampler.ctx or not given.ctx.scope:
        return False
    function = model.project.function(given.ctx.module, given.ctx.scope)
    if function is None:
        return False
    made = {b.block for b in function.bindings.get(batch_sampler.value.id, ())
            if b.kind == "assign" and b.value != Const(None)}
    return bool(made) and all(
        any(b.kind == "assign" and b.block == block and type(b.value) is Const and _is_default(b.value.value, name)
            for b in function.bindings.get(given.value.id, ()))
        for block in made)


def _meeting(model: Model, loader, shuffle):
    """Where the sampler is given, when ``shuffle`` is written in another call (a config dict
    splatted into the loader, a ``functools.partial`` binding it before): the call that brings
    the two together, which raises. None when one call gives both."""
    given = loaders.argument_source(model.resolver, loader, "sampler")
    if given is None or given.site == shuffle.site:
        return None
    return given
