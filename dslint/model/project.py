"""The project: every linted module with its identity, and the lookups across them.

A module is identified by its import root and dotted name, found the way Python would
(the nearest folder above it without ``__init__.py`` is the root). An import from a module
is resolved in its own root first, then in the other roots of the same project boundary
(the nearest folder holding ``pyproject.toml``/``setup.py``/``setup.cfg``/``.git``, else
the folder given on the command line), never across boundaries: two projects linted in
one run never see each other's ``utils.py``.

Modules the pre-filter skipped are summarised on demand, when a lookup needs their
definitions. Only eagerly summarised modules contribute call sites and loops to the
indexes, so what a run finds does not depend on the order lookups happen in.
"""

from __future__ import annotations

import functools
import os
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from ..analysis.summary import CallSite, ClassSummary, FunctionSummary, Loop, ModuleSummary
from ..analysis.values import Attr, Call, Imported, Item, last_name
from ..paths import absolute
from .objects import SiteRef

MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
ITEM_CALLS = "[]"  # the name ``calls_named`` files ``table[key](...)`` calls under


@functools.lru_cache(maxsize=None)
def _package_parts(folder: str) -> Tuple[str, Tuple[str, ...]]:
    """(import root, package parts) of a folder: climb while ``__init__.py`` exists."""
    if not os.path.isfile(os.path.join(folder, "__init__.py")):
        return folder, ()
    parent = os.path.dirname(folder)
    if parent == folder:
        return folder, ()
    root, parts = _package_parts(parent)
    return root, parts + (os.path.basename(folder),)


def package_main(path: str) -> bool:
    """A package's ``__main__.py`` (``python -m package``): spawn and forkserver children leave
    a main module named ``*.__main__`` alone (``multiprocessing.spawn`` re-imports the main
    module only by its path or by another name), so its module-level code runs once, and
    what it defines cannot be found by a child unpickling it."""
    return os.path.basename(path) == "__main__.py"


def module_identity(path: str) -> Tuple[str, str, bool]:
    """(import root, dotted name, is a package) of a source file."""
    return _identity_of(absolute(path))


@functools.lru_cache(maxsize=None)
def _identity_of(absolute: str) -> Tuple[str, str, bool]:
    """``module_identity`` of an absolute path (asked several times per file and run; what it
    reads of the file system, ``__init__.py`` files, is cached by ``_package_parts`` already)."""
    folder, filename = os.path.split(absolute)
    stem = filename.rsplit(".", 1)[0]
    root, parts = _package_parts(folder)
    if stem == "__init__":
        if parts:
            return root, ".".join(parts), True
        return os.path.dirname(folder), os.path.basename(folder), True
    return root, ".".join(parts + (stem,)), False


@functools.lru_cache(maxsize=None)
def _marked_ancestor(folder: str) -> Optional[str]:
    if any(os.path.exists(os.path.join(folder, marker)) for marker in MARKERS):
        return folder
    parent = os.path.dirname(folder)
    return None if parent == folder else _marked_ancestor(parent)


def boundary_of(root: str, given: str) -> str:
    """The project boundary of an import root: a marked folder above it, else ``given``."""
    return _marked_ancestor(root) or given


def resolve_relative(module: str, is_package: bool, level: int, path: str) -> str:
    """``from ..x import y`` in ``module`` → the absolute dotted name."""
    parts = module.split(".") if module else []
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: max(len(parts) - (level - 1), 0)]
    if path:
        parts.append(path)
    return ".".join(parts)


@dataclass
class ModuleInfo:
    key: str  # unique in the run
    name: str  # dotted import name
    root: str
    boundary: str
    is_package: bool
    path: str
    eager: bool  # summarised up front (else on demand)
    summary: Optional[ModuleSummary] = None
    loaded: bool = False


@dataclass
class Sources:
    """How the project reaches file contents it did not summarise up front."""

    summarise: Callable[[str], Optional[ModuleSummary]] = lambda path: None
    text: Callable[[str], Optional[str]] = lambda path: None


@dataclass
class Project:
    modules: Dict[str, ModuleInfo] = field(default_factory=dict)
    sources: Sources = field(default_factory=Sources)

    def __post_init__(self):
        self._by_name: Dict[Tuple[str, str], List[ModuleInfo]] = defaultdict(list)  # (boundary, name)
        self._by_suffix: Dict[Tuple[str, str], List[ModuleInfo]] = defaultdict(list)  # (boundary, dotted path suffix)
        self._calls_by_name: Optional[Dict[str, List[SiteRef]]] = None
        self._texts: Dict[str, Optional[List[str]]] = {}
        self._registering: Dict[str, List[Tuple[ModuleInfo, str]]] = {}

    # building ---------------------------------------------------------------------
    @classmethod
    def build(cls, files: Iterable[Tuple[str, Optional[ModuleSummary], str]], sources: Sources) -> "Project":
        """``files``: (path, summary or None when it was skipped, the command-line root it came from)."""
        project = cls(sources=sources)
        files = list(files)
        present = {absolute(path) for path, _, _ in files}
        for path, summary, given in files:
            if path.endswith(".pyi") and absolute(path)[:-1] in present:
                continue  # Python imports the module, not its stub
            project.add(path, summary, given)
        return project

    def add(self, path: str, summary: Optional[ModuleSummary], given: str) -> ModuleInfo:
        root, name, is_package = module_identity(path)
        boundary = boundary_of(root, absolute(given))
        key = absolute(path)
        info = ModuleInfo(key, name, root, boundary, is_package, path, summary is not None, summary,
                          summary is not None)
        self.modules[key] = info
        self._by_name[(boundary, name)].append(info)
        prefix = boundary.rstrip(os.sep) + os.sep
        relative = key[len(prefix):] if key.startswith(prefix) else os.path.relpath(key, boundary)
        parts = relative[: -len(os.path.splitext(relative)[1]) or None].split(os.sep)
        if parts and parts[-1] == "__init__":
            parts = parts[:-1]
        if parts and ".." not in parts:
            for cut in range(len(parts)):
                self._by_suffix[(boundary, ".".join(parts[cut:]))].append(info)
        return info

    # modules -----------------------------------------------------------------------
    def summary(self, key: str) -> Optional[ModuleSummary]:
        info = self.modules.get(key)
        if info is None:
            return None
        if not info.loaded:
            info.loaded = True
            info.summary = self.sources.summarise(info.path)
        return info.summary

    def eager_modules(self) -> List[ModuleInfo]:
        return [m for m in self.modules.values() if m.eager and m.summary is not None]

    def registering_skipped(self, boundary: str, registering) -> List[Tuple[ModuleInfo, str]]:
        """(module, source) of the modules the pre-filter skipped that a module summarised up
        front imports (a package's ``__init__.py`` importing ``.collate`` so that its decorators
        register), within ``boundary``, whose source matches ``registering`` (a registering
        decorator), in path order: a decorator registers only in a module something imports.
        Each source is read once; only those that register are kept."""
        found = self._registering.get(boundary)
        if found is None:
            seen: Dict[str, ModuleInfo] = {}
            for info in self.eager_modules():
                if info.boundary != boundary:
                    continue
                for imported in [*info.summary.imports, *info.summary.star_imports]:
                    if not isinstance(imported, Imported):
                        continue
                    module, _ = self.split_import(info, self.absolute(info, imported))
                    if module is not None and not module.eager:
                        seen[module.key] = module
            found = []
            for key in sorted(seen):
                text = self.sources.text(seen[key].path)
                if text is not None and registering.search(text):
                    found.append((seen[key], text))
            self._registering[boundary] = found
        return found

    def find_module(self, importer: ModuleInfo, name: str) -> Optional[ModuleInfo]:
        """The project module ``name`` means when imported from ``importer``: by its package
        name (its own import root first), else by the folders it sits in (namespace packages,
        ``sys.path`` additions), the closest to the importer winning."""
        candidates = self._by_name.get((importer.boundary, name))
        if candidates:
            for candidate in candidates:
                if candidate.root == importer.root:
                    return candidate
            if len(candidates) == 1:
                return candidates[0]
        candidates = self._by_suffix.get((importer.boundary, name))
        if not candidates:
            return None
        if len(candidates) == 1:
            return candidates[0]
        return max(candidates, key=lambda c: len(os.path.commonpath([c.key, importer.key])))

    def absolute(self, importer: ModuleInfo, imported: Imported) -> str:
        if imported.level:
            return resolve_relative(importer.name, importer.is_package, imported.level, imported.path)
        return imported.path

    def split_import(self, importer: ModuleInfo, dotted: str) -> Tuple[Optional[ModuleInfo], Tuple[str, ...]]:
        """The longest project module prefix of ``dotted`` and the member path after it."""
        parts = dotted.split(".") if dotted else []
        for cut in range(len(parts), 0, -1):
            found = self.find_module(importer, ".".join(parts[:cut]))
            if found is not None:
                return found, tuple(parts[cut:])
        return None, tuple(parts)

    # definitions ---------------------------------------------------------------------
    def function(self, module: str, qualname: str) -> Optional[FunctionSummary]:
        summary = self.summary(module)
        return summary.functions.get(qualname) if summary is not None else None

    def klass(self, module: str, qualname: str) -> Optional[ClassSummary]:
        summary = self.summary(module)
        return summary.classes.get(qualname) if summary is not None else None

    def call(self, site: SiteRef) -> CallSite:
        return self.modules[site.module].summary.calls[site.index]

    def loop(self, module: str, index: int) -> Loop:
        return self.modules[module].summary.loops[index]

    # indexes over the eagerly summarised modules ----------------------------------------
    def calls_named(self, name: str) -> List[SiteRef]:
        """Call sites whose callee's last name is ``name`` (``f(...)``, ``x.f(...)``; ``ITEM_CALLS``:
        ``table[key](...)``)."""
        if self._calls_by_name is None:
            table: Dict[str, List[SiteRef]] = defaultdict(list)
            new = tuple.__new__  # a SiteRef without its Python-level constructor (same object)
            for info in self.eager_modules():
                key = info.key
                for index, site in enumerate(info.summary.calls):
                    func = site.func
                    kind = type(func)
                    if kind is Attr:
                        callee = func.name
                        if callee == "__init__" and type(func.base) is Call:
                            table["super().__init__"].append(new(SiteRef, (key, index)))
                    elif kind is Item:
                        callee = ITEM_CALLS  # ``REGISTRY[name](...)``: what a table holds, called
                    else:
                        callee = last_name(func)
                    if callee:
                        table[callee].append(new(SiteRef, (key, index)))
            self._calls_by_name = dict(table)
        return self._calls_by_name.get(name, [])

    def all_calls(self) -> Iterable[Tuple[ModuleInfo, int, CallSite]]:
        for info in self.eager_modules():
            for index, site in enumerate(info.summary.calls):
                yield info, index, site

    def all_loops(self) -> Iterable[Tuple[ModuleInfo, int, Loop]]:
        for info in self.eager_modules():
            for index, loop in enumerate(info.summary.loops):
                yield info, index, loop

    # source text, for messages --------------------------------------------------------
    def text_of(self, module: str, span) -> str:
        info = self.modules.get(module)
        if info is None:
            return ""
        lines = self._texts.get(module)
        if module not in self._texts:
            text = self.sources.text(info.path)
            lines = self._texts[module] = text.split("\n") if text is not None else None
        if not lines or span.row > len(lines):
            return ""
        if span.row == span.end_row:
            return lines[span.row - 1][span.col - 1 : span.end_col - 1]
        parts = [lines[span.row - 1][span.col - 1 :]]
        parts.extend(lines[span.row : span.end_row - 1])
        parts.append(lines[span.end_row - 1][: span.end_col - 1])
        return "\n".join(parts)

    def display_path(self, module: str) -> str:
        info = self.modules.get(module)
        return info.path if info is not None else module


def sites_in_scope(project: Project, module: str, scope: str) -> Sequence[int]:
    """Indexes of the call sites of ``scope`` in ``module`` (memoised per summary)."""
    summary = project.summary(module)
    if summary is None:
        return ()
    table = getattr(summary, "_sites_by_scope", None)
    if table is None:
        table = defaultdict(list)
        for index, site in enumerate(summary.calls):
            table[site.scope].append(index)
        summary._sites_by_scope = table
    return table.get(scope, ())
