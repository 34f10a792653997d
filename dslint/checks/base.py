"""What every rule shares: turning the model's answers into findings with their evidence.

A finding sits where its root cause is (the lambda, the keyword, the copy); the other
places that make it true (where a default 0 lives, where the loader is built, where its
batches are moved) are its related locations, taken from the resolver's trails.
"""

from __future__ import annotations

import ast
import re
from typing import Iterable, List, Optional, Sequence, Tuple

from ..analysis.summary import Span
from ..diagnostics import Finding, Location, Related
from ..model import loaders, mmconfig
from ..model.objects import Step, Trail
from ..model.queries import Model

MAX_RELATED = 6


def related(model: Model, steps: Iterable[Optional[Step]], skip: Optional[Tuple[str, Span]] = None) -> Tuple[Related, ...]:
    """Distinct places of ``steps`` (in order), without the finding's own place."""
    out: List[Related] = []
    seen = {(skip[0], skip[1].row)} if skip else set()
    for step in steps:
        if step is None:
            continue
        key = (step.module, step.span.row)
        if key in seen or (skip is not None and step.module == skip[0] and _contains(step.span, skip[1])):
            continue  # the finding's own place, the argument around it, or a line already shown
        seen.add(key)
        out.append(Related(model.project.display_path(step.module), Location(step.span.row, step.span.col),
                           Location(step.span.end_row, step.span.end_col), step.note))
        if len(out) >= MAX_RELATED:
            break
    return tuple(out)


def _contains(outer: Span, inner: Span) -> bool:
    return (outer.row, outer.col) <= (inner.row, inner.col) and (inner.end_row, inner.end_col) <= (outer.end_row, outer.end_col)


def finding(model: Model, code: str, module: str, span: Span, message: str,
            steps: Sequence[Optional[Step]] = (), **data) -> Finding:
    """A finding at ``span``; ``steps`` become its related locations, ``data`` the facts its fixer reads."""
    return Finding(
        code=code,
        message=message,
        path=model.project.display_path(module),
        location=Location(span.row, span.col),
        end_location=Location(span.end_row, span.end_col),
        related=related(model, steps, (module, span)),
        data=tuple(sorted(data.items())),
    )


def keyword_anchor(model: Model, loader, given, keyword: str) -> Tuple[Span, Optional[Step]]:
    """Where DSL201/DSL202 report a loader keyword (and the related step for the keyword):
    written in the call that builds the loader, or in a wrapper's call forwarding to it, on
    the line that call starts, where torch raises (at the keyword itself when it is on that
    line); put in anywhere else (a keyword dict, a config file), where it is written. The
    fixers find the keyword by the ``keyword_span`` fact."""
    base = loaders.base_loader(loader)
    if base is None or base.site is None or mmconfig.configured(base):
        return given.span, None
    if given.site not in {source.site for source in loaders.sources(model.resolver, base)}:
        return given.span, None
    site = model.project.call(given.site)
    named = [span for (name, _), span in zip(site.keywords, site.keyword_spans) if name is not None]
    if given.span not in named or site.span.row == given.span.row:
        return given.span, None  # a ``**mapping`` entry is reported at the ``**``, where it comes in
    return site.span, Step(given.site.module, given.span, f"`{keyword}` given here")


def value_span(model: Model, module: str, span: Span) -> Span:
    """The value part of a ``name=value`` keyword span (the span itself for anything else)."""
    text = model.project.text_of(module, span)
    match = re.match(r"\s*[A-Za-z_]\w*\s*=\s*", text)
    if match is None or "\n" in match.group(0):
        return span
    return Span(span.row, span.col + match.end(), span.end_row, span.end_col)


def where(model: Model, step: Optional[Step], here: str) -> str:
    """``line 12`` for a place in the module ``here``, ``train.py:12`` for one elsewhere."""
    if step is None:
        return ""
    if step.module == here:
        return f"line {step.span.row}"
    import os

    return f"{os.path.basename(model.project.display_path(step.module))}:{step.span.row}"


def default_note(model: Model, trail: Trail, here: str) -> str:
    """", by default (train.py:12)" when a default or argparse default decides the value."""
    for step in trail:
        if "default" in step.note:
            return f" ({step.note} at {where(model, step, here)})"
        if step.note.startswith("config file value"):  # what the program runs with unless overridden
            value = step.note.split("`")[1] if "`" in step.note else ""
            return f" (`{value}` in {where(model, step, here)})"
    return ""


def source(model: Model, module: str, span: Span) -> str:
    text = model.project.text_of(module, span)
    return " ".join(text.split()) if text else ""


def keyword_value(model: Model, module: str, span: Span) -> Optional[str]:
    """The value of the ``name=value`` keyword at ``span``; None where the argument comes
    from a mapping (``**kwargs``, ``kwargs.update(other)``), which advice cannot rewrite."""
    name, equals, value = source(model, module, span).partition("=")
    value = value.strip()
    return value if equals and name.strip().isidentifier() and value and not value.startswith("=") else None


def argument_label(model: Model, module: str, span: Span, name: str) -> str:
    """How a message names the argument: ``name=value`` as written, or ``name`` from its mapping."""
    text = source(model, module, span)
    return f"`{text}`" if keyword_value(model, module, span) is not None else f"`{name}` from `{text}`"


def inherited_conflict(model: Model, code: str, loader, given, count, keyword: str, error: str) -> Tuple[bool, Optional[Finding]]:
    """An OpenMMLab config whose ``keyword`` comes from a base config it inherits from
    (``model.mmconfig``): (handled, the finding). The config that sets the zero worker count
    over the inherited keyword is where the error is made: the finding sits on its
    ``num_workers``. Where the config sets neither, the base that combines them reports it
    (handled, no finding here): one finding per cause."""
    from ..model import loaders
    from ..model.objects import Step

    if not loaders.inherited(model.resolver, loader, given):
        return False, None
    base = loaders.base_loader(loader)
    if count is None or count.site != base.site:
        return True, None
    module = count.site.module
    written = source(model, given.site.module, given.span)
    return True, finding(
        model, code, module, count.span,
        f"`{source(model, module, count.span)}` over `{written}` inherited from "
        f"{where(model, Step(given.site.module, given.span, ''), module)} raises `{error}`: "
        f"add `{_off(keyword)}` to this dict, or keep workers",
        (Step(given.site.module, given.span, f"`{written}` inherited from here"),
         loaders.construction_step(model.resolver, loader, "the configuration that inherits it")),
        fixable=False,
    )


def shared_keyword(model: Model, code: str, loader, given, keyword: str, error: str, workers) -> Optional[Finding]:
    """A keyword written outside the loader's call and taken by other loaders too
    (``**loader_kwargs(args)`` for the training and the validation loader): the loader that
    cannot take it is the cause, so the finding sits on its construction, with the shared
    keyword as a related location; rewriting the keyword would change the other loaders."""
    from ..model import loaders

    count = loaders.argument_source(model.resolver, loader, "num_workers")
    if count is None or count.site == given.site or \
            not loaders.shared_elsewhere(model.resolver, loader, given, keyword, model.loaders()):
        return None  # the worker count is shared with the keyword (``BASE = dict(num_workers=0, ...)``): that is the cause
    built = loaders.construction_step(model.resolver, loader)
    if built is None:
        return None
    zero = workers.trail("zero")
    text = source(model, given.site.module, given.span)
    if keyword_value(model, given.site.module, given.span) is None and not text.startswith("*"):
        label = f"`{keyword}={text}`"  # a default put in by the loader's class or wrapper
    else:
        label = argument_label(model, given.site.module, given.span, loaders.written_name(model.resolver, loader, keyword))
    return finding(
        model, code, built.module, built.span,
        f"This loader gets {label} from {where(model, Step(given.site.module, given.span, ''), built.module)}, "
        f"where other loaders get it too, but has {workers.describe()} workers{default_note(model, zero, built.module)}: "
        f"it raises `{error}`; give it positive workers, or make `{keyword}` depend on each loader's workers",
        (Step(given.site.module, given.span, f"{label} written here, for other loaders too"),) + tuple(zero),
        fixable=False,
    )


def _off(keyword: str) -> str:
    return f"{keyword}=False" if keyword == "persistent_workers" else f"{keyword}=None"


def int_literal(text: str) -> bool:
    """``num_workers=0`` written out (any int literal form, as the fixer's ``cst.Integer``):
    tying an option to it would read ``0 > 0``, so the advice is the fixer's, to remove the
    option."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return False
    return isinstance(node, ast.Constant) and type(node.value) is int
