"""JUnit XML, as CI dashboards read it: one test suite per file, one failing test case
per finding (a run without findings is one passing test case)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from typing import Any, Dict, Iterable, List, TextIO

from .. import catalogue
from ..diagnostics import Finding


def _where(item: Finding) -> str:
    cell = f"cell {item.cell}:" if item.cell is not None else ""
    return f"{item.path}:{cell}{item.row}:{item.col}"


def render(findings: Iterable[Finding], out: TextIO, **_: Any) -> None:
    findings = list(findings)
    root = ET.Element("testsuites", name="dslint", tests=str(max(1, len(findings))),
                      failures=str(len(findings)), errors="0")
    if not findings:
        suite = ET.SubElement(root, "testsuite", name="dslint", tests="1", failures="0", errors="0")
        ET.SubElement(suite, "testcase", name="No problems found", classname="dslint")
    by_file: Dict[str, List[Finding]] = defaultdict(list)
    for item in findings:
        by_file[item.path].append(item)
    for path, items in by_file.items():
        suite = ET.SubElement(root, "testsuite", name=path, tests=str(len(items)),
                              failures=str(len(items)), errors="0")
        for item in items:
            rule = catalogue.RULES.get(item.code)
            name = f"{item.code} ({rule.name})" if rule is not None else item.code
            case = ET.SubElement(suite, "testcase", name=f"{name} at {_where(item)}", classname=path,
                                 file=path, line=str(item.row))
            failure = ET.SubElement(case, "failure", message=item.message,
                                    type=rule.severity if rule is not None else "error")
            failure.text = f"{_where(item)}: {item.code} {item.message}" + "".join(
                f"\n  {r.path}:{r.location.row}:{r.location.column}: {r.message}" for r in item.related)
    ET.indent(root) if hasattr(ET, "indent") else None
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(root, encoding="unicode"))
    out.write("\n")
