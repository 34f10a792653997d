"""DSL202 prefetch-without-workers: ``prefetch_factor`` needs worker processes.

torch raises ``ValueError: prefetch_factor option could only be specified in
multiprocessing...`` at construction when the loader has zero workers and
``prefetch_factor`` is not None, including the zero branch of a conditional worker count.
"""

from __future__ import annotations

from typing import Iterator

from ..diagnostics import Finding
from ..analysis.values import Name
from ..model import loaders
from ..model.objects import Lit
from ..model.queries import Model
from .base import (argument_label, default_note, finding, inherited_conflict, int_literal, keyword_anchor,
                   keyword_value, shared_keyword)

CODE = "DSL202"
ERROR = "ValueError: prefetch_factor option could only be specified in multiprocessing"


def _a_value(results) -> bool:
    """Every possibility is a value other than None."""
    return bool(results) and all(isinstance(f.obj, Lit) and f.obj.value is not None for f in results)


def check(model: Model) -> Iterator[Finding]:
    for loader in model.loaders():
        given = loaders.argument_source(model.resolver, loader, "prefetch_factor")
        workers = model.workers(loader)
        if given is None:  # put in by a branch: see DSL201
            given = loaders.put_with_zero_workers(model.resolver, loader, "prefetch_factor")
        if given is None or loaders.given_when_positive(model.resolver, loader, given):
            continue
        value, tested = loaders.when_workers_zero(model.resolver, loader, "prefetch_factor")
        if value is None or not _a_value(value):
            continue
        # the expression's own test of the workers picking a value for zero is a bug whatever
        # the workers turn out to be; otherwise the workers must be (possibly) zero
        if not tested and not workers.maybe_zero:
            continue
        count = loaders.argument_source(model.resolver, loader, "num_workers")
        handled, inherited = inherited_conflict(model, CODE, loader, given, count, "prefetch_factor", ERROR)
        if handled:
            if inherited is not None:
                yield inherited
            continue
        shared = shared_keyword(model, CODE, loader, given, "prefetch_factor", loaders.error_for(model.resolver, loader, "prefetch_factor", ERROR), workers)
        if shared is not None and not tested:
            yield shared
            continue
        module = given.site.module
        count_text = keyword_value(model, count.site.module, count.span) if count is not None else ""
        value_text = keyword_value(model, module, given.span)
        keyword = loaders.written_name(model.resolver, loader, "prefetch_factor")
        if tested:
            suggestion = "make its zero-worker branch `None`"
            how = "zero (in its own zero branch)"
        else:
            if count_text is None or value_text is None:
                suggestion = f"pass `{keyword}` only with positive workers"
            else:
                suggestion = (f"use `{keyword}={value_text} if {count_text} > 0 else None`"
                              if count_text and not int_literal(count_text) else "remove it")
            how = workers.describe() + default_note(model, workers.trail("zero"), module)
        in_place = loaders.rewritable_in_place(model.resolver, loader, given, count, "prefetch_factor", model.loaders())
        anchor, keyword_step = keyword_anchor(model, loader, given, keyword)
        yield finding(
            model, CODE, module, anchor,
            f"{argument_label(model, module, given.span, keyword)} with {how} workers raises "
            f"`{loaders.error_for(model.resolver, loader, 'prefetch_factor', ERROR)}`: {suggestion}",
            (loaders.construction_step(model.resolver, loader), keyword_step) + workers.trail("zero"),
            keyword_span=tuple(given.span),
            tested=tested, **loaders.fix_facts(model.resolver, loader),
            # a mapping's entry is not rewritten, nor a keyword other loaders take from the same dict
            # a zero branch written in another statement (``p = ... if n > 0 else 2``) is not rewritten here
            in_place=in_place, **({} if value_text is not None and in_place and not (tested and type(given.value) is Name)
                                  else {"fixable": False}),
        )
