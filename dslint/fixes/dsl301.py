"""DSL301 (safe): add ``non_blocking=True`` to a batch's ``.to(...)`` / ``.cuda()`` /
``.type(torch.cuda.FloatTensor)`` (``Tensor.type`` takes ``non_blocking`` too)."""

from __future__ import annotations

import libcst as cst

from ..checks.pin_without_non_blocking import POSITIONAL_NON_BLOCKING
from ..analysis.summary import Span
from ..diagnostics import Finding
from .base import Decline, FileContext, FixPlan, finding_span

CODE = "DSL301"


def _keyword() -> cst.Arg:
    return cst.Arg(
        keyword=cst.Name("non_blocking"),
        value=cst.Name("True"),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )


def add_non_blocking(call: cst.Call) -> cst.Call:
    args = list(call.args)
    for index, arg in enumerate(args):
        if arg.keyword is not None and arg.keyword.value == "non_blocking":
            args[index] = arg.with_changes(value=cst.Name("True"))
            return call.with_changes(args=args)
    new = _keyword()
    if args:
        last = args[-1]
        if isinstance(last.comma, cst.Comma):  # a trailing comma stays last
            new = new.with_changes(comma=last.comma)
        args[-1] = last.with_changes(
            comma=cst.Comma(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(" "))
        )
    args.append(new)
    return call.with_changes(args=args)


def plan(ctx: FileContext, item: Finding) -> FixPlan:
    call = _copy_call(ctx, finding_span(item))
    fix = FixPlan(CODE, "Add `non_blocking=True`", "safe", key=(CODE, id(call)))
    fix.on_node(call, add_non_blocking)
    for span in dict(item.data).get("also", ()):  # the other copies of the same loop or function
        fix.on_node(_copy_call(ctx, Span(*span)), add_non_blocking)
    return fix


def _copy_call(ctx: FileContext, span: Span) -> cst.Call:
    call = ctx.node_for(span, cst.Call)
    if not isinstance(call.func, cst.Attribute) or call.func.attr.value not in POSITIONAL_NON_BLOCKING:
        raise Decline("not a .to/.cuda/.type call")
    if any(a.star for a in call.args):
        raise Decline("splatted arguments")
    positional = [a for a in call.args if a.keyword is None]
    if len(positional) > POSITIONAL_NON_BLOCKING[call.func.attr.value]:
        raise Decline("non_blocking given by position")
    return call
