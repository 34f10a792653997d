"""DSL201 (safe): ``persistent_workers=True`` with zero workers.

``num_workers`` absent: remove the argument with its separating comma.
``num_workers=<expr>`` in the same call: ``persistent_workers=<expr> > 0`` (``<expr>``
copied from the call, parenthesised when it is not atomic) for a literal ``True``; any other
value ``v`` becomes ``v and <expr> > 0``, which keeps ``v`` deciding whenever there are workers.
"""

from __future__ import annotations

from typing import NamedTuple, Optional

import libcst as cst

from ..model.libraries import DATALOADER_POSITIONAL as LOADER_POSITIONAL
from ..diagnostics import Finding
from .base import Decline, FileContext, FixPlan, keyword_span

CODE = "DSL201"
ATOMIC = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.SimpleString)


class LoaderFacts(NamedTuple):
    """What the rule knew about the loader whose keyword it reported."""

    known_loader: bool  # takes DataLoader's positional arguments
    workers_source: Optional[str]  # the worker-count expression, wherever it is written
    prefetch_when_zero: str  # "tested-value": the expression tests the workers itself


def site_of_keyword(ctx: FileContext, item: Finding, name: str) -> LoaderFacts:
    """The facts of the loader whose ``name=`` keyword is where ``item`` was reported."""
    if item.fact("known_loader") is None:
        raise Decline("no loader facts for this keyword")
    return LoaderFacts(bool(item.fact("known_loader")), item.fact("workers_source"),
                       "tested-value" if item.fact("tested") else "value")


def keyword_index(call: cst.Call, name: str) -> int:
    """Position of the ``name=`` argument in ``call`` (positions shift as other fixes edit the
    same call, a keyword is unique in a call)."""
    return next(i for i, a in enumerate(call.args) if a.keyword is not None and a.keyword.value == name)


def dropping(keyword: str):
    """A node op removing the ``keyword=`` argument of a call, keeping the commas right."""

    def drop(updated: cst.Call) -> cst.Call:
        args = list(updated.args)
        index = keyword_index(updated, keyword)
        removed = args.pop(index)
        if index == len(args) and args:  # the last argument: its comma moves back one
            args[-1] = args[-1].with_changes(comma=removed.comma)
        return updated.with_changes(args=args)

    return drop


def _workers_arg(call: cst.Call, known_loader: bool) -> Optional[cst.Arg]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "num_workers":
            return arg
    if known_loader:
        index = LOADER_POSITIONAL.index("num_workers")
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if len(positional) > index:
            return positional[index]
    return None


def _compare(value: cst.BaseExpression) -> cst.Comparison:
    if not isinstance(value, ATOMIC) and not value.lpar:
        value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Comparison(
        left=value,
        comparisons=[cst.ComparisonTarget(operator=cst.GreaterThan(), comparator=cst.Integer("0"))],
    )


def plan(ctx: FileContext, item: Finding) -> FixPlan:
    site = site_of_keyword(ctx, item, "persistent_workers")
    arg = ctx.node_for(keyword_span(item), cst.Arg)
    if arg.keyword is None or arg.keyword.value != "persistent_workers":
        raise Decline("not a persistent_workers keyword")
    call = ctx.parent(arg)
    if not isinstance(call, cst.Call):
        raise Decline("keyword outside a call")
    if any(a.star == "**" for a in call.args):
        raise Decline("keywords splatted into the call")
    workers = _workers_arg(call, site.known_loader)
    if workers is None and site.workers_source is not None:
        raise Decline("num_workers given outside this call")
    if item.fact("in_place") is False:
        raise Decline("the worker count is written elsewhere, or other loaders take this keyword from the same dict")
    fix = FixPlan(CODE, "", "safe", key=(CODE, id(arg)))
    if workers is None or isinstance(workers.value, cst.Integer):  # no count here, or a literal one
        fix.message = "Remove `persistent_workers=...`"
        fix.on_node(call, dropping("persistent_workers"))
    else:
        count = ctx.code(workers.value).strip()
        literal_true = isinstance(arg.value, cst.Name) and arg.value.value == "True"
        # ``persistent_workers=True`` becomes the test itself; any other value keeps deciding
        # whenever there are workers (``cfg.persistent and workers > 0``): the same loader
        # wherever the call did not raise
        fix.message = f"Use `persistent_workers={count} > 0`" if literal_true else \
            f"Use `persistent_workers={ctx.code(arg.value).strip()} and {count} > 0`"

        def tie(updated: cst.Call) -> cst.Call:
            args = list(updated.args)
            index = keyword_index(updated, "persistent_workers")
            value = _workers_arg(updated, site.known_loader).value.deep_clone()
            test = _compare(value)
            if not literal_true:
                test = cst.BooleanOperation(left=_grouped(args[index].value.deep_clone()), operator=cst.And(), right=test)
            args[index] = args[index].with_changes(value=test)
            return updated.with_changes(args=args)

        fix.on_node(call, tie)
    return fix


def _grouped(value: cst.BaseExpression) -> cst.BaseExpression:
    """``value`` in parentheses unless it is atomic (``a or b`` before ``and``)."""
    if isinstance(value, ATOMIC) or value.lpar:
        return value
    return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
