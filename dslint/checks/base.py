"""What every check shares: turning a span and a message into a Finding."""

from __future__ import annotations

from ..analysis.model import Span
from ..diagnostics import Finding, Location


def finding(code: str, path: str, span: Span, message: str) -> Finding:
    return Finding(
        code=code,
        message=message,
        path=path,
        location=Location(span.row, span.col),
        end_location=Location(span.end_row, span.end_col),
    )
