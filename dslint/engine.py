"""The pipeline: discover → read → pre-filter → parse → summarise → project → check → filter.

Per-file work (``analyze``) is a pure function of the file's bytes, so it runs in worker
processes and is cached; everything cross-file happens after, in the semantic model
(``dslint.model``) built from the summaries.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import gc
import os
import sys
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Set, Tuple

from . import boundaries, noqa, prefilter
from .analysis.extract import extract
from .analysis.summary import ModuleSummary
from .cache import Cache, content_hash
from .config import Settings, cap_jobs, selects
from .diagnostics import Finding, Location
from .discovery import Discovery
from .paths import absolute, one_run as paths_memo
from .plaindata import Codec, records_of
from .sourcefile import SourceText, Unreadable, read


@dataclass
class FileResult:
    path: str
    summary: Optional[ModuleSummary] = None
    error: Optional[Finding] = None
    parsed: bool = False
    digest: str = ""
    tier: str = prefilter.SKIP
    imports: Tuple[str, ...] = ()


# Texts that stand in for files while fixes are planned in memory (``dslint.fixes.apply``
# runs its rounds this way so that ``--diff`` shows exactly what ``--fix`` writes). They
# never touch the cache, which describes the files on disk.
_OVERLAY: Dict[str, SourceText] = {}


@contextmanager
def overlay(sources: Dict[str, SourceText]):
    """Lint with ``sources`` read in place of the files at their paths."""
    saved = dict(_OVERLAY)
    _OVERLAY.update(sources)
    try:
        yield
    finally:
        _OVERLAY.clear()
        _OVERLAY.update(saved)


_STARTED: List[Optional[Tuple[int, int, float]]] = [None]  # the machine's CPU times when the current run began


@dataclass
class RunResult:
    findings: List[Finding] = field(default_factory=list)
    files: int = 0
    parsed: int = 0
    sources: Dict[str, SourceText] = field(default_factory=dict)
    warnings: List[str] = field(default_factory=list)  # what the walk did not follow, and why


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


def summarise(path: str, source: SourceText) -> FileResult:
    """Parse and summarise one file (a syntax error is a DSL001 finding, not an exception)."""
    tree = parse(source)
    if isinstance(tree, Unreadable):
        return FileResult(path, error=unparsable(path, tree.reason, tree.row, tree.column), parsed=True)
    old_limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(max(old_limit, 10000))
        summary = extract(path, source.text, tree)
    except RecursionError:
        return FileResult(path, error=unparsable(path, "too deeply nested to analyse"), parsed=True)
    finally:
        sys.setrecursionlimit(old_limit)
    return FileResult(path, summary=summary, parsed=True)


def is_package_file(path: str) -> bool:
    """An ``__init__`` file (as ``model.project.module_identity`` names packages)."""
    return os.path.basename(path).rsplit(".", 1)[0] == "__init__"


def analyze_source(path: str, source: SourceText, force: bool = False, words: Tuple[bytes, ...] = ()) -> FileResult:
    """A seed file is summarised; any other only has its tier and imports read (``force``:
    summarise anyway). ``words``: more seed words (the project's own trainer classes).
    Imports are read only where ``connected_candidates`` follows them: files that mention
    a loader word, and package ``__init__`` files."""
    tier = prefilter.tier(source.raw, words)
    imports = prefilter.imported_modules(source.text) if tier != prefilter.SKIP or is_package_file(path) else ()
    if tier == prefilter.SEED or force:
        result = summarise(path, source)
    else:
        result = FileResult(path)
    result.tier = tier
    result.imports = imports
    return result


def read_source(path: str):
    """The text to lint: the file's, or for a notebook the joined Python of its code cells."""
    if path in _OVERLAY:
        return _OVERLAY[path]
    if path.endswith(".ipynb"):
        from . import notebook

        return notebook.read(path)
    return read(path)


def analyze(path: str, force: bool = False) -> Tuple[FileResult, Optional[SourceText]]:
    source = read_source(path)
    if isinstance(source, Unreadable):
        return FileResult(path, error=unparsable(path, source.reason, source.row, source.column)), None
    return analyze_source(path, source, force), source


def scan(path: str, words: Tuple[bytes, ...] = ()) -> FileResult:
    """The pre-filter tier, imports and content hash of a file not found in the cache (no
    parse: which files to parse is decided once every file is scanned)."""
    source = read_source(path)
    if isinstance(source, Unreadable):
        return FileResult(path, error=unparsable(path, source.reason, source.row, source.column))
    tier = prefilter.tier(source.raw, words)
    imports = prefilter.imported_modules(source.text) if tier != prefilter.SKIP or is_package_file(path) else ()
    return FileResult(path, digest=content_hash(source.raw), tier=tier, imports=imports)


def summarise_path(path: str) -> FileResult:
    """Parse and summarise a file whose tier and imports are already known."""
    source = read_source(path)
    if isinstance(source, Unreadable):
        return FileResult(path, error=unparsable(path, source.reason, source.row, source.column))
    return summarise(path, source)


def analyze_all(files: Sequence[str], jobs: Optional[int], cache: Optional[Cache], progress=None,
                words: Tuple[bytes, ...] = ()) -> List[FileResult]:
    """The per-file pass: every file's tier, imports and content hash, from the cache for
    an unchanged file, else read (in worker processes when there is enough to read)."""
    results: Dict[str, FileResult] = {}
    todo: List[str] = []
    for path in files:
        hit = from_cache(cache, path)
        if hit is not None:
            results[path] = hit
        else:
            todo.append(path)
    count = [len(results)]

    def done(number: int) -> None:
        count[0] += number
        if progress is not None:
            progress(count[0], len(files))

    if progress is not None:
        progress(len(results), len(files))
    for path, result in zip(todo, share(todo, functools.partial(_scan_chunk, words=words), jobs, done)):
        remember(cache, result)
        results[path] = result
    return [results[path] for path in files]


def summarise_all(results: Sequence[FileResult], paths: Sequence[str], jobs: Optional[int],
                  progress=None) -> List[FileResult]:
    """``results`` with the files ``paths`` parsed and summarised (their tier, imports and
    content hash kept), in worker processes when there is enough of them. ``progress``
    counts on from the per-file pass: (files scanned + parsed, files + files to parse)."""
    wanted = set(paths)
    todo = [r.path for r in results if r.path in wanted]
    count = [len(results)]

    def done(number: int) -> None:
        count[0] += number
        if progress is not None:
            progress(count[0], len(results) + len(todo))

    fresh = dict(zip(todo, share(todo, _summarise_chunk, jobs, done, summarising=True)))
    out = []
    for result in results:
        done = fresh.get(result.path)
        if done is not None:
            result = dataclasses.replace(result, summary=done.summary, error=done.error, parsed=done.parsed)
        out.append(result)
    return out


def _scan_chunk(paths: List[str], words: Tuple[bytes, ...] = ()) -> List[FileResult]:
    """Pure function of the files (runs in worker processes: settings travel as arguments)."""
    return [scan(path, words) for path in paths]


def _summarise_chunk(paths: List[str]) -> List[FileResult]:
    return [summarise_path(path) for path in paths]


def share(paths: List[str], function, jobs: Optional[int], done=None, summarising: bool = False) -> List[FileResult]:
    """``function`` over ``paths`` in chunks, shared with forked workers when the files are
    big enough to pay for them (``dslint.parallel``; ``summarising``: the files are parsed,
    which pays for a worker sooner than reading them does)."""
    from . import parallel

    if not paths:
        return []
    sizes = [_size(path) for path in paths]
    per_worker = parallel.PARSE_BYTES_PER_WORKER if summarising else None
    workers = parallel.workers_for(sum(sizes), cap_jobs(jobs, len(paths)), parallel.idle_cores(_STARTED[0]), per_worker)
    if _OVERLAY and not parallel.FORK:
        workers = 0  # only fork carries the overlay
    chunks = parallel.chunked(paths, sizes, workers + 1)
    return parallel.map_shared(function, chunks, workers, done, tuple_types=_summary_tuple_types())


@functools.lru_cache(maxsize=None)
def _summary_tuple_types() -> Tuple[type, ...]:
    """The NamedTuple classes a per-file result is made of (pickled fast, ``dslint.parallel``)."""
    from . import diagnostics
    from .analysis import summary, values

    return tuple(kind for kind in records_of(summary, values, diagnostics)
                 if isinstance(kind, type) and issubclass(kind, tuple) and hasattr(kind, "_fields"))


def _size(path: str) -> int:
    source = _OVERLAY.get(path)
    if source is not None:
        return len(source.raw)
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def remember(cache: Optional[Cache], result: FileResult) -> None:
    """Store the small part of ``result`` without its paths: a hit is the same from any
    working directory (the summary is not kept: see ``dslint.cache``)."""
    if cache is not None and result.digest and result.path not in _OVERLAY:  # the cache describes files on disk
        error = result.error and dataclasses.replace(result.error, path="")
        head = dataclasses.replace(result, path="", summary=None, error=error, parsed=False)
        cache.store(result.path, result.digest, head)


def from_cache(cache: Optional[Cache], path: str) -> Optional[FileResult]:
    """The cached small result of ``path`` when its stat is unchanged."""
    hit = cache.lookup(path) if cache is not None and path not in _OVERLAY else None
    if hit is None:
        return None
    result = object.__new__(FileResult)  # ``dataclasses.replace`` without its per-field checks: once per file of a warm run
    result.__dict__.update(hit.head.__dict__)
    result.path = path
    return result


@functools.lru_cache(maxsize=None)
def cache_codec() -> Codec:
    """The classes a cached result is made of: FileResult, summaries, values, findings."""
    from . import diagnostics
    from .analysis import summary, values

    return Codec([FileResult, *records_of(summary, values, diagnostics)])


# the project --------------------------------------------------------------------------------
def given_roots(paths: Sequence[str], files: Sequence[str]) -> Dict[str, str]:
    """file → the command-line folder it was found under (a named file: its folder)."""
    targets = sorted((absolute(p) for p in paths), key=len, reverse=True)
    out = {}
    for path in files:
        full = absolute(path)
        for target in targets:
            if full == target:
                out[path] = os.path.dirname(target)
                break
            if full.startswith(target.rstrip(os.sep) + os.sep):
                out[path] = target
                break
        else:
            out[path] = os.path.dirname(full)
    return out


def connected_candidates(results: Sequence[FileResult], roots: Dict[str, str]) -> List[str]:
    """Candidate files an import path connects to a seed (in either direction, through seeds,
    candidates and package ``__init__`` files; same project only), and the script files
    that import one of those files or a seed themselves while no file imports them."""
    project, infos, targets = _import_targets(results, roots)
    by_key = {infos[r.path].key: r for r in results}
    seeds = [infos[r.path].key for r in results if r.tier == prefilter.SEED and r.error is None]
    if not seeds:
        return []
    edges: Dict[str, Set[str]] = {}
    imported: Dict[str, Set[str]] = {}  # module → the modules it imports
    for result in results:
        key = infos[result.path].key
        for target in targets[result.path]:
            edges.setdefault(key, set()).add(target)
            edges.setdefault(target, set()).add(key)
            imported.setdefault(key, set()).add(target)

    def passable(key: str) -> bool:
        result = by_key.get(key)
        return result is not None and (result.tier not in (prefilter.SKIP, prefilter.SCRIPT)
                                       or project.modules[key].is_package)

    reached = set(seeds)
    todo = list(seeds)
    while todo:
        for other in edges.get(todo.pop(), ()):
            if other not in reached and passable(other):
                reached.add(other)
                todo.append(other)
    imported_somewhere = {module for modules in imported.values() for module in modules}

    def entry_script(key: str) -> bool:
        return key not in imported_somewhere and bool(imported.get(key, set()) & reached)

    return [r.path for r in results if r.summary is None and (
        (r.tier == prefilter.CANDIDATE and infos[r.path].key in reached)
        or (r.tier == prefilter.SCRIPT and entry_script(infos[r.path].key)))]


def lazy_summary(consulted: Optional[Set[str]] = None, ahead=None):
    """Summarise a file the pre-filter skipped, only when the resolver needs it (``ahead``:
    a ``prefetch.Prefetch`` that may have done it already)."""

    def compute(path: str) -> Optional[ModuleSummary]:
        if consulted is not None:
            consulted.add(path)
        done = ahead.take(path) if ahead is not None else None
        return (done if done is not None else summarise_path(path)).summary

    return compute


def _import_targets(results: Sequence[FileResult], roots: Dict[str, str], which=None):
    """(project, each file's module info, the keys of the other project modules each file
    imports, in import order); ``which(result)``: only those files' imports are resolved."""
    from .model.project import Project, resolve_relative

    project = Project()
    infos = {r.path: project.add(r.path, None, roots[r.path]) for r in results}
    targets: Dict[str, List[str]] = {}
    for result in results:
        info = infos[result.path]
        keys = targets[result.path] = []
        for name in result.imports if which is None or which(result) else ():
            level = len(name) - len(name.lstrip("."))
            dotted = resolve_relative(info.name, info.is_package, level, name.lstrip(".")) if level else name
            module, _ = project.split_import(info, dotted)
            if module is not None and module.key != info.key:
                keys.append(module.key)
    return project, infos, targets


def imported_unsummarised(results: Sequence[FileResult], roots: Dict[str, str]) -> List[str]:
    """The project files the summarised ones import that are not summarised yet, in the order
    they are first imported: what the rules most often summarise on demand."""
    _, infos, targets = _import_targets(results, roots, which=lambda r: r.summary is not None)
    by_key = {infos[r.path].key: r for r in results}
    out: Dict[str, None] = {}
    for result in results:
        for key in targets[result.path]:
            target = by_key.get(key)
            if target is not None and target.summary is None and target.error is None and target.path.endswith(".py"):
                out[target.path] = None
    return list(out)


def source_text(path: str) -> Optional[str]:
    source = read_source(path)
    return None if isinstance(source, Unreadable) else source.text


def check_results(results: Sequence[FileResult], codes: Sequence[str], settings: Settings,
                  roots: Dict[str, str], consulted: Optional[Set[str]] = None, ahead=None) -> List[Finding]:
    """The per-file errors and the rules' findings; ``consulted`` receives every file the
    rules read besides those summarised up front (summarised on demand, or quoted); ``ahead``
    summarises likely ones ahead (``dslint.prefetch``)."""
    from .checks import run_checks
    from .model import configfiles
    from .model.libraries import Libraries
    from .model.project import Project, Sources
    from .model.queries import Model
    from .model.resolver import Resolver

    def text(path: str) -> Optional[str]:
        if consulted is not None:
            consulted.add(path)
        return source_text(path)

    sources = Sources(lazy_summary(consulted, ahead), text)
    project = Project.build(((r.path, r.summary, roots[r.path]) for r in results if r.error is None), sources)
    libraries = Libraries(getattr(settings, "loader_classes", ()), getattr(settings, "loader_factories", ()))
    resolver = Resolver(project, libraries)
    model = Model(project, resolver, settings)
    findings: List[Finding] = [r.error for r in results if r.error is not None]
    old_limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(max(old_limit, 20000))
        findings.extend(run_checks(model, codes))
    finally:
        sys.setrecursionlimit(old_limit)
    if consulted is not None:  # the configuration files read or looked for
        consulted.update(configfiles.files_read(resolver))
    return findings


def analyse(results: Sequence[FileResult], settings: Settings, codes: Sequence[str], roots: Dict[str, str],
            consulted: Optional[Set[str]] = None, progress=None,
            keep_summaries: bool = False) -> Tuple[List[FileResult], List[Finding]]:
    """``analyse_groups`` over every boundary, put back together: the results summarised,
    the per-file errors and every finding."""
    out = list(results)
    findings: List[Finding] = [r.error for r in results if r.error is not None]
    groups = boundaries.boundary_groups([r.path for r in results], roots)
    for group in analyse_groups(results, groups, settings, codes, roots, progress, keep_summaries):
        for index, result in zip(group.indexes, group.results):
            out[index] = result
        findings.extend(group.findings)
        if consulted is not None:
            consulted.update(group.consulted)
    return out, findings


def analyse_groups(results: Sequence[FileResult], groups: Sequence[List[int]], settings: Settings,
                   codes: Sequence[str], roots: Dict[str, str], progress=None,
                   keep_summaries: bool = False) -> List[boundaries.GroupAnalysis]:
    """Summarise what the rules need and run them, one project boundary (``groups``: indexes
    into ``results``) at a time (``dslint.boundaries``), in the order given."""
    from . import parallel

    plan = [_planned(results, group, roots) for group in groups if group]
    if not plan:
        return []
    finished = [len(results)]

    def count(number: int) -> None:
        finished[0] += number
        if progress is not None:
            progress(finished[0], len(results) + len(plan))

    def analyse_one(group: boundaries.Planned, jobs: Optional[int]) -> boundaries.GroupAnalysis:
        members = [results[i] for i in group.indexes]
        known = {id(r.error) for r in members if r.error is not None}  # the scan's: reported by the run
        seen: Set[str] = set()
        single = progress if len(plan) == 1 else None
        done, found = analyse_boundary(members, group.connected, settings, codes, roots, seen, single, jobs)
        return boundaries.GroupAnalysis(group.indexes, done, [f for f in found if id(f) not in known], sorted(seen))

    idle = parallel.idle_cores(_STARTED[0])
    forkable = parallel.FORK or not _OVERLAY  # only fork carries the overlay
    return boundaries.analyse_all(plan, analyse_one, settings.jobs, idle, keep_summaries or not forkable, count)


def _planned(results: Sequence[FileResult], group: List[int], roots: Dict[str, str]) -> boundaries.Planned:
    """A boundary with the candidates connected to its seeds and the bytes it will parse."""
    members = [results[i] for i in group]
    connected = connected_candidates(members, roots)
    wanted = set(_seeds(members)) | set(connected)
    return boundaries.Planned(sum(_size(r.path) for r in members if r.path in wanted), group, connected)


def _seeds(results: Sequence[FileResult]) -> List[str]:
    """The seed files still to summarise."""
    return [r.path for r in results if r.tier == prefilter.SEED and r.summary is None and r.error is None]


def analyse_boundary(results: Sequence[FileResult], connected: List[str], settings: Settings, codes: Sequence[str],
                     roots: Dict[str, str], consulted: Optional[Set[str]] = None, progress=None,
                     jobs: Optional[int] = None) -> Tuple[List[FileResult], List[Finding]]:
    """Summarise the seeds and ``connected``, the candidates the imports connect to seeds
    (``connected_candidates``), build the model, run the rules. Both are parsed in one pass
    (shared with ``jobs`` workers): the candidates are those a seed connects to if every seed
    parses, and any a seed that did not parse was the only link to go back to unsummarised,
    as if never parsed."""
    seeds = _seeds(results)
    results = summarise_all(results, seeds + connected, jobs, progress)
    seed_set = set(seeds)
    if connected and any(r.error is not None for r in results if r.path in seed_set):
        tentative = set(connected)
        probe = [dataclasses.replace(r, summary=None) if r.path in tentative else r for r in results]
        kept = set(connected_candidates(probe, roots))
        results = [dataclasses.replace(r, summary=None, error=None, parsed=False)
                   if r.path in tentative and r.path not in kept else r for r in results]
        connected = [path for path in connected if path in kept]
    if consulted is not None:
        consulted.update(seeds)
        consulted.update(connected)
    ahead = _ahead(results, roots, jobs)
    try:
        return results, check_results(results, codes, settings, roots, consulted, ahead)
    finally:
        if ahead is not None:
            ahead.close()


def _ahead(results: Sequence[FileResult], roots: Dict[str, str], jobs: Optional[int]):
    """A helper summarising ahead what the rules will likely summarise on demand, when a core
    would otherwise idle while they run (``dslint.prefetch``); None otherwise."""
    from . import parallel, prefetch

    if not parallel.FORK or cap_jobs(jobs, 2) < 2:
        return None
    likely = imported_unsummarised(results, roots)
    return prefetch.start(likely, [_size(path) for path in likely], cap_jobs(jobs, 2),
                          parallel.idle_cores(_STARTED[0]), summarise_path, _summary_tuple_types())


def check_files(results: Sequence[FileResult], settings: Settings, paths: Sequence[str], codes: Sequence[str],
                cache: Optional[Cache] = None) -> Tuple[List[FileResult], List[Finding]]:
    """Summarise what the rules need of ``results``, build the model, run the rules
    (``cache``: unused, summaries are not cached)."""
    return analyse(results, settings, codes, given_roots(paths, [r.path for r in results]), keep_summaries=True)


def run(paths: Sequence[str], settings: Settings, progress=None, cells: bool = True) -> RunResult:
    """Lint ``paths`` (see ``_run``) with the cyclic garbage collector paused: a run allocates
    millions of small acyclic objects (syntax trees, summaries, memo entries), and each
    full collection would walk all of them again (measured: more than half the run time)."""
    from . import parallel

    collecting = gc.isenabled()
    gc.disable()
    _STARTED[0] = parallel.cpu_times()  # how busy the machine is while this run starts decides its workers
    try:
        with paths_memo():  # the working directory is asked once per path, not once per question
            return _run(paths, settings, progress, cells)
    finally:
        if collecting:
            gc.enable()


def _run(paths: Sequence[str], settings: Settings, progress=None, cells: bool = True) -> RunResult:
    """Lint ``paths``; ``progress(done, total)`` is called as files are analysed.

    Notebook findings come back with ``cell`` set and rows (fix edits included) relative
    to that cell; ``cells=False`` keeps them in the rows of the joined text in
    ``result.sources[path]``, which is what a fixer edits (see ``dslint.notebook``).
    """
    from . import reuse

    discovery = Discovery(settings.root, settings.excludes, settings.respect_gitignore, settings.force_exclude,
                          settings_for=settings.for_folder)
    files = discovery.files(paths)
    result = RunResult(files=len(files), warnings=discovery.warnings)
    cache = Cache.open(settings.cache_folder, settings.root, settings_key(settings), cache_codec()) if settings.cache else None
    words = seed_words(settings)
    context = context_files(paths, files, settings)
    results = analyze_all(files + context, settings.jobs, cache, progress, words=words)
    codes = settings.codes_for(files)
    roots = given_roots(list(paths) + sorted({_import_root(p) for p in context}), files + context)
    errors = [r.error for r in results if r.error is not None]  # this run's per-file DSL001s
    key = reuse.run_key(codes, settings) if cache is not None and not _OVERLAY else None
    groups = boundaries.boundary_groups([r.path for r in results], roots)
    saved = reuse.recorded(cache, key, results, roots, groups) if key is not None else [None] * len(groups)
    per_group = [reused.findings if reused is not None else [] for reused in saved]
    read = [reused.consulted if reused is not None else [] for reused in saved]
    todo = [number for number, reused in enumerate(saved) if reused is None]
    if todo:
        results = list(results)
        analysed = analyse_groups(results, [groups[number] for number in todo], settings, codes, roots, progress)
        for number, group in zip(todo, analysed):
            for index, done in zip(group.indexes, group.results):
                results[index] = done
            per_group[number] = group.findings
            read[number] = group.consulted
        if key is not None:
            kept = reuse.record(results, roots, groups, read, per_group, cache)
            if kept is not None:
                cache.store_run(key, reuse.merged(cache.run(key), kept))
    found = [finding for findings in per_group for finding in findings]
    findings = errors + found
    if context:
        reported = set(files)
        findings = [f for f in findings if f.path in reported]
    result.parsed = sum(r.parsed for r in results)  # parsed by this run; cache hits say False
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


MAX_CONTEXT_FILES = 3000  # beyond, a file named alone is linted without its package around it


def _import_root(path: str) -> str:
    from .model.project import module_identity

    return module_identity(path)[0]


def _relative(path: str) -> str:
    """``path`` as the user would write it: relative to the working directory when inside it."""
    relative = os.path.relpath(path)
    return path if relative.startswith(os.pardir) else relative


def context_files(paths: Sequence[str], files: Sequence[str], settings: Settings) -> List[str]:
    """The rest of the package a file named on its own belongs to (``dslint train.py``, a
    pre-commit hook passing the staged files, an editor linting one buffer): hazards spread
    over modules, so the model reads them too; only the named files are reported. The
    package is the file's import root, walked with the same excludes; none when it is
    larger than ``MAX_CONTEXT_FILES``."""
    named = [p for p in paths if not os.path.isdir(p) and p.endswith((".py", ".pyi"))]
    if not named:
        return []
    given = {os.path.abspath(p) for p in files}
    folders = [os.path.abspath(p) for p in paths if os.path.isdir(p)]
    roots = sorted({_import_root(p) for p in named})
    out: List[str] = []
    for root in roots:
        if any(root == folder or root.startswith(folder.rstrip(os.sep) + os.sep) for folder in folders):
            continue  # already walked
        discovery = Discovery(settings.root, settings.excludes, settings.respect_gitignore, False,
                              settings_for=functools.partial(_context_settings, settings))
        found = [_relative(f) for f in discovery.files([root]) if f.endswith(".py") and os.path.abspath(f) not in given]
        if len(found) + len(out) > MAX_CONTEXT_FILES:
            return []
        out.extend(found)
        given.update(os.path.abspath(f) for f in found)
    return out


def _context_settings(settings: Settings, folder: str) -> Settings:
    """The settings of a folder walked only for context: a configuration there that does not
    validate (another project's, a test's) is not this run's, and the parent's settings apply;
    the named files' own configurations are still checked where they are linted."""
    from .config import ConfigError

    try:
        return settings.for_folder(folder)
    except ConfigError:
        return settings


def seed_words(settings: Settings) -> Tuple[bytes, ...]:
    """Class names of the project's configured trainer entry points and loaders: files that
    mention them are summarised up front like the library names of ``prefilter``."""
    names = list(getattr(settings, "trainer_entry_points", ()) or ())
    names += list(getattr(settings, "loader_classes", ()) or ()) + list(getattr(settings, "loader_factories", ()) or ())
    words = set()
    for name in names:
        if isinstance(name, str) and name:
            parts = name.split(".")
            words.add((parts[-2] if len(parts) >= 3 and name in settings.trainer_entry_points else parts[-1]).encode())
    return tuple(sorted(words))


def settings_key(settings: Settings) -> str:
    """What per-file results depend on besides the file itself: the summary schema and the seed words."""
    from .analysis.summary import SUMMARY_TYPES

    schema = [(t.__name__, getattr(t, "_fields", None) or [f.name for f in dataclasses.fields(t)]) for t in SUMMARY_TYPES]
    return repr(schema) + repr(seed_words(settings))


def filter_findings(findings, codes, settings: Settings, sources: Dict[str, SourceText]) -> List[Finding]:
    """The findings ``codes`` and each file's own settings select, less those ``# noqa`` silences."""
    wanted = set(codes)
    enabled: Dict[int, Set[str]] = {}
    exempt: Dict[str, Optional[Set[str]]] = {}
    kept: Dict[tuple, Finding] = {}
    for item in findings:
        if item.path.endswith(".pyi") and item.code != "DSL001":
            continue  # a stub never runs: no hazard lives in it
        local = settings.for_file(item.path)
        if id(local) not in enabled:
            enabled[id(local)] = set(local.enabled_codes())
        if item.code not in wanted or item.code not in enabled[id(local)]:
            continue
        if selects(local.ignored_for(item.path), item.code):
            continue
        source = sources.get(item.path)
        if source is not None and item.code != "DSL001":
            if item.path not in exempt:
                exempt[item.path] = noqa.file_exemption(source.text)
            if noqa.exempts(exempt[item.path], item.code) or noqa.suppressed(item.code, source.line(item.row)):
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
