"""The pipeline: discover → read → parse → summarise → index → check → filter.

Per-file work (``analyze``) is a pure function of the file's bytes, so it can run in
worker processes and be cached; everything cross-file happens after, on summaries.
"""

from __future__ import annotations

import ast
import dataclasses
import os
import sys
import warnings
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from . import noqa, prefilter
from .analysis.model import ModuleSummary
from .analysis.summarize import summarize
from .cache import Cache, content_hash
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
    digest: str = ""


PARALLEL_THRESHOLD = 64  # below this many files to parse, worker start-up costs more than it saves


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


def read_source(path: str):
    """The text to lint: the file's, or for a notebook the joined Python of its code cells."""
    if path.endswith(".ipynb"):
        from . import notebook

        return notebook.read(path)
    return read(path)


def analyze(path: str) -> Tuple[FileResult, Optional[SourceText]]:
    source = read_source(path)
    if isinstance(source, Unreadable):
        return FileResult(path, error=unparsable(path, source.reason, source.row, source.column)), None
    return analyze_source(path, source), source


def lazy_summary(path: str):
    """Summarise a file the pre-filter skipped, only if the index asks for it."""

    def compute() -> Optional[ModuleSummary]:
        source = read_source(path)
        if isinstance(source, Unreadable):
            return None
        return analyze_source(path, source, prefilter.aspects(source.raw) | {"classes"}).summary

    return compute


def lazy_imports(path: str):
    """Modules a skipped file imports, read without parsing (for the import graph only)."""

    def compute() -> Tuple[str, ...]:
        source = read_source(path)
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


def analyze_cached(path: str, cache: Optional[Cache]) -> FileResult:
    """analyze(), reusing the cached result of an unchanged file."""
    if cache is not None:
        hit = cache.lookup_stat(path)
        if hit is not None:
            return hit
    source = read_source(path)
    if isinstance(source, Unreadable):
        return FileResult(path, error=unparsable(path, source.reason, source.row, source.column))
    digest = content_hash(source.raw)
    if cache is not None:
        hit = cache.lookup_hash(path, digest)
        if hit is not None:
            cache.store(path, digest, hit)  # refresh the stat part of the key
            return hit
    result = analyze_source(path, source)
    result.digest = digest
    return result


def _analyze_chunk(paths: List[str], entry_points: Sequence[str] = ()) -> List[FileResult]:
    """Worker-process entry: configuration travels as arguments (spawn-safe), not globals."""
    from .analysis.names import configure_trainer_entry_points

    configure_trainer_entry_points(entry_points)
    return [analyze_cached(path, None) for path in paths]


def analyze_all(
    files: Sequence[str], jobs: Optional[int], cache: Optional[Cache], progress=None, entry_points: Sequence[str] = ()
) -> List[FileResult]:
    """Per-file analysis, from the cache where possible, the rest in worker processes."""
    results: Dict[str, FileResult] = {}
    todo: List[str] = []
    for path in files:
        hit = cache.lookup_stat(path) if cache is not None else None
        if hit is not None:
            results[path] = hit
        else:
            todo.append(path)
    if progress is not None:
        progress(len(results), len(files))
    fresh = _analyze_parallel(todo, jobs, progress, len(results), len(files), tuple(entry_points))
    for path, result in zip(todo, fresh):
        results[path] = result
        if cache is not None and result.digest:
            cache.store(path, result.digest, dataclasses.replace(result, parsed=False))
    return [results[path] for path in files]


def _analyze_parallel(
    todo: List[str], jobs: Optional[int], progress, done: int, total: int, entry_points: Tuple[str, ...] = ()
) -> List[FileResult]:
    jobs = jobs or os.cpu_count() or 1
    if jobs <= 1 or len(todo) < PARALLEL_THRESHOLD:
        out = []
        for path in todo:
            out.append(analyze_cached(path, None))
            done += 1
            if progress is not None and (done % 50 == 0 or done == total):
                progress(done, total)
        return out
    import concurrent.futures
    import multiprocessing

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    context = multiprocessing.get_context(method)
    chunk = max(8, len(todo) // (jobs * 8))
    chunks = [todo[i : i + chunk] for i in range(0, len(todo), chunk)]
    out: List[FileResult] = []
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        for part in pool.map(_analyze_chunk, chunks, [entry_points] * len(chunks)):
            out.extend(part)
            done += len(part)
            if progress is not None:
                progress(done, total)
    return out


def run(paths: Sequence[str], settings: Settings, progress=None, cells: bool = True) -> RunResult:
    """Lint ``paths``; ``progress(done, total)`` is called as files are analysed.

    Notebook findings come back with ``cell`` set and rows (fix edits included) relative
    to that cell; ``cells=False`` keeps them in the rows of the joined text in
    ``result.sources[path]``, which is what a fixer edits (see ``dslint.notebook``).
    """
    from .analysis.names import configure_trainer_entry_points  # DSL101's trainer table, in-process

    configure_trainer_entry_points(settings.trainer_entry_points)
    discovery = Discovery(settings.root, settings.excludes, settings.respect_gitignore, settings.force_exclude)
    files = discovery.files(paths)
    result = RunResult(files=len(files))
    cache = Cache.open(settings.root, settings_key(settings)) if settings.cache else None
    results = analyze_all(files, settings.jobs, cache, progress, settings.trainer_entry_points)
    result.parsed = sum(r.parsed for r in results)  # parsed by this run; cache hits say False
    codes = settings.enabled_codes()
    findings = check_summaries(results, codes)
    findings.extend(unparsable(path, reason) for path, reason in discovery.problems)
    for path in sorted({f.path for f in findings if f.code != "DSL001" or f.path.endswith(".ipynb")}):
        source = read_source(path)
        if isinstance(source, SourceText):
            result.sources[path] = source
    result.findings = filter_findings(findings, codes, settings, result.sources)
    if any(path.endswith(".ipynb") for path in result.sources):
        result.findings = notebook_findings(result.findings, result.sources, cells)
    if cache is not None:
        cache.save()
    return result


def settings_key(settings: Settings) -> str:
    """What per-file results depend on besides the file itself."""
    from .analysis.model import SCHEMA

    return repr(sorted(settings.handle_constructors)) + repr(sorted(settings.trainer_entry_points)) + SCHEMA


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


# notebooks ------------------------------------------------------------------
def notebook_findings(findings: Sequence[Finding], sources: Dict[str, SourceText], cells: bool = True) -> List[Finding]:
    """Drop the rules that do not apply in notebooks; with ``cells``, map rows to cells."""
    from dataclasses import replace

    from .diagnostics import Edit, Fix
    from .notebook import NOTEBOOK_EXEMPT

    out: List[Finding] = []
    for item in findings:
        notebook = getattr(sources.get(item.path), "notebook", None)
        if notebook is None:
            out.append(item)
            continue
        if item.code in NOTEBOOK_EXEMPT:
            continue
        if not cells:
            out.append(item)
            continue

        def at(location: Location) -> Tuple[Optional[int], Location]:
            cell, row = notebook.to_cell(location.row)
            return cell, Location(row, location.column)

        cell, start = at(item.location)
        _, end = at(item.end_location)
        fix = item.fix
        if fix is not None:
            edits: Optional[list] = []
            for edit in fix.edits:
                (first, a), (last, b) = at(edit.location), at(edit.end_location)
                if first != cell or last != cell:
                    edits = None  # an edit reaching into another cell cannot be shown per cell
                    break
                edits.append(Edit(a, b, edit.content))
            fix = None if edits is None else Fix(fix.message, fix.applicability, tuple(edits))
        noqa_row = notebook.to_cell(item.noqa_row)[1] if item.noqa_row else None
        out.append(replace(item, location=start, end_location=end, cell=cell, fix=fix, noqa_row=noqa_row))
    return sorted(out, key=Finding.sort_key)
