"""Python API for other parts of dslint (the verifier) and for users' scripts."""

from __future__ import annotations

import difflib
import io
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from . import config, engine
from .diagnostics import Finding

_SOURCE_SUFFIXES = (".py", ".ipynb")
_SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", ".venv", "venv", "node_modules", ".dslint_cache"}


def _settings(paths: Sequence[str], select: Sequence[str], cache: bool) -> config.Settings:
    settings = config.load(paths[0] if paths else ".")
    settings.select = list(select)
    settings.cache = settings.cache and cache
    return settings


def lint_paths(paths: Sequence[str], select: Sequence[str] = ("DSL",), cache: bool = True,
               with_fixes: bool = False) -> List[Finding]:
    """Findings for ``paths`` (every rule selected by default, config otherwise honoured).

    ``cache=False`` leaves no ``.dslint_cache`` behind in the linted tree; ``with_fixes``
    gives each fixable finding its fix (``Finding.fix``), as ``--output-format json`` shows.
    """
    result = engine.run(list(paths), _settings(paths, select, cache))
    if with_fixes:
        from .fixes import apply

        result = apply.attach(result)
    return result.findings


@dataclass
class FixOutcome:
    """What ``fix_paths`` changed: per file its text before and after, the number of
    fixes applied, which rules they fixed, and the findings that remain."""

    fixed: int = 0
    changes: Dict[str, Tuple[str, str]] = field(default_factory=dict)  # path -> (before, after)
    codes: Dict[str, Counter] = field(default_factory=dict)  # path -> rules whose findings went away
    remaining: List[Finding] = field(default_factory=list)

    def diff(self, root: Optional[str] = None) -> str:
        """A unified diff of every change, with paths relative to ``root`` (``a/``, ``b/``)."""
        out = []
        for path in sorted(self.changes):
            old, new = self.changes[path]
            name = os.path.relpath(path, root) if root else path
            for line in difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                             fromfile=f"a/{name}", tofile=f"b/{name}"):
                out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
        return "".join(out)


def _sources(paths: Sequence[str]) -> List[str]:
    """The source files under ``paths`` (files as given, folders walked)."""
    out = []
    for path in paths:
        if os.path.isdir(path):
            for folder, dirs, files in os.walk(path):
                dirs[:] = [d for d in dirs if d not in _SKIP_DIRS]
                out.extend(os.path.join(folder, f) for f in files if f.endswith(_SOURCE_SUFFIXES))
        elif path.endswith(_SOURCE_SUFFIXES):
            out.append(path)
    return out


def _read_texts(paths: Sequence[str]) -> Dict[str, str]:
    texts = {}
    for path in paths:
        try:
            with open(path, "rb") as handle:
                texts[os.path.abspath(path)] = handle.read().decode("utf-8", "replace")
        except OSError:
            continue
    return texts


def _codes_by_path(findings: Sequence[Finding]) -> Dict[str, Counter]:
    out: Dict[str, Counter] = {}
    for item in findings:
        out.setdefault(os.path.abspath(item.path), Counter())[item.code] += 1
    return out


def fix_paths(paths: Sequence[str], unsafe: bool = False, select: Sequence[str] = ("DSL",),
              cache: bool = False) -> FixOutcome:
    """Apply dslint's fixes to ``paths`` in place (safe ones, and with ``unsafe`` the
    unsafe ones too), exactly as ``dslint check --fix [--unsafe-fixes]`` does: the same
    planners, atomic writes, re-lint until nothing more changes."""
    from .fixes import apply

    settings = _settings(paths, select, cache)
    settings.fix = True
    settings.unsafe_fixes = unsafe
    files = _sources(paths)
    before_texts = _read_texts(files)
    before_codes = _codes_by_path(engine.run(list(paths), settings).findings)
    result, fixed = apply.run(list(paths), settings, out=io.StringIO())
    after_texts = _read_texts(files)
    outcome = FixOutcome(fixed=fixed, remaining=list(result.findings))
    after_codes = _codes_by_path(result.findings)
    for path, old in before_texts.items():
        new = after_texts.get(path, old)
        if new != old:
            outcome.changes[path] = (old, new)
            gone = before_codes.get(path, Counter()) - after_codes.get(path, Counter())
            outcome.codes[path] = gone
    return outcome
