"""GitHub Actions workflow commands: one ``::error``/``::warning`` annotation per finding.

``::error title=DSL102 (unpicklable-callable),file=train.py,line=70,col=20,endLine=70,endColumn=86::message``
GitHub shows it on the pull request's diff. A notebook finding names its cell in the
message and carries no line (rows are cell rows, not lines of the ``.ipynb`` JSON).
"""

from __future__ import annotations

from typing import Any, Iterable, TextIO

from .. import catalogue
from ..diagnostics import Finding, related_summary


def _data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(value: str) -> str:
    return _data(value).replace(":", "%3A").replace(",", "%2C")


def annotation(item: Finding) -> str:
    rule = catalogue.RULES.get(item.code)
    level = "warning" if rule is not None and rule.severity == "warning" else "error"
    title = f"{item.code} ({rule.name})" if rule is not None else item.code
    props = [f"title={_property(title)}", f"file={_property(item.path)}"]
    message = item.message
    if item.related:
        message += f" (see {related_summary(item.related)})"
    if item.cell is not None:
        message = f"cell {item.cell}:{item.row}:{item.col}: {message}"
    else:
        props += [
            f"line={item.location.row}",
            f"col={item.location.column}",
            f"endLine={item.end_location.row}",
            f"endColumn={item.end_location.column}",
        ]
    return f"::{level} {','.join(props)}::{_data(message)}"


def render(findings: Iterable[Finding], out: TextIO, **_: Any) -> None:
    for item in findings:
        out.write(annotation(item) + "\n")
