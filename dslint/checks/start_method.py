"""DSL106 start-method: ``set_start_method`` where it runs twice.

The start method can be set once per process. At module level outside the main guard the
call runs again in every spawned child (which re-imports the main module after its start
method was already set), and a second call in the same code path always fails:
``RuntimeError: context has already been set``.
"""

from __future__ import annotations

from typing import Dict, Iterator, Tuple

from ..analysis.model import ModuleSummary
from ..diagnostics import Finding
from ..index import ProjectIndex
from .base import finding

CODE = "DSL106"
ERROR = "`RuntimeError: context has already been set`"


def check(summary: ModuleSummary, index: ProjectIndex) -> Iterator[Finding]:
    seen: Dict[Tuple[str, bool], int] = {}
    for call in sorted(summary.start_method_calls, key=lambda c: (c.span.row, c.span.col)):
        key = (call.scope, call.guarded)
        earlier = seen.get(key)
        seen.setdefault(key, call.span.row)
        if call.force or call.protected:
            continue
        if call.scope == "" and not call.guarded:
            yield finding(
                CODE,
                summary.path,
                call.span,
                "`set_start_method(...)` at module level outside `if __name__ == \"__main__\":` runs "
                f"again when spawned workers re-import this module and raises {ERROR}: move it under "
                "the main guard",
            )
        elif earlier is not None:
            yield finding(
                CODE,
                summary.path,
                call.span,
                f"Second `set_start_method(...)` (first at line {earlier}) raises {ERROR}: "
                "remove it or pass `force=True`",
            )
