"""Which files to lint: walk the targets, skip what a developer never wants linted.

Skips virtual environments, VCS and cache folders, build output, what ``.gitignore``
files ignore, and the configured ``exclude``/``extend-exclude`` patterns. Files named on
the command line are always linted. Symlink loops and unreadable folders are survived, and
no symbolic link is followed out of the paths given (see ``Discovery``).
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from . import sourcefile
from .paths import absolute, known

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
        relative = _relative(path, self.base)
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
    """Whether ``path`` (its name, or its path relative to ``root``) matches one of the glob
    ``patterns``; a pattern with a slash also matches everything under it."""
    if not patterns:
        return False
    return _Excludes.of(tuple(patterns)).match(os.path.basename(path), _relative(path, root))


def _relative(path: str, root: str) -> str:
    """``os.path.relpath(path, root)`` with ``/`` separators; without its two ``abspath``
    calls for the usual case of an absolute path below an absolute root (every entry of a walk)."""
    if os.path.isabs(path) and os.path.isabs(root) and not root.endswith(os.sep) and \
            path.startswith(root + os.sep) and os.path.normpath(path) == path and os.path.normpath(root) == root:
        relative = path[len(root) + 1:]
    else:
        relative = os.path.relpath(path, root)
    return relative.replace(os.sep, "/")


class _Excludes:
    """A set of exclude patterns compiled once into two expressions, with ``fnmatch``'s
    meaning (``normcase`` applied to both sides): thousands of entries are tested per walk."""

    _made: Dict[Tuple[str, ...], "_Excludes"] = {}

    def __init__(self, patterns: Tuple[str, ...]):
        whole, under = [], []
        for pattern in patterns:
            pattern = pattern.rstrip("/")
            whole.append(fnmatch.translate(os.path.normcase(pattern)))
            if "/" in pattern:
                under.append(fnmatch.translate(os.path.normcase(pattern.lstrip("./") + "/*")))
        self.whole = re.compile("|".join(f"(?:{item})" for item in whole)) if whole else None
        self.under = re.compile("|".join(f"(?:{item})" for item in under)) if under else None

    @classmethod
    def of(cls, patterns: Tuple[str, ...]) -> "_Excludes":
        made = cls._made.get(patterns)
        if made is None:
            made = cls._made[patterns] = cls(patterns)
        return made

    def match(self, name: str, relative: str) -> bool:
        name, relative = os.path.normcase(name), os.path.normcase(relative)
        if self.whole is not None and (self.whole.match(name) or self.whole.match(relative)):
            return True
        return self.under is not None and self.under.match(relative) is not None


class Discovery:
    """The files to lint under the command-line targets, confined to them.

    Every target is resolved once; the walk follows a symbolic link (to a folder or a
    file) only when it resolves inside one of the targets, and says so in ``warnings``
    when it does not: a cloned repository's ``up -> ..`` or ``data -> /home`` link never
    makes dslint read, let alone fix, files outside what it was asked to lint. A file
    reached both directly and through a link is linted once, under its own name.
    ``settings_for(folder)`` gives the settings whose excludes apply in a folder (its
    nearest configuration file's).
    """

    def __init__(self, root: str, exclude: Sequence[str] = (), respect_gitignore: bool = True,
                 force_exclude: bool = False, settings_for: Optional[Callable[[str], object]] = None):
        self.root = os.path.abspath(root)
        self.exclude = tuple(exclude)
        self.respect_gitignore = respect_gitignore
        self.force_exclude = force_exclude
        self.settings_for = settings_for
        self.problems: List[Tuple[str, str]] = []  # (path, reason) for targets that are not there
        self.warnings: List[str] = []  # links not followed
        self.confines: Tuple[str, ...] = ()

    def _rules_at(self, folder: str) -> Tuple[str, Tuple[str, ...]]:
        """(root, exclude patterns) that apply to the entries of ``folder``."""
        if self.settings_for is None:
            return self.root, self.exclude
        settings = self.settings_for(folder)
        return settings.root, tuple(settings.excludes)

    def excluded(self, path: str) -> bool:
        root, patterns = self._rules_at(os.path.dirname(absolute(path)))
        return _matches_any(path, root, patterns)

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

    def inside(self, path: str) -> bool:
        """Whether ``path`` resolves to a place inside one of the targets."""
        try:
            real = os.path.realpath(path)
        except (OSError, ValueError):
            return False
        return any(real == top or real.startswith(top.rstrip(os.sep) + os.sep) for top in self.confines)

    def _refuse_link(self, path: str) -> None:
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        self.warnings.append(f"{path}: not following the symbolic link to {target}: it leads out of the linted paths")

    def files(self, targets: Iterable[str]) -> List[str]:
        targets = list(targets)
        self.confines = tuple(os.path.realpath(t) for t in targets if os.path.lexists(t))
        found: List[Tuple[str, bool]] = []  # (path, reached through a link)
        for target in targets:
            if sourcefile.is_virtual(target):
                if not (self.force_exclude and self.excluded_with_parents(os.path.abspath(target))):
                    found.append((target, False))
                continue
            if not os.path.lexists(target):
                self.problems.append((target, "no such file or directory"))
                continue
            if os.path.isdir(target):
                found.extend(self._walk(target))
            else:
                if self.force_exclude and self.excluded_with_parents(os.path.abspath(target)):
                    continue
                if not os.path.isfile(target):
                    reason = "broken symbolic link (dangling, or a loop)" if os.path.islink(target) else "not a regular file"
                    self.problems.append((target, reason))
                    continue
                found.append((target, os.path.islink(target)))
        return _once_each(found)

    def _walk(self, top: str) -> List[Tuple[str, bool]]:
        found: List[Tuple[str, bool]] = []
        ignores: List[GitIgnore] = self._parent_ignores(top)
        self._walk_dir(top, ignores, set(), os.path.islink(top.rstrip(os.sep) or top), found)
        return found

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

    def _walk_dir(self, folder: str, ignores: List[GitIgnore], visited, linked: bool,
                  found: List[Tuple[str, bool]]) -> None:
        """Append the files under ``folder`` to ``found``, in order (a list, not a generator:
        each item a recursive generator yields passes through every level above it)."""
        try:
            info = os.stat(folder)  # the folder itself, whichever links led here: one system call, no realpath
            # a file system without inode numbers (FAT, some network drives) reports 0: its real path instead
            real = (info.st_dev, info.st_ino) if info.st_ino else os.path.realpath(folder)
        except (OSError, ValueError):
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
        absolute_folder = absolute(folder)
        root, patterns = self._rules_at(absolute_folder)
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if not is_dir and not entry.name.endswith(SUFFIXES):
                continue  # most entries of a tree: nothing more to ask of them
            path = os.path.normpath(entry.path)
            full = os.path.join(absolute_folder, entry.name)  # abspath(path): a listed name is one plain part
            is_link = entry.is_symlink()
            if is_dir:
                if _matches_any(full, root, DEFAULT_EXCLUDES) or _matches_any(full, root, patterns):
                    continue
                if self._ignored(full, True, ignores):
                    continue
                if is_link and not self.inside(path):
                    self._refuse_link(path)
                    continue
                self._walk_dir(path, ignores, visited, linked or is_link, found)
            else:
                if _matches_any(full, root, patterns) or self._ignored(full, False, ignores):
                    continue
                if is_link and not os.path.exists(path):
                    self.problems.append((path, "broken symbolic link (dangling, or a loop)"))
                    continue
                if is_link and not self.inside(path):
                    self._refuse_link(path)
                    continue
                try:
                    regular = entry.is_file()
                except OSError:
                    regular = False
                if not regular:
                    self.problems.append((path, "not a regular file (a FIFO, socket or device)"))
                    continue
                known(path, full)
                found.append((path, linked or is_link))


def _once_each(found: Sequence[Tuple[str, bool]]) -> List[str]:
    """Each file once, in order of discovery; a file reached directly wins over a link to it."""
    chosen: Dict[str, Tuple[int, str, bool]] = {}
    any_link = any(linked for _, linked in found)  # else the paths are their own real paths
    for index, (path, linked) in enumerate(found):
        if sourcefile.is_virtual(path) or not any_link:
            key = absolute(path)
        else:
            try:
                key = os.path.realpath(path)
            except (OSError, ValueError):
                key = absolute(path)
        previous = chosen.get(key)
        if previous is None or (previous[2] and not linked):
            chosen[key] = (previous[0] if previous else index, path, linked)
    return [path for _, path, _ in sorted(chosen.values())]


def module_name(path: str) -> Tuple[str, bool]:
    """Dotted import name of a file from the packages around it, and whether it is one."""
    folder, filename = os.path.split(absolute(path))
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
