"""SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.

The run's driver lists every rule of the catalogue with its summary, default level and
the rule page (``rules/DSLnnn.md``) as help text and Markdown; each result points at its
rule, file and region, carries the fix as a SARIF ``fix`` where there is one, and the
places that make it true (where the loader is built, where a value comes from) as
``relatedLocations``.
Relative paths are given against ``%SRCROOT%`` (the working directory of the run).
A notebook result names its cell in the message and in ``properties`` and has no region:
its rows are rows of the cell, not lines of the ``.ipynb`` JSON.
"""

from __future__ import annotations

import json
import os
from pathlib import Path, PurePath
from typing import Any, Dict, Iterable, List, Optional, TextIO
from urllib.parse import quote

from .. import __version__, catalogue, rule_pages
from ..diagnostics import Finding, Location
from .json_format import related_places

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/dslint/dslint"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def _level(rule: Optional[catalogue.Rule]) -> str:
    return LEVELS.get(rule.severity if rule is not None else "error", "warning")


def rule_descriptor(rule: catalogue.Rule) -> Dict[str, Any]:
    page = rule_pages.page(rule.code) or f"# {rule.code}: {rule.name}\n\n{rule.summary}\n"
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.summary},
        "help": {"text": page, "markdown": page},
        "helpUri": rule.url,
        "defaultConfiguration": {"level": _level(rule), "enabled": rule.default},
        "properties": {
            "tags": ["pytorch", "data-loading"],
            "problem.severity": _level(rule),
            "precision": "high",
            "fix": rule.fix or "none",
        },
    }


def _artifact(path: str) -> Dict[str, Any]:
    if os.path.isabs(path):
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(PurePath(path).as_posix(), safe="/"), "uriBaseId": "%SRCROOT%"}


def _region(start: Location, end: Location) -> Dict[str, int]:
    region = {"startLine": max(1, start.row), "startColumn": max(1, start.column)}
    if end.row >= start.row:
        region["endLine"] = max(1, end.row)
        region["endColumn"] = max(1, end.column)
    return region


def result(item: Finding, index: Dict[str, int]) -> Dict[str, Any]:
    rule = catalogue.RULES.get(item.code)
    message = item.message
    physical: Dict[str, Any] = {"artifactLocation": _artifact(item.path)}
    properties: Dict[str, Any] = {}
    if item.cell is None:
        physical["region"] = _region(item.location, item.end_location)
    else:
        message = f"cell {item.cell}:{item.row}:{item.col}: {message}"
        properties = {"cell": item.cell, "row": item.row, "column": item.col}
    out: Dict[str, Any] = {
        "ruleId": item.code,
        "level": _level(rule),
        "message": {"text": message},
        "locations": [{"physicalLocation": physical}],
    }
    if item.code in index:
        out["ruleIndex"] = index[item.code]
    if item.fix is not None and item.fix.edits and item.cell is None:
        out["fixes"] = [{
            "description": {"text": f"{item.fix.message} ({item.fix.applicability} fix)"},
            "artifactChanges": [{
                "artifactLocation": _artifact(item.path),
                "replacements": [
                    {"deletedRegion": _region(edit.location, edit.end_location),
                     "insertedContent": {"text": edit.content}}
                    for edit in item.fix.edits
                ],
            }],
        }]
    places = related_places(item)
    if places:
        out["relatedLocations"] = [
            {"id": number, "message": {"text": place.message},
             "physicalLocation": {"artifactLocation": _artifact(place.path),
                                  "region": _region(place.location, place.end_location)}}
            for number, place in enumerate(places)
        ]
        flow = [{"location": {"message": {"text": place.message}, "physicalLocation": {
            "artifactLocation": _artifact(place.path), "region": _region(place.location, place.end_location)}}}
            for place in places]
        flow.append({"location": {"message": {"text": item.code}, "physicalLocation": physical}})
        out["codeFlows"] = [{"threadFlows": [{"locations": flow}]}]
    if properties:
        out["properties"] = properties
    return out


def document(findings: Iterable[Finding]) -> Dict[str, Any]:
    rules: List[catalogue.Rule] = [catalogue.RULES[code] for code in sorted(catalogue.RULES)]
    index = {rule.code: i for i, rule in enumerate(rules)}
    root = Path(os.getcwd()).as_uri().rstrip("/") + "/"
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "dslint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": [rule_descriptor(rule) for rule in rules],
            }},
            "invocations": [{"executionSuccessful": True}],
            "originalUriBaseIds": {"%SRCROOT%": {"uri": root}},
            "columnKind": "unicodeCodePoints",
            "results": [result(item, index) for item in findings],
        }],
    }


def render(findings: Iterable[Finding], out: TextIO, **_: Any) -> None:
    json.dump(document(findings), out, indent=2, ensure_ascii=False)
    out.write("\n")
