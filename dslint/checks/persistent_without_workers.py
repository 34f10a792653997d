"""DSL201 persistent-without-workers: ``persistent_workers=True`` needs workers.

torch raises ``ValueError: persistent_workers option needs num_workers > 0`` at
construction when the loader has zero workers, including the zero branch of
``num_workers=0 if sys.platform == "win32" else 8`` and a worker count that is zero by
default (a parameter, field or argparse default of 0 nobody overrides).
"""

from __future__ import annotations

from typing import Iterator

from ..diagnostics import Finding
from ..model import loaders
from ..model.externals import truthiness
from ..model.queries import Model
from .base import (argument_label, default_note, finding, inherited_conflict, int_literal, keyword_anchor,
                   keyword_value, shared_keyword)

CODE = "DSL201"


def check(model: Model) -> Iterator[Finding]:
    for loader in model.loaders():
        given = loaders.argument_source(model.resolver, loader, "persistent_workers")
        workers = model.workers(loader)
        if given is None:
            # put into the ``**kwargs`` dict by a branch together with ``num_workers=0``
            # (``if use_cuda: kwargs.update(cuda_kwargs)``): that branch raises
            given = loaders.put_with_zero_workers(model.resolver, loader, "persistent_workers")
        spec = model.spec(loader)
        if given is None or (spec is not None and spec.persistent_auto):
            continue  # a library that turns persistence on only with workers never raises
        if loaders.given_when_positive(model.resolver, loader, given):
            continue  # put in only after the count was tested nonzero
        if not workers.maybe_zero:
            continue
        value, _ = loaders.when_workers_zero(model.resolver, loader, "persistent_workers")
        if value is None or truthiness(value) != "true":
            continue
        count = loaders.argument_source(model.resolver, loader, "num_workers")
        handled, inherited = inherited_conflict(model, CODE, loader, given, count, "persistent_workers",
                                                "ValueError: persistent_workers option needs num_workers > 0")
        if handled:
            if inherited is not None:
                yield inherited
            continue
        shared = shared_keyword(model, CODE, loader, given, "persistent_workers", "ValueError: persistent_workers option needs num_workers > 0", workers)
        if shared is not None:
            yield shared
            continue
        module = given.site.module
        count_text = keyword_value(model, count.site.module, count.span) if count is not None else ""
        keyword = loaders.written_name(model.resolver, loader, "persistent_workers")
        if count_text is None or keyword_value(model, module, given.span) is None:
            suggestion = f"make `{keyword}` true only with positive workers"
        elif count_text and not int_literal(count_text):
            given_text = keyword_value(model, module, given.span)
            suggestion = f"use `{keyword}={count_text} > 0`" if given_text == "True" else \
                f"use `{keyword}={given_text} and {count_text} > 0`"
        else:
            suggestion = "remove it"
        zero_trail = workers.trail("zero")
        in_place = loaders.rewritable_in_place(model.resolver, loader, given, count, "persistent_workers", model.loaders())
        anchor, keyword_step = keyword_anchor(model, loader, given, keyword)
        yield finding(
            model, CODE, module, anchor,
            f"{argument_label(model, module, given.span, keyword)} with {workers.describe()} workers"
            f"{default_note(model, zero_trail, module)} raises `ValueError: persistent_workers option needs "
            f"num_workers > 0`: {suggestion}",
            (loaders.construction_step(model.resolver, loader), keyword_step) + zero_trail,
            keyword_span=tuple(given.span),
            # a library's own keyword is left to its author; a mapping's entry is not rewritten,
            # nor a keyword other loaders take from the same dict
            fixable=keyword == "persistent_workers" and keyword_value(model, module, given.span) is not None
            and in_place, in_place=in_place,
            **loaders.fix_facts(model.resolver, loader),
        )
