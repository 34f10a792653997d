"""Which names other modules of a project import from a script.

DSL101 moves a script's statements under its main guard; a module that does
``from train import loader`` would then get ImportError. The fix asks here first. The
project is the script's import root, found as Python would: the nearest folder above the
script that is not a package (has no ``__init__.py``). Its Python files are read, never
run, never through a symlink, and only those that mention the script's name are parsed.
"""

from __future__ import annotations

import ast
import os
from functools import lru_cache
from typing import Dict, FrozenSet, Iterator, Optional, Tuple, Union

MAX_FILES = 5000  # a bigger tree is not a project the fix can vouch for
MAX_BYTES = 2_000_000  # per file
SKIPPED_FOLDERS = frozenset({"__pycache__", "node_modules", "site-packages", "venv", "env", "build", "dist"})


class _Everything:
    """Some module imports the script itself (``import train``): any name may be used."""

    def __repr__(self) -> str:
        return "EVERYTHING"


EVERYTHING = _Everything()
Imported = Union[FrozenSet[str], _Everything]


def import_root(path: str) -> Tuple[str, str]:
    """(the folder Python would import ``path`` from, the module's dotted name)."""
    folder = os.path.dirname(os.path.abspath(path))
    parts = [os.path.splitext(os.path.basename(path))[0]]
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        parts.insert(0, os.path.basename(folder))
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return folder, ".".join(parts)


def _python_files(root: str) -> Iterator[str]:
    count = 0
    for folder, subfolders, files in os.walk(root, followlinks=False):
        subfolders[:] = sorted(d for d in subfolders if not d.startswith(".") and d not in SKIPPED_FOLDERS)
        for name in sorted(files):
            path = os.path.join(folder, name)
            if not name.endswith(".py") or os.path.islink(path):
                continue
            count += 1
            if count > MAX_FILES:
                raise OverflowError(root)
            yield path


def _module_name(root: str, path: str) -> str:
    relative = os.path.splitext(os.path.relpath(path, root))[0].split(os.sep)
    if relative[-1] == "__init__":
        relative = relative[:-1]
    return ".".join(relative)


def _absolute(node: ast.ImportFrom, importer: str, is_package: bool) -> Optional[str]:
    """The absolute module a ``from ... import`` names, seen from module ``importer``."""
    if not node.level:
        return node.module
    package = importer.split(".") if is_package else importer.split(".")[:-1]
    if node.level - 1 > len(package):
        return None
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _record(found: Dict[str, object], module: str, names) -> None:
    current = found.get(module, frozenset())
    if names is EVERYTHING or current is EVERYTHING:
        found[module] = EVERYTHING
    else:
        found[module] = current | frozenset(names)


def _imports_of(tree: ast.Module, importer: str, is_package: bool, found: Dict[str, object]) -> None:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:  # ``import a.b.c`` binds a, and a.b is reachable through it
                parts = alias.name.split(".")
                for end in range(1, len(parts) + 1):
                    _record(found, ".".join(parts[:end]), EVERYTHING)
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(node, importer, is_package)
            if module is None:
                continue
            for alias in node.names:
                if alias.name == "*":
                    _record(found, module, EVERYTHING)
                else:
                    _record(found, module, {alias.name})
                    _record(found, f"{module}.{alias.name}", EVERYTHING)  # a submodule imported whole


@lru_cache(maxsize=64)
def _index(root: str, word: str) -> Optional[Dict[str, object]]:
    """{module: names imported from it} over the files of ``root`` that mention ``word``;
    None when the tree is too big to read."""
    found: Dict[str, object] = {}
    needle = word.encode()
    try:
        for path in _python_files(root):
            try:
                if os.path.getsize(path) > MAX_BYTES:
                    continue
                with open(path, "rb") as handle:
                    data = handle.read()
            except OSError:
                continue
            if needle not in data:
                continue
            try:
                tree = ast.parse(data)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue
            _imports_of(tree, _module_name(root, path), path.endswith("__init__.py"), found)
    except OverflowError:
        return None
    return found


def names_imported_from(path: str) -> Imported:
    """The names other modules import from the module at ``path`` (EVERYTHING: unknown or all)."""
    root, dotted = import_root(path)
    index = _index(root, dotted.rsplit(".", 1)[-1])
    if index is None:
        return EVERYTHING
    own = _module_name(root, os.path.abspath(path))
    found = index.get(dotted, frozenset())
    if own != dotted:  # pragma: no cover - the same module under two spellings
        found = EVERYTHING
    return found
