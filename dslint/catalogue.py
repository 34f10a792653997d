"""The one message catalogue: every rule's code, name, defaults and fix safety.

Rule modules in ``dslint.checks`` implement the predicates; this table is what the CLI,
the reporters, the flake8 plugin and ``dslint rules`` read, so a rule's metadata lives in
exactly one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional

DOCS_URL = "https://github.com/dslint/dslint/blob/main/rules/{code}.md"


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    summary: str
    severity: str = "error"
    default: bool = True
    fix: Optional[str] = None  # "safe", "unsafe", "sometimes" or None

    @property
    def url(self) -> str:
        return DOCS_URL.format(code=self.code)


_RULES = [
    Rule("DSL001", "unparsable-file", "A file that cannot be read or parsed as Python 3."),
    Rule(
        "DSL101",
        "main-guard",
        "Module-level code that starts DataLoader workers or processes outside "
        "`if __name__ == \"__main__\":`.",
        fix="unsafe",
    ),
    Rule(
        "DSL102",
        "unpicklable-callable",
        "A lambda or nested function/class reaches DataLoader workers; spawn and "
        "forkserver cannot pickle it.",
        fix="sometimes",
    ),
    Rule(
        "DSL103",
        "cv2-threads",
        "A module feeding DataLoader workers imports cv2 without `cv2.setNumThreads(0)`.",
        severity="warning",
        fix="safe",
    ),
    Rule(
        "DSL104",
        "shared-handle",
        "A file/decoder/database handle opened before the workers start is shared by "
        "all of them.",
        fix="unsafe",
    ),
    Rule(
        "DSL201",
        "persistent-without-workers",
        "`persistent_workers=True` with zero workers raises ValueError.",
        fix="safe",
    ),
    Rule(
        "DSL301",
        "pin-without-non-blocking",
        "Batches from a `pin_memory=True` loader are copied without `non_blocking=True`.",
        severity="warning",
        fix="safe",
    ),
]

RULES: Dict[str, Rule] = {rule.code: rule for rule in _RULES}


def get(code: str) -> Rule:
    return RULES[code]


def register(rule: Rule) -> None:
    """Add a rule to the catalogue (used by rule modules defined after the core six)."""
    RULES[rule.code] = rule
