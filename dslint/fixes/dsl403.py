"""DSL403 (safe): call ``set_epoch`` first in the epoch loop.

Inserts ``<sampler>.set_epoch(<epoch>)`` before the first statement of the loop body, at
its indentation, where ``<sampler>`` is how the code reaches the sampler (its variable or
``<loader>.sampler``) and ``<epoch>`` the loop variable. A ``while`` loop or a ``for`` with a
tuple target gets no automatic fix.
"""

from __future__ import annotations

import libcst as cst

from ..diagnostics import Finding
from .base import Decline, FileContext, FixPlan, finding_span, parse_statement

CODE = "DSL403"


def _site(ctx: FileContext, item: Finding):
    span = finding_span(item)
    for site in ctx.summary.loaders if ctx.summary else ():
        if site.epoch_loop is not None and site.epoch_loop.span == span:
            return site
    raise Decline("no epoch loop at this finding")


def plan(ctx: FileContext, item: Finding) -> FixPlan:
    site = _site(ctx, item)
    loop = site.epoch_loop
    if loop.target is None or not site.sampler_ref:
        raise Decline("no plain loop variable or no way to reach the sampler")
    body = loop.body_span
    candidates = ctx.nodes_at(body.row, body.col, cst.BaseStatement) if hasattr(cst, "BaseStatement") else []
    statement = next((c for c in candidates if isinstance(ctx.parent(c), cst.IndentedBlock)), None)
    if statement is None:
        raise Decline("loop body is not an indented block")
    code = f"{site.sampler_ref}.set_epoch({loop.target})\n"
    module = ctx.module
    fix = FixPlan(CODE, f"Call `{code.strip()}` first in the epoch loop", "safe", key=(CODE, id(statement)))
    fix.insert_before(statement, lambda: [parse_statement(code, module)])
    return fix
