"""The pipeline: discover → read → parse → summarise → index → check → filter.

Per-file work (``analyze``) is a pure function of the file's bytes, so it can run in
worker processes and be cached; everything cross-file happens after, on summaries.
"""

from __future__ import annotations

import ast
import os
import sys
import warnings
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from . import noqa, prefilter
from .analysis.model import ModuleSummary
from .analysis.summarize import summarize
from .checks import CHECKS
from .config import Settings
from .diagnostics import Finding, Location
from .discovery import Discovery, module_name
from .index import ProjectIndex
from .sourcefile import SourceText, Unreadable, decode, read

@dataclass
class FileResult:
    path: str
    summary: Optional[ModuleSummary] = None
    error: Optional[Finding] = None
    parsed: bool = False


@dataclass
class RunResult:
    findings: List[Finding] = field(default_factory=list)
    files: int = 0
    parsed: int = 0
    sources: Dict[str, SourceText] = field(default_factory=dict)


def unparsable(path: str, reason: str, row: int = 1, column: int = 1) -> Finding:
    return Finding(
        code="DSL001",
        message=f"Cannot lint this file: {reason}",
        path=path,
        location=Location(row, column),
        end_location=Location(row, column),
    )


def parse(source: SourceText):
    """ast of ``source`` or an Unreadable saying why not."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(source.text, filename=source.path)
    except SyntaxError as exc:
        row = exc.lineno or 1
        col = exc.offset or 1
        return Unreadable(source.path, f"syntax error: {exc.msg}", row, max(col, 1))
    except (RecursionError, MemoryError):
        return Unreadable(source.path, "too deeply nested to parse")
    except ValueError as exc:
        return Unreadable(source.path, str(exc))


def analyze_source(path: str, source: SourceText, wanted=None) -> FileResult:
    wanted = prefilter.aspects(source.raw) if wanted is None else wanted
    if not wanted:
        return FileResult(path)
    tree = parse(source)
    if isinstance(tree, Unreadable):
        return FileResult(path, error=unparsable(path, tree.reason, tree.row, tree.column), parsed=True)
    module, is_package = module_name(path)
    old_limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(max(old_limit, 10000))
        summary = summarize(path, source.text, tree, module, is_package, wanted)
    except RecursionError:
        return FileResult(path, error=unparsable(path, "too deeply nested to analyse"), parsed=True)
    finally:
        sys.setrecursionlimit(old_limit)
    return FileResult(path, summary=summary, parsed=True)


def analyze(path: str) -> Tuple[FileResult, Optional[SourceText]]:
    source = read(path)
    if isinstance(source, Unreadable):
        return FileResult(path, error=unparsable(path, source.reason, source.row, source.column)), None
    return analyze_source(path, source), source


def lazy_summary(path: str):
    """Summarise a file the pre-filter skipped, only if the index asks for it."""

    def compute() -> Optional[ModuleSummary]:
        source = read(path)
        if isinstance(source, Unreadable):
            return None
        return analyze_source(path, source, prefilter.aspects(source.raw) | {"classes"}).summary

    return compute


def lazy_imports(path: str):
    """Modules a skipped file imports, read without parsing (for the import graph only)."""

    def compute() -> Tuple[str, ...]:
        source = read(path)
        if isinstance(source, Unreadable):
            return ()
        module, is_package = module_name(path)
        return prefilter.imported_modules(source.text, module, is_package)

    return compute


def check_summaries(results: Sequence[FileResult], codes: Sequence[str]) -> List[Finding]:
    summaries = [r.summary for r in results if r.summary is not None]
    skipped = [(module_name(r.path)[0], r.path) for r in results if r.summary is None and r.error is None]
    index = ProjectIndex(
        summaries,
        {module: lazy_summary(path) for module, path in skipped},
        {module: lazy_imports(path) for module, path in skipped},
    )
    findings: List[Finding] = [r.error for r in results if r.error is not None]
    checks = [CHECKS[code] for code in codes if code in CHECKS]
    for summary in summaries:
        for check in checks:
            findings.extend(check(summary, index))
    return findings


def run(paths: Sequence[str], settings: Settings) -> RunResult:
    discovery = Discovery(settings.root, settings.excludes, settings.respect_gitignore, settings.force_exclude)
    files = discovery.files(paths)
    result = RunResult(files=len(files))
    results: List[FileResult] = []
    for path in files:
        file_result, source = analyze(path)
        results.append(file_result)
        if source is not None:
            result.sources[path] = source
        result.parsed += file_result.parsed
    codes = settings.enabled_codes()
    findings = check_summaries(results, codes)
    findings.extend(unparsable(path, reason) for path, reason in discovery.problems)
    result.findings = filter_findings(findings, codes, settings, result.sources)
    return result


def filter_findings(findings, codes, settings: Settings, sources: Dict[str, SourceText]) -> List[Finding]:
    enabled = set(codes)
    kept: Dict[tuple, Finding] = {}
    for item in findings:
        if item.code not in enabled:
            continue
        if any(item.code.startswith(c.upper()) for c in settings.ignored_for(item.path)):
            continue
        source = sources.get(item.path)
        if source is not None and item.code != "DSL001":
            if noqa.file_suppressed(source.text) or noqa.suppressed(item.code, source.line(item.row)):
                continue
        kept.setdefault((item.path, item.location, item.code), item)
    return sorted(kept.values(), key=Finding.sort_key)
