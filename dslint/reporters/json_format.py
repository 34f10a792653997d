"""ruff-compatible JSON: a list of objects with code, message, location, fix, url."""

from __future__ import annotations

import json
from typing import Any, Dict, Iterable, TextIO

from .. import catalogue
from ..diagnostics import Finding


def finding_to_dict(item: Finding) -> Dict[str, Any]:
    rule = catalogue.RULES.get(item.code)
    fix = None
    if item.fix is not None:
        fix = {
            "applicability": item.fix.applicability,
            "message": item.fix.message,
            "edits": [
                {
                    "content": edit.content,
                    "location": {"row": edit.location.row, "column": edit.location.column},
                    "end_location": {"row": edit.end_location.row, "column": edit.end_location.column},
                }
                for edit in item.fix.edits
            ],
        }
    return {
        "cell": item.cell,
        "code": item.code,
        "end_location": {"row": item.end_location.row, "column": item.end_location.column},
        "filename": item.path,
        "fix": fix,
        "location": {"row": item.location.row, "column": item.location.column},
        "message": item.message,
        "name": rule.name if rule else None,
        "noqa_row": item.noqa_row or item.location.row,
        "related": [
            {
                "filename": place.path,
                "location": {"row": place.location.row, "column": place.location.column},
                "end_location": {"row": place.end_location.row, "column": place.end_location.column},
                "message": place.message,
            }
            for place in related_places(item)
        ],
        "severity": rule.severity if rule else "error",
        "url": rule.url if rule else None,
    }


def related_places(item: Finding):
    """The other places that make ``item`` true, in rows of their files (a notebook's rows are
    those of its joined cells, which no report shows, so notebooks have none)."""
    return [place for place in item.related if not place.path.endswith(".ipynb")]


def render_json(findings: Iterable[Finding], out: TextIO, **_: Any) -> None:
    json.dump([finding_to_dict(f) for f in findings], out, indent=2)
    out.write("\n")


def render_json_lines(findings: Iterable[Finding], out: TextIO, **_: Any) -> None:
    for item in findings:
        out.write(json.dumps(finding_to_dict(item)) + "\n")
