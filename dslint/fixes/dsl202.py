"""DSL202 (safe): ``prefetch_factor`` with zero workers.

``num_workers`` absent or a literal (zero): remove the argument with its separating comma
(as DSL201 does; the default is None). ``num_workers=<expr>`` in the same call:
``prefetch_factor=<value> if <expr> > 0 else None``.
A conditional that tests the workers itself and picks a value for zero is left to the
author (which branch was meant is not clear).
"""

from __future__ import annotations

import libcst as cst

from ..diagnostics import Finding
from .base import Decline, FileContext, FixPlan, keyword_span
from .dsl201 import ATOMIC, _compare, _workers_arg, dropping, keyword_index, site_of_keyword

CODE = "DSL202"


def _parenthesised(value: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(value, ATOMIC) or value.lpar:
        return value
    return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def plan(ctx: FileContext, item: Finding) -> FixPlan:
    site = site_of_keyword(ctx, item, "prefetch_factor")
    if getattr(site, "prefetch_when_zero", "value") == "tested-value":
        raise Decline("the expression picks a value for zero workers itself")
    arg = ctx.node_for(keyword_span(item), cst.Arg)
    if arg.keyword is None or arg.keyword.value != "prefetch_factor":
        raise Decline("not a prefetch_factor keyword")
    call = ctx.parent(arg)
    if not isinstance(call, cst.Call) or any(a.star == "**" for a in call.args):
        raise Decline("keyword outside a plain call")
    workers = _workers_arg(call, site.known_loader)
    if workers is None and site.workers_source is not None:
        raise Decline("num_workers given outside this call")
    if item.fact("in_place") is False:
        raise Decline("the worker count is written elsewhere, or other loaders take this keyword from the same dict")
    fix = FixPlan(CODE, "", "safe", key=(CODE, id(arg)))
    if workers is None or isinstance(workers.value, cst.Integer):  # no count here, or a literal (zero) one
        fix.message = "Remove `prefetch_factor=...`"
        fix.on_node(call, dropping("prefetch_factor"))
        return fix
    fix.message = f"Use `prefetch_factor=... if {ctx.code(workers.value).strip()} > 0 else None`"

    def conditional(updated: cst.Call) -> cst.Call:
        args = list(updated.args)
        index = keyword_index(updated, "prefetch_factor")
        value = _parenthesised(args[index].value.deep_clone())
        test = _compare(_workers_arg(updated, site.known_loader).value.deep_clone())
        new = cst.IfExp(test=test, body=value, orelse=cst.Name("None"))
        args[index] = args[index].with_changes(value=new)
        return updated.with_changes(args=args)

    fix.on_node(call, conditional)
    return fix
