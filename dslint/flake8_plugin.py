"""dslint as a flake8 plugin: ``flake8 --select DSL``.

The same engine and rules as ``dslint check`` answer, never a second implementation.
flake8 hands a plugin one file at a time, but several rules need facts from other files
(a Dataset class defined in one module and loaded in another, a utils module that
throttles cv2 for everything importing it). So the first file a flake8 process sees
makes the plugin analyse, once per process, exactly the files ``dslint check`` would lint
for the same command-line paths, and check them all together; each file's findings are
then looked up. A file outside those paths (or excluded by ``[tool.dslint]``, which
flake8 does not read) gets the project of its own import root (the folder above its top
package) instead, so its cross-file facts are never missing. A file whose text differs
from what is on disk (stdin, an editor buffer) is checked on that text against the
index of its project's other files.

flake8 does the filtering: ``--select``, ``--extend-ignore``, ``--per-file-ignores``
and ``# noqa`` work as for any plugin; rules that are off by default are registered
through ``extend_default_ignore``. Columns are 0-based, as flake8 wants.
"""

from __future__ import annotations

import os
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

from . import __version__, catalogue, engine
from .config import ConfigError, Settings, load
from .diagnostics import Finding, related_summary
from .digests import blake2b
from .discovery import Discovery
from .sourcefile import SourceText


def _digest(text: str) -> str:
    return blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _codes() -> List[str]:
    return sorted(catalogue.RULES)


class Project:
    """Every file of one flake8 invocation's paths, analysed and checked together once."""

    def __init__(self, paths: Sequence[str]):
        try:
            settings = load(paths[0] if paths else ".")
        except ConfigError:
            settings = Settings(root=os.path.abspath("."))
        discovery = Discovery(settings.root, settings.excludes, settings.respect_gitignore)
        self.results: List[engine.FileResult] = []
        self.digests: Dict[str, str] = {}
        self.files = set()
        named = discovery.files(paths or ["."])
        context = engine.context_files(paths or ["."], named, settings)
        for path in named + context:
            result, source = engine.analyze(path)
            self.results.append(result)
            if source is not None:
                self.digests[os.path.abspath(path)] = _digest(source.text)
        self.files = {os.path.abspath(path) for path in named}
        self.settings = settings
        self.paths = list(paths or ["."]) + sorted({engine._import_root(p) for p in context})
        self.findings: Dict[str, List[Finding]] = {}
        self.results, found = engine.check_files(self.results, settings, self.paths, _codes())
        for item in found:
            self.findings.setdefault(os.path.abspath(item.path), []).append(item)

    def __contains__(self, filename: str) -> bool:
        return os.path.abspath(filename) in self.files

    def findings_for(self, filename: str, text: str) -> List[Finding]:
        key = os.path.abspath(filename)
        if self.digests.get(key) == _digest(text):
            return self.findings.get(key, [])
        source = SourceText(filename, text.encode("utf-8", "surrogatepass"), text, "utf-8")
        fresh = engine.analyze_source(filename, source)
        if fresh.summary is None and fresh.tier == "seed":
            return []  # unparsable: flake8 says so
        results = [r for r in self.results if os.path.abspath(r.path) != key] + [fresh]
        _, found = engine.check_files(results, self.settings, self.paths, _codes())
        return [f for f in found if os.path.abspath(f.path) == key]


_PROJECTS: Dict[Tuple[str, Tuple[str, ...]], Project] = {}


def project(paths: Sequence[str]) -> Project:
    """The Project of ``paths``, built on first use in this process."""
    key = (os.getcwd(), tuple(paths))
    if key not in _PROJECTS:
        _PROJECTS[key] = Project(list(paths))
    return _PROJECTS[key]


def import_root(filename: str) -> str:
    """The folder a file's imports are resolved from: the one above its top package."""
    folder = os.path.dirname(os.path.abspath(filename))
    while os.path.isfile(os.path.join(folder, "__init__.py")) and os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
    return folder


def project_of(filename: str, paths: Sequence[str]) -> Project:
    """The project of flake8's paths if it holds the file (then the answer is exactly
    ``dslint check PATHS``'s); else, for a file dslint's own configuration excludes or
    that lies outside the paths, the project of the file's import root."""
    found = project(paths)
    if filename in found:
        return found
    own = project((import_root(filename),))
    return own if filename in own else found


class Plugin:
    name = "dslint"
    version = __version__
    paths: Optional[Tuple[str, ...]] = None  # flake8's positional paths, from parse_options

    def __init__(self, tree, filename: str, lines: Sequence[str]):
        # ``tree`` makes flake8 call the plugin once per file; dslint parses the text itself
        # (the same parse as ``dslint check``), so the answers are the same.
        self.filename = filename
        self.lines = lines

    @classmethod
    def add_options(cls, manager) -> None:
        off = sorted(code for code, rule in catalogue.RULES.items() if not rule.default)
        if off:
            manager.extend_default_ignore(off)

    @classmethod
    def parse_options(cls, *args) -> None:
        # flake8 calls parse_options(option_manager, options, filenames), or (options)
        options = args[1] if len(args) >= 2 else args[0]
        cls.paths = tuple(getattr(options, "filenames", None) or ["."])

    def _paths(self) -> Tuple[str, ...]:
        if self.paths is not None:
            return self.paths
        return (os.path.dirname(self.filename) or ".",)

    def run(self) -> Iterator[Tuple[int, int, str, type]]:
        text = "".join(self.lines)
        seen = set()
        for item in project_of(self.filename, self._paths()).findings_for(self.filename, text):
            if item.code == "DSL001":
                continue  # flake8 reports files it cannot parse itself (E902/E999)
            key = (item.row, item.col, item.code)
            if key in seen:
                continue
            seen.add(key)
            message = f"{item.code} {item.message}"
            if item.related:
                message += f" (see {related_summary(item.related)})"
            yield item.row, max(0, item.col - 1), message, type(self)
