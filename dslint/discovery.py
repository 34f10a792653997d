"""Which files to lint: walk the targets, skip what a developer never wants linted.

Skips virtual environments, VCS and cache folders, build output, what ``.gitignore``
files ignore, and the configured ``exclude``/``extend-exclude`` patterns. Files named on
the command line are always linted. Symlink loops and unreadable folders are survived.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, List, Optional, Sequence, Tuple

DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", ".bzr", ".venv", "venv", ".env", "env", "__pycache__",
    ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".dslint_cache",
    "build", "dist", "site-packages", "node_modules", ".eggs", "*.egg-info",
    ".ipynb_checkpoints", "__pypackages__", "_build", "buck-out",
)
SUFFIXES = (".py", ".pyi", ".ipynb")


@dataclass
class GitIgnore:
    """The patterns of one ``.gitignore``, relative to its folder."""

    base: str
    rules: List[Tuple[re.Pattern, bool, bool]] = field(default_factory=list)  # (regex, negate, dir_only)

    @classmethod
    def load(cls, folder: str) -> Optional["GitIgnore"]:
        path = os.path.join(folder, ".gitignore")
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                lines = handle.read().splitlines()
        except OSError:
            return None
        ignore = cls(folder)
        for line in lines:
            line = line.rstrip()
            if not line or line.startswith("#"):
                continue
            negate = line.startswith("!")
            if negate:
                line = line[1:]
            dir_only = line.endswith("/")
            line = line.strip("/") if dir_only else line
            anchored = "/" in line.lstrip("/") or line.startswith("/")
            line = line.lstrip("/")
            regex = _glob_to_regex(line, anchored)
            ignore.rules.append((regex, negate, dir_only))
        return ignore

    def match(self, path: str, is_dir: bool) -> Optional[bool]:
        relative = os.path.relpath(path, self.base).replace(os.sep, "/")
        verdict = None
        for regex, negate, dir_only in self.rules:
            if dir_only and not is_dir:
                continue
            if regex.fullmatch(relative):
                verdict = not negate
        return verdict


def _glob_to_regex(pattern: str, anchored: bool) -> re.Pattern:
    out = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", i)
            if end == -1:
                out.append(re.escape(char))
            else:
                out.append(pattern[i : end + 1])
                i = end + 1
                continue
        else:
            out.append(re.escape(char))
        i += 1
    body = "".join(out)
    return re.compile(body if anchored else f"(?:.*/)?{body}")


def _matches_any(path: str, root: str, patterns: Sequence[str]) -> bool:
    name = os.path.basename(path)
    relative = os.path.relpath(path, root).replace(os.sep, "/")
    for pattern in patterns:
        pattern = pattern.rstrip("/")
        if fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(relative, pattern):
            return True
        if "/" in pattern and fnmatch.fnmatch(relative, pattern.lstrip("./") + "/*"):
            return True
    return False


class Discovery:
    def __init__(self, root: str, exclude: Sequence[str] = (), respect_gitignore: bool = True,
                 force_exclude: bool = False):
        self.root = os.path.abspath(root)
        self.exclude = tuple(exclude)
        self.respect_gitignore = respect_gitignore
        self.force_exclude = force_exclude
        self.problems: List[Tuple[str, str]] = []  # (path, reason) for targets that are not there

    def excluded(self, path: str) -> bool:
        return _matches_any(path, self.root, self.exclude)

    def excluded_with_parents(self, path: str) -> bool:
        """For ``--force-exclude``: the file, or a folder it lies in (below the root),
        matches an exclude pattern or a default exclude, as the walk would have skipped it."""
        if self.excluded(path):
            return True
        folder = os.path.dirname(path)
        while folder.startswith(self.root + os.sep):
            if self.excluded(folder) or _matches_any(folder, self.root, DEFAULT_EXCLUDES):
                return True
            folder = os.path.dirname(folder)
        return False

    def files(self, targets: Iterable[str]) -> List[str]:
        found: List[str] = []
        seen = set()
        for target in targets:
            if not os.path.lexists(target):
                self.problems.append((target, "no such file or directory"))
                continue
            if os.path.isdir(target):
                for path in self._walk(target):
                    key = os.path.abspath(path)
                    if key not in seen:
                        seen.add(key)
                        found.append(path)
            else:
                if self.force_exclude and self.excluded_with_parents(os.path.abspath(target)):
                    continue
                if not os.path.isfile(target):
                    reason = "broken symbolic link (dangling, or a loop)" if os.path.islink(target) else "not a regular file"
                    self.problems.append((target, reason))
                    continue
                key = os.path.abspath(target)
                if key not in seen:
                    seen.add(key)
                    found.append(target)
        return found

    def _walk(self, top: str) -> Iterator[str]:
        visited = set()
        ignores: List[GitIgnore] = self._parent_ignores(top)
        yield from self._walk_dir(top, ignores, visited)

    def _parent_ignores(self, top: str) -> List[GitIgnore]:
        if not self.respect_gitignore:
            return []
        chain = []
        current = os.path.abspath(top)
        while True:
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
            ignore = GitIgnore.load(current)
            if ignore is not None:
                chain.append(ignore)
            if os.path.isdir(os.path.join(current, ".git")):
                break
        return list(reversed(chain))

    def _ignored(self, path: str, is_dir: bool, ignores: List[GitIgnore]) -> bool:
        verdict = False
        for ignore in ignores:
            result = ignore.match(os.path.abspath(path), is_dir)
            if result is not None:
                verdict = result
        return verdict

    def _walk_dir(self, folder: str, ignores: List[GitIgnore], visited) -> Iterator[str]:
        try:
            real = os.path.realpath(folder)
        except OSError:
            return
        if real in visited:
            return
        visited.add(real)
        if self.respect_gitignore:
            local = GitIgnore.load(folder)
            if local is not None:
                local.base = os.path.abspath(folder)
                ignores = ignores + [local]
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            self.problems.append((folder, f"cannot list folder: {exc.strerror or exc}"))
            return
        for entry in entries:
            path = os.path.normpath(entry.path)
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                if _matches_any(path, self.root, DEFAULT_EXCLUDES) or self.excluded(path):
                    continue
                if self._ignored(path, True, ignores):
                    continue
                yield from self._walk_dir(path, ignores, visited)
            elif entry.name.endswith(SUFFIXES):
                if self.excluded(path) or self._ignored(path, False, ignores):
                    continue
                if entry.is_symlink() and not os.path.exists(path):
                    self.problems.append((path, "broken symbolic link (dangling, or a loop)"))
                    continue
                try:
                    regular = entry.is_file()
                except OSError:
                    regular = False
                if not regular:
                    self.problems.append((path, "not a regular file (a FIFO, socket or device)"))
                    continue
                yield path


def module_name(path: str) -> Tuple[str, bool]:
    """Dotted import name of a file from the packages around it, and whether it is one."""
    absolute = os.path.abspath(path)
    folder, filename = os.path.split(absolute)
    stem = filename.rsplit(".", 1)[0]
    is_package = stem == "__init__"
    package = _package_of(folder)
    if is_package:
        return package or os.path.basename(folder), True
    return (f"{package}.{stem}" if package else stem), False


@functools.lru_cache(maxsize=None)
def _package_of(folder: str) -> str:
    """Dotted name of the package a folder is (empty when it has no ``__init__.py``)."""
    if not os.path.isfile(os.path.join(folder, "__init__.py")):
        return ""
    parent = os.path.dirname(folder)
    outer = _package_of(parent) if parent != folder else ""
    name = os.path.basename(folder)
    return f"{outer}.{name}" if outer else name
