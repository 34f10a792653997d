"""Settings from ``[tool.dslint]`` in pyproject.toml, overridden by the command line."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from . import catalogue


class ConfigError(Exception):
    """A user error in configuration or selection (exit code 2)."""


@dataclass
class Settings:
    root: str = "."
    config_path: Optional[str] = None
    select: Optional[List[str]] = None
    extend_select: List[str] = field(default_factory=list)
    ignore: List[str] = field(default_factory=list)
    per_file_ignores: Dict[str, List[str]] = field(default_factory=dict)
    exclude: List[str] = field(default_factory=list)
    extend_exclude: List[str] = field(default_factory=list)
    respect_gitignore: bool = True
    force_exclude: bool = False
    fix: bool = False
    unsafe_fixes: bool = False
    cache: bool = True
    jobs: Optional[int] = None
    handle_constructors: List[str] = field(default_factory=list)
    trainer_entry_points: List[str] = field(default_factory=list)

    @property
    def excludes(self) -> List[str]:
        return list(self.exclude) + list(self.extend_exclude)

    def enabled_codes(self) -> List[str]:
        known = sorted(catalogue.RULES)
        for selector in (self.select or []) + self.extend_select + self.ignore:
            _check_selector(selector, known)
        if self.select is None:
            chosen = {c for c in known if catalogue.RULES[c].default}
        else:
            chosen = {c for c in known if any(c.startswith(s.upper()) for s in self.select)}
        chosen |= {c for c in known if any(c.startswith(s.upper()) for s in self.extend_select)}
        chosen -= {c for c in known if any(c.startswith(s.upper()) for s in self.ignore)}
        if not any("DSL001".startswith(s.upper()) for s in self.ignore):
            chosen.add("DSL001")  # unreadable files are always reported unless ignored outright
        return sorted(chosen)

    def ignored_for(self, path: str) -> List[str]:
        import fnmatch

        relative = os.path.relpath(os.path.abspath(path), self.root).replace(os.sep, "/")
        codes: List[str] = []
        for pattern, ignored in self.per_file_ignores.items():
            if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(os.path.basename(path), pattern):
                codes.extend(ignored)
        return codes


def _check_selector(selector: str, known: Sequence[str]) -> None:
    upper = selector.upper()
    if upper == "ALL" or any(code.startswith(upper) for code in known):
        return
    raise ConfigError(f"unknown rule selector `{selector}` (see `dslint rules`)")


KEYS = {
    "select": list, "extend-select": list, "ignore": list, "per-file-ignores": dict,
    "exclude": list, "extend-exclude": list, "respect-gitignore": bool,
    "force-exclude": bool, "fix": bool, "unsafe-fixes": bool, "cache": bool, "jobs": int,
    "handle-constructors": list, "trainer-entry-points": list,
}


def find_config(start: str) -> Optional[str]:
    """The nearest pyproject.toml with a ``[tool.dslint]`` table, from ``start`` upwards."""
    current = os.path.abspath(start)
    if not os.path.isdir(current):
        current = os.path.dirname(current)
    while True:
        candidate = os.path.join(current, "pyproject.toml")
        if os.path.isfile(candidate):
            try:
                with open(candidate, "rb") as handle:
                    data = tomllib.load(handle)
            except (OSError, tomllib.TOMLDecodeError) as exc:
                raise ConfigError(f"{candidate}: cannot read TOML: {exc}") from exc
            if "dslint" in data.get("tool", {}):
                return candidate
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def load(start: str, explicit: Optional[str] = None) -> Settings:
    path = explicit or find_config(start)
    if path is None:
        return Settings(root=os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or "."))
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError as exc:
        raise ConfigError(f"{path}: no such file") from exc
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read TOML: {exc}") from exc
    table = data.get("tool", {}).get("dslint", {})
    settings = Settings(root=os.path.dirname(os.path.abspath(path)), config_path=path)
    for key, value in table.items():
        if key not in KEYS:
            raise ConfigError(f"{path}: unknown option `{key}` in [tool.dslint]")
        if not isinstance(value, KEYS[key]):
            raise ConfigError(f"{path}: `{key}` must be a {KEYS[key].__name__}")
        setattr(settings, key.replace("-", "_"), value)
    return settings
