"""DSL106 start-method: ``set_start_method`` where it runs twice.

The start method can be set once per process. At module level outside the main guard the
call runs again in every spawned child (which re-imports the main module after its start
method was already set), and a second call in the same code path always fails:
``RuntimeError: context has already been set``.
"""

from __future__ import annotations

from typing import Dict, Iterator, Tuple

from ..diagnostics import Finding
from ..model.externals import truthiness
from ..model.objects import Ctx
from ..model.queries import Model
from .base import finding

CODE = "DSL106"
ERROR = "`RuntimeError: context has already been set`"
CATCHES = frozenset({"RuntimeError", "Exception", "BaseException", "ValueError", "*"})


def _forced(model: Model, site) -> bool:
    ctx = Ctx(site[0], site[1].scope)
    call = site[1]
    for name, value in call.keywords:
        if name == "force":
            return truthiness(model.resolver.eval(value, ctx)) != "false"
        if name is None:
            return True
    if len(call.args) >= 2:
        return truthiness(model.resolver.eval(call.args[1], ctx)) != "false"
    return False


def check(model: Model) -> Iterator[Finding]:
    seen: Dict[Tuple[str, str, bool], int] = {}
    calls = [(module, model.project.summary(module).calls[index]) for module, index, _ in model.start_method_calls()]
    for module, call in sorted(calls, key=lambda c: (c[0], c[1].span.row, c[1].span.col)):
        key = (module, call.scope, call.guarded)
        earlier = seen.get(key)
        seen.setdefault(key, call.span.row)
        if _forced(model, (module, call)) or CATCHES & set(call.handlers):
            continue
        if not call.scope and not call.guarded:
            yield finding(
                model, CODE, module, call.span,
                "`set_start_method(...)` at module level outside `if __name__ == \"__main__\":` runs again when "
                f"spawned workers re-import this module and raises {ERROR}: move it under the main guard",
            )
        elif earlier is not None:
            yield finding(
                model, CODE, module, call.span,
                f"Second `set_start_method(...)` (first at line {earlier}) raises {ERROR}: remove it or pass "
                "`force=True`",
            )
