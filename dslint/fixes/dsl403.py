"""DSL403 (unsafe): call ``set_epoch`` first in the epoch loop.

Inserts ``<sampler>.set_epoch(<epoch>)`` before the first statement of the loop body, at
its indentation, where ``<sampler>`` is how the code reaches the sampler (its variable or
``<loader>.sampler``) and ``<epoch>`` the loop variable; guarded by ``if <sampler> is not
None:`` when the variable may be None (a sampler made only for distributed runs), so that
the other runs do not fail on it. A ``while`` loop or a ``for`` with a tuple target gets no
automatic fix, and neither does a sampler reached only through something that may be
another object.

Unsafe: every epoch after the first then sees its samples in another order. That is what
the author wanted, but it is not what the program computed.
"""

from __future__ import annotations

from typing import NamedTuple, Optional

import libcst as cst

from ..analysis.summary import Span
from ..diagnostics import Finding
from .base import Decline, FileContext, FixPlan, parse_statement

CODE = "DSL403"


class EpochLoop(NamedTuple):
    target: Optional[str]  # the loop variable
    body: Optional[Span]  # its first statement
    sampler_ref: Optional[str]  # how the loop's code reaches the sampler
    may_be_none: bool  # that expression may be None instead


def _loop(item: Finding) -> EpochLoop:
    body = item.fact("body")
    return EpochLoop(item.fact("target"), Span(*body) if body else None, item.fact("sampler_ref"),
                     bool(item.fact("sampler_may_be_none")))


def plan(ctx: FileContext, item: Finding) -> FixPlan:
    loop = _loop(item)
    if loop.target is None or not loop.sampler_ref or loop.body is None:
        raise Decline("no plain loop variable or no way to reach the sampler")
    body = loop.body
    candidates = ctx.nodes_at(body.row, body.col, cst.BaseStatement) if hasattr(cst, "BaseStatement") else []
    statement = next((c for c in candidates if isinstance(ctx.parent(c), cst.IndentedBlock)), None)
    if statement is None:
        raise Decline("loop body is not an indented block")
    call = f"{loop.sampler_ref}.set_epoch({loop.target})"
    title = f"Call `{call}` first in the epoch loop"
    code = f"{call}\n"
    if loop.may_be_none:
        code = f"if {loop.sampler_ref} is not None:\n    {code}"
        title += f" when `{loop.sampler_ref}` is not None"
    module = ctx.module
    fix = FixPlan(CODE, title, "unsafe", key=(CODE, id(statement)))
    fix.insert_before(statement, lambda: [parse_statement(code, module)])
    return fix
