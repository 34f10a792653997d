"""The data every stage hands on: findings, their locations and their fixes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Tuple


@dataclass(frozen=True, order=True)
class Location:
    """A 1-based row and a 1-based column (in characters), as ruff reports them."""

    row: int
    column: int


@dataclass(frozen=True)
class Edit:
    """Replace the text between two locations with ``content``."""

    location: Location
    end_location: Location
    content: str


@dataclass(frozen=True)
class Fix:
    """A rewrite that removes one finding.

    ``applicability`` is ``"safe"`` (keeps behaviour) or ``"unsafe"`` (may change it).
    """

    message: str
    applicability: str
    edits: Tuple[Edit, ...] = ()


@dataclass(frozen=True)
class Related:
    """Another place that makes a finding true (where a default lives, where a loader is built)."""

    path: str
    location: Location
    end_location: Location
    message: str


def related_summary(related: Tuple[Related, ...], limit: int = 3) -> str:
    """``train.py:12: default of `num_workers`; data.py:40: the loader is built here`` (one line)."""
    parts = [f"{r.path}:{r.location.row}: {r.message}" for r in related[:limit]]
    if len(related) > limit:
        parts.append(f"{len(related) - limit} more")
    return "; ".join(parts)


@dataclass(frozen=True)
class Finding:
    """One problem in one file.

    ``cell`` is the notebook cell (1-based) for ``.ipynb`` files, else ``None``.
    """

    code: str
    message: str
    path: str
    location: Location
    end_location: Location
    fix: Optional[Fix] = None
    cell: Optional[int] = None
    noqa_row: Optional[int] = None
    related: Tuple[Related, ...] = field(default=())
    data: Tuple[Tuple[str, Any], ...] = field(default=(), compare=False)  # facts a fixer needs (plain data)

    def fact(self, key: str, default: Any = None) -> Any:
        return dict(self.data).get(key, default)

    @property
    def row(self) -> int:
        return self.location.row

    @property
    def col(self) -> int:
        return self.location.column

    def sort_key(self):
        return (self.path, self.cell or 0, self.location, self.code)
