"""Human output through rich: path:row:col, code, message, a code frame, a summary."""

from __future__ import annotations

from collections import Counter
from typing import Any, Dict, Iterable, List, Optional, TextIO

from rich.console import Console
from rich.text import Text

from .. import catalogue
from ..diagnostics import Finding
from ..sourcefile import SourceText, read

CONTEXT = 1


def _location(item: Finding) -> str:
    if item.cell is not None:
        return f"{item.path}:cell {item.cell}:{item.row}:{item.col}"
    return f"{item.path}:{item.row}:{item.col}"


def _frame(item: Finding, source: Optional[SourceText]) -> List[Text]:
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
    out = [Text(gutter, style="blue")]
    for row in range(first, last + 1):
        line = lines[row - 1].expandtabs(4) if "\t" not in lines[row - 1] else lines[row - 1]
        text = Text(f"{row:>{width}} | ", style="blue")
        text.append(line)
        out.append(text)
        if row == item.row:
            end = item.end_location.column if item.end_location.row == row else len(line) + 1
            length = max(1, end - item.col)
            marker = Text(gutter + " " + " " * (item.col - 1), style="blue")
            marker.append("^" * length + " " + item.code, style="bold red")
            out.append(marker)
    out.append(Text(gutter, style="blue"))
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
    console = Console(file=out, highlight=False, soft_wrap=True, emoji=False)
    if statistics:
        _statistics(findings, out, planned)
        return
    for item in findings:
        header = Text(_location(item), style="bold")
        header.append(": ")
        header.append(item.code, style="bold red")
        header.append(" " + item.message)
        console.print(header)
        if not concise:
            for line in _frame(item, (sources or {}).get(item.path)):
                console.print(line)
            for line in _related(item, sources if sources is not None else {}):
                console.print(line)
            console.print()
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
        console.print(Text(line, style="bold"))
        if fixable:
            console.print(f"[*] {fixable} fixable with `--fix`.", markup=False)
        if unsafe:
            console.print(f"{unsafe} more fixable with `--fix --unsafe-fixes`.", markup=False)
        if maybe:
            console.print(f"{maybe} more may be fixable (`--diff --unsafe-fixes` shows which, and how).", markup=False)
    elif fixed:
        noun = "problem" if fixed == 1 else "problems"
        console.print(Text(f"Found {fixed} {noun} ({fixed} fixed, 0 remaining).", style="bold"))
    else:
        console.print(Text("All checks passed!", style="bold green"))


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


def _related(item: Finding, sources: Dict[str, SourceText]) -> List[Text]:
    """The other places that make the finding true, each with its line of code:

        = because:
          utils/config.py:8:18: default of `num_workers`
            8 |     num_workers: int = 0
    """
    if not item.related:
        return []
    out = [Text("   = because:", style="blue")]
    for related in item.related:
        head = Text(f"     {related.path}:{related.location.row}:{related.location.column}: ", style="bold")
        head.append(related.message)
        out.append(head)
        line = _line_of(related.path, related.location.row, sources)
        if line:
            out.append(Text(f"       {related.location.row} | ", style="blue") + Text(line.strip()))
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
