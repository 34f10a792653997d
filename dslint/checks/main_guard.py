"""DSL101 main-guard: code that starts workers must not run when the module is imported.

Under spawn and forkserver every worker re-imports the main module; if starting workers
is part of importing it, the child tries to start workers during its own bootstrap.
"""

from __future__ import annotations

from typing import Dict, Iterator, Optional, Set

from ..analysis.model import ModuleSummary, ProcessStart
from ..diagnostics import Finding
from ..index import ProjectIndex
from .base import finding

CODE = "DSL101"
FIX_HINT = 'move it into a function called under `if __name__ == "__main__":`'


def _reasons(summary: ModuleSummary) -> Dict[str, ProcessStart]:
    """Module-level functions that start workers, directly or through calls (fixpoint)."""
    functions = {name: f for name, f in summary.functions.items() if "." not in name}
    starts: Dict[str, ProcessStart] = {n: f.starts for n, f in functions.items() if f.starts}
    changed = True
    while changed:
        changed = False
        for name, function in functions.items():
            if name in starts:
                continue
            for callee in sorted(function.calls):
                if callee in starts:
                    starts[name] = ProcessStart(f"calls `{callee}()`, which {_describe(starts[callee])}")
                    changed = True
                    break
    return starts


def _describe(start: ProcessStart) -> str:
    return start.reason


def _callee_reason(calls: Set[str], starts: Dict[str, ProcessStart]) -> Optional[str]:
    for callee in sorted(calls):
        if callee in starts:
            return f"`{callee}()` {_describe(starts[callee])}"
    return None


def check(summary: ModuleSummary, index: ProjectIndex) -> Iterator[Finding]:
    starts = _reasons(summary)
    module_loader_spans = {s.span for s in summary.loaders if s.scope == "" and not s.guarded}
    for statement in summary.statements:
        if statement.starts is not None:
            start = statement.starts
            if start.loader_span is not None and start.loader_span in module_loader_spans:
                yield finding(
                    CODE,
                    summary.path,
                    start.loader_span,
                    f"DataLoader built and iterated at module level ({start.reason}) outside "
                    f'`if __name__ == "__main__":`; spawn/forkserver workers re-import this '
                    f"module and fail while bootstrapping: {FIX_HINT}",
                )
            else:
                yield finding(
                    CODE,
                    summary.path,
                    statement.span,
                    f"Module-level code {start.reason} outside `if __name__ == \"__main__\":`; "
                    f"spawn/forkserver workers re-import this module and fail while "
                    f"bootstrapping: {FIX_HINT}",
                )
            continue
        reason = _callee_reason(set(statement.calls), starts)
        if reason is not None:
            yield finding(
                CODE,
                summary.path,
                statement.span,
                f"Module-level call runs at import time and {reason}; spawn/forkserver "
                f"workers re-import this module and fail while bootstrapping: {FIX_HINT}",
            )
