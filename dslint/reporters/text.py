"""Human output: path:row:col, code, message, a code frame, a summary.

A line is a list of (text, style) parts. On a terminal (or with ``FORCE_COLOR``) rich
renders the styles; anywhere else (a pipe, a file, CI, pre-commit) the parts are written as
the plain text rich would have written, without importing rich: its console takes about a
tenth of a small run's time to import.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from typing import Any, Dict, Iterable, List, Optional, TextIO, Tuple

from .. import catalogue
from ..diagnostics import Finding
from ..sourcefile import SourceText, read

CONTEXT = 1
Line = List[Tuple[str, Optional[str]]]  # (text, rich style)
_CONTROL = {ord(c): None for c in "\x07\x08\x0b\x0c\r"}  # what rich drops from text it prints
_FORCE = ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")  # rich styles a pipe when one is set


class _Plain:
    """The text of each line, as rich's console writes it to a file that is not a terminal."""

    def __init__(self, out: TextIO):
        self.out = out

    def line(self, parts: Line = ()) -> None:
        text = "".join(part for part, _ in parts).translate(_CONTROL)
        self.out.write((text.expandtabs(8) if "\t" in text else text) + "\n")


class _Styled:
    """Lines through rich (a terminal, or colour forced)."""

    def __init__(self, out: TextIO):
        from rich.console import Console

        self.console = Console(file=out, highlight=False, soft_wrap=True, emoji=False)

    def line(self, parts: Line = ()) -> None:
        from rich.text import Text

        text = Text()
        for part, style in parts:
            text.append(part, style=style)
        self.console.print(text)


def _writer(out: TextIO):
    try:
        terminal = out.isatty()
    except (AttributeError, ValueError):
        terminal = False
    if terminal or any(os.environ.get(name) for name in _FORCE) or "ipykernel" in sys.modules:
        return _Styled(out)
    return _Plain(out)


def _location(item: Finding) -> str:
    if item.cell is not None:
        return f"{item.path}:cell {item.cell}:{item.row}:{item.col}"
    return f"{item.path}:{item.row}:{item.col}"


def _frame(item: Finding, source: Optional[SourceText]) -> List[Line]:
    if source is None or item.code == "DSL001" and not source.lines:
        return []
    lines = source.lines
    if item.cell is not None and hasattr(source, "cell_lines"):  # a notebook: the cell's own lines
        lines = source.cell_lines(item.cell)
    if not lines or item.row > len(lines):
        return []
    first = max(1, item.row - CONTEXT)
    last = min(len(lines), item.row + CONTEXT)
    width = len(str(last))
    gutter = " " * width + " |"
    out: List[Line] = [[(gutter, "blue")]]
    for row in range(first, last + 1):
        line = lines[row - 1].expandtabs(4) if "\t" not in lines[row - 1] else lines[row - 1]
        out.append([(f"{row:>{width}} | ", "blue"), (line, None)])
        if row == item.row:
            end = item.end_location.column if item.end_location.row == row else len(line) + 1
            length = max(1, end - item.col)
            out.append([(gutter + " " + " " * (item.col - 1), "blue"), ("^" * length + " " + item.code, "bold red")])
    out.append([(gutter, "blue")])
    return out


def render(
    findings: Iterable[Finding],
    out: TextIO,
    concise: bool = False,
    sources: Optional[Dict[str, SourceText]] = None,
    statistics: bool = False,
    quiet: bool = False,
    fixed: int = 0,
    planned: bool = True,
    **_: Any,
) -> None:
    findings = list(findings)
    if statistics:
        _statistics(findings, out, planned)
        return
    writer = _writer(out)
    for item in findings:
        writer.line([(_location(item), "bold"), (": ", None), (item.code, "bold red"), (" " + item.message, None)])
        if not concise:
            for line in _frame(item, (sources or {}).get(item.path)):
                writer.line(line)
            for line in _related(item, sources if sources is not None else {}):
                writer.line(line)
            writer.line()
    if quiet:
        return
    kinds = Counter(fix_kind(f, planned) for f in findings)
    fixable, unsafe, maybe = kinds["safe"], kinds["unsafe"], kinds["maybe"]
    if findings:
        total = len(findings) + fixed
        noun = "problem" if total == 1 else "problems"
        line = f"Found {total} {noun}"
        if fixed:
            line += f" ({fixed} fixed, {len(findings)} remaining)."
        else:
            line += "."
        writer.line([(line, "bold")])
        if fixable:
            writer.line([(f"[*] {fixable} fixable with `--fix`.", None)])
        if unsafe:
            writer.line([(f"{unsafe} more fixable with `--fix --unsafe-fixes`.", None)])
        if maybe:
            writer.line([(f"{maybe} more may be fixable (`--diff --unsafe-fixes` shows which, and how).", None)])
    elif fixed:
        noun = "problem" if fixed == 1 else "problems"
        writer.line([(f"Found {fixed} {noun} ({fixed} fixed, 0 remaining).", "bold")])
    else:
        writer.line([("All checks passed!", "bold green")])


def fix_kind(finding: Finding, planned: bool) -> Optional[str]:
    """"safe", "unsafe", "maybe" or None: the finding's planned fix, or when fixes were not
    planned (a plain check never parses with LibCST) what its rule offers. Whether a rule
    whose fix is offered only sometimes (DSL102: safe, unsafe or declined, by what the
    callable reads) fixes this finding is only known once the fix is planned: "maybe"."""
    if finding.fix is not None:
        return finding.fix.applicability
    if planned or finding.fact("fixable") is False:  # the check already knows no fix applies
        return None
    rule = catalogue.RULES.get(finding.code)
    offered = rule.fix if rule is not None else None
    return {"safe": "safe", "unsafe": "unsafe", "sometimes": "maybe"}.get(offered or "")


def _related(item: Finding, sources: Dict[str, SourceText]) -> List[Line]:
    """The other places that make the finding true, each with its line of code:

        = because:
          utils/config.py:8:18: default of `num_workers`
            8 |     num_workers: int = 0
    """
    if not item.related:
        return []
    out: List[Line] = [[("   = because:", "blue")]]
    for related in item.related:
        location = f"     {related.path}:{related.location.row}:{related.location.column}: "
        out.append([(location, "bold"), (related.message, None)])
        line = _line_of(related.path, related.location.row, sources)
        if line:
            out.append([(f"       {related.location.row} | ", "blue"), (line.strip(), None)])
    return out


def _line_of(path: str, row: int, sources: Dict[str, SourceText]) -> str:
    """Line ``row`` of a linted Python file (read once per run; notebooks are not excerpted)."""
    if path.endswith(".ipynb"):
        return ""
    source = sources.get(path)
    if source is None:
        source = read(path)
        if not isinstance(source, SourceText):
            return ""
        sources[path] = source
    lines = source.lines
    return lines[row - 1] if 0 < row <= len(lines) else ""


def _statistics(findings: List[Finding], out: TextIO, planned: bool = True) -> None:
    """``count<TAB>code<TAB>[*] name`` per rule, as ruff prints it (plain text, no styling)."""
    counts = Counter(f.code for f in findings)
    fixable = Counter(f.code for f in findings if fix_kind(f, planned) is not None)
    for code, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        rule = catalogue.RULES.get(code)
        mark = "[*]" if fixable[code] else "   "
        out.write(f"{count}\t{code}\t{mark} {rule.name if rule else ''}\n")
