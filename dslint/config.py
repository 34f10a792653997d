"""Settings from ``[tool.dslint]`` (or ``dslint.toml``), overridden by the command line.

A configuration file is input from the linted tree like any other: every key is checked
for its type, and a wrong one is a ConfigError naming the file, the key and what was
expected (exit 2), never a crash or a silently different rule set.

As in ruff, each file is linted with the settings of its nearest configuration file
(``.dslint.toml``, ``dslint.toml``, or a ``pyproject.toml`` with a ``[tool.dslint]``
table), so sub-projects keep their own selection and excludes; the settings of the
project root (the configuration found from the first PATH) decide what is global to a
run: fixing, the cache, the number of processes, the analysis options.
"""

from __future__ import annotations

import difflib
import fnmatch
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from . import catalogue
from .paths import absolute

CONFIG_FILES = (".dslint.toml", "dslint.toml", "pyproject.toml")  # in order of precedence


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
    loader_classes: List[str] = field(default_factory=list)
    loader_factories: List[str] = field(default_factory=list)
    cache_dir: Optional[str] = None  # --cache-dir / DSLINT_CACHE_DIR; default: .dslint_cache at the root
    hierarchy: Optional["Hierarchy"] = field(default=None, repr=False, compare=False)

    @property
    def cache_folder(self) -> str:
        from .cache import CACHE_DIR

        return os.path.abspath(self.cache_dir or os.path.join(self.root, CACHE_DIR))

    @property
    def excludes(self) -> List[str]:
        return list(self.exclude) + list(self.extend_exclude)

    def enabled_codes(self) -> List[str]:
        known = sorted(catalogue.RULES)
        for selector in (self.select or []) + self.extend_select + self.ignore:
            check_selector(selector)
        if self.select is None:
            chosen = {c for c in known if catalogue.RULES[c].default}
        else:
            chosen = {c for c in known if selects(self.select, c)}
        chosen |= {c for c in known if selects(self.extend_select, c)}
        chosen -= {c for c in known if selects(self.ignore, c)}
        if not selects(self.ignore, "DSL001"):
            chosen.add("DSL001")  # unreadable files are always reported unless ignored outright
        return sorted(chosen)

    def ignored_for(self, path: str) -> List[str]:
        relative = os.path.relpath(absolute(path), self.root).replace(os.sep, "/")
        codes: List[str] = []
        for pattern, ignored in self.per_file_ignores.items():
            if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(os.path.basename(path), pattern):
                codes.extend(ignored)
        return codes

    # per-file settings ------------------------------------------------------------------------
    def for_file(self, path: str) -> "Settings":
        """The settings ``path`` is linted with: those of its nearest configuration file."""
        return self.hierarchy.for_folder(os.path.dirname(absolute(path))) if self.hierarchy else self

    def for_folder(self, folder: str) -> "Settings":
        return self.hierarchy.for_folder(absolute(folder)) if self.hierarchy else self

    def codes_for(self, paths: Iterable[str]) -> List[str]:
        """Every rule enabled for at least one of ``paths``."""
        if self.hierarchy is None:
            return self.enabled_codes()
        codes = set(self.enabled_codes())
        for settings in {id(s): s for s in map(self.for_file, paths)}.values():
            codes.update(settings.enabled_codes())
        return sorted(codes)


# selectors ------------------------------------------------------------------------------------
def selects(selectors: Sequence[str], code: str) -> bool:
    """Whether one of ``selectors`` (a code, a prefix of codes, or ``ALL``) names ``code``."""
    for selector in selectors:
        upper = selector.upper()
        if upper == "ALL" or code.startswith(upper):
            return True
    return False


def known_selectors() -> List[str]:
    """Every code and every prefix of one: what a selector may be."""
    out = {"ALL"}
    for code in catalogue.RULES:
        out.update(code[:end] for end in range(3, len(code) + 1))
    return sorted(out)


def check_selector(selector: str, where: str = "") -> None:
    """ConfigError for a selector that names no rule, with the nearest one as a hint."""
    upper = selector.upper()
    if upper == "ALL" or any(code.startswith(upper) for code in catalogue.RULES):
        return
    near = difflib.get_close_matches(upper, known_selectors(), n=1, cutoff=0.6)
    hint = f" (did you mean `{near[0]}`?)" if near else " (see `dslint rules`)"
    raise ConfigError(f"{where}unknown rule selector `{selector}`{hint}")


# validation -----------------------------------------------------------------------------------
def _type_name(value: Any) -> str:
    return {str: "a string", bool: "a boolean", int: "an integer", float: "a number", list: "a list",
            dict: "a table"}.get(type(value), type(value).__name__)


def _string_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+")


def _dotted_names(value: Any) -> bool:
    """A list of ``package.module.Name`` strings (a bare name could be anything)."""
    return _string_list(value) and all(DOTTED_NAME.fullmatch(item) for item in value)


def _ignore_table(value: Any) -> bool:
    return isinstance(value, dict) and all(_string_list(codes) for codes in value.values())


# key: (check, what it must be, whether its strings are rule selectors)
KEYS: Dict[str, tuple] = {
    "select": (_string_list, "a list of rule codes", True),
    "extend-select": (_string_list, "a list of rule codes", True),
    "ignore": (_string_list, "a list of rule codes", True),
    "per-file-ignores": (_ignore_table, 'a table of glob = list of rule codes (`"*.py" = ["DSL201"]`)', True),
    "exclude": (_string_list, "a list of glob patterns", False),
    "extend-exclude": (_string_list, "a list of glob patterns", False),
    "respect-gitignore": (lambda v: isinstance(v, bool), "true or false", False),
    "force-exclude": (lambda v: isinstance(v, bool), "true or false", False),
    "fix": (lambda v: isinstance(v, bool), "true or false", False),
    "unsafe-fixes": (lambda v: isinstance(v, bool), "true or false", False),
    "cache": (lambda v: isinstance(v, bool), "true or false", False),
    "jobs": (_positive_int, "a positive integer", False),
    "handle-constructors": (_string_list, "a list of dotted names", False),
    "trainer-entry-points": (_string_list, "a list of dotted names", False),
    "loader-classes": (_dotted_names, 'a list of dotted class names (`"mylib.data.FastLoader"`)', False),
    "loader-factories": (_dotted_names, 'a list of dotted function names (`"mylib.data.build_loader"`)', False),
}


def _found(value: Any) -> str:
    if isinstance(value, dict):
        for key, item in value.items():
            if not _string_list(item):
                return f"{_type_name(item)} for {key!r}"
    if isinstance(value, list):
        for item in value:
            if not isinstance(item, str):
                return f"a list holding {_type_name(item)} ({item!r})"
        for item in value:  # every item a string: the check wanted dotted names
            if not DOTTED_NAME.fullmatch(item):
                return f"a list holding {item!r}"
    return f"{_type_name(value)} ({value!r})" if not isinstance(value, (list, dict)) else _type_name(value)


def validate(path: str, table: Any, section: str) -> Dict[str, Any]:
    """The table's keys as Settings fields; ConfigError naming file, key and expected type."""
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: {section} must be a table")
    out: Dict[str, Any] = {}
    for key, value in table.items():
        if key not in KEYS:
            near = difflib.get_close_matches(key, list(KEYS), n=1)
            hint = f" (did you mean `{near[0]}`?)" if near else ""
            raise ConfigError(f"{path}: unknown option `{key}` in {section}{hint}")
        check, expected, selectors = KEYS[key]
        if not check(value):
            raise ConfigError(f"{path}: {section} `{key}` must be {expected}, found {_found(value)}")
        if selectors:
            for selector in (value if isinstance(value, list) else [c for codes in value.values() for c in codes]):
                check_selector(selector, f"{path}: {section} `{key}`: ")
        out[key.replace("-", "_")] = value
    return out


# finding and reading configuration files ------------------------------------------------------
def _read_toml(path: str) -> Dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError as exc:
        raise ConfigError(f"{path}: no such file") from exc
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError) as exc:
        raise ConfigError(f"{path}: cannot read TOML: {exc}") from exc


def _table(path: str, data: Dict[str, Any]) -> Optional[Any]:
    """The dslint settings of a parsed file: ``[tool.dslint]`` in a pyproject.toml, the
    whole file otherwise; None for a pyproject.toml without one."""
    if os.path.basename(path) == "pyproject.toml":
        tool = data.get("tool", {})
        return tool.get("dslint") if isinstance(tool, dict) else None
    return data


def config_in(folder: str) -> Optional[str]:
    """The configuration file of ``folder`` itself, if it has one."""
    for name in CONFIG_FILES:
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate) and _table(candidate, _read_toml(candidate)) is not None:
            return candidate
    return None


def find_config(start: str) -> Optional[str]:
    """The nearest configuration file, from ``start`` upwards."""
    current = os.path.abspath(start)
    if not os.path.isdir(current):
        current = os.path.dirname(current)
    while True:
        found = config_in(current)
        if found is not None:
            return found
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def default_root(start: str) -> str:
    """The project root without a configuration file: the working directory when ``start``
    lies in it (as ruff does), else the folder of ``start``."""
    cwd = os.getcwd()
    absolute = os.path.abspath(start)
    if absolute == cwd or absolute.startswith(cwd.rstrip(os.sep) + os.sep):
        return cwd
    return absolute if os.path.isdir(absolute) else os.path.dirname(absolute)


def load_file(path: str) -> Settings:
    data = _read_toml(path)
    table = _table(path, data)
    section = "[tool.dslint]" if os.path.basename(path) == "pyproject.toml" else "the file"
    values = validate(path, {} if table is None else table, section)
    return Settings(root=os.path.dirname(os.path.abspath(path)), config_path=path, **values)


def load(start: str, explicit: Optional[str] = None, isolated: bool = False) -> Settings:
    """The settings of the project ``start`` lies in (``isolated``: the defaults)."""
    if isolated:
        return Settings(root=default_root(start))
    path = explicit or find_config(start)
    if path is None:
        return Settings(root=default_root(start))
    return load_file(path)


def cap_jobs(jobs: Optional[int], tasks: int) -> int:
    """Worker processes to start: never more than the cores, nor than the tasks."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(jobs or cores, cores, tasks))


class Hierarchy:
    """The settings of every folder: its nearest configuration file's, with the command
    line's overrides on top; the project root's for folders without one."""

    def __init__(self, root: Settings, overrides: Callable[[Settings], None]):
        self.root = root
        self.overrides = overrides
        self.folders: Dict[str, Settings] = {}
        self.files: Dict[str, Settings] = {}
        if root.config_path:
            self.files[os.path.abspath(root.config_path)] = root

    def for_folder(self, folder: str) -> Settings:
        settings = self.folders.get(folder)
        if settings is None:
            found = config_in(folder)
            if found is not None:
                settings = self._settings_of(found)
            else:
                parent = os.path.dirname(folder)
                settings = self.root if parent == folder else self.for_folder(parent)
            self.folders[folder] = settings
        return settings

    def _settings_of(self, path: str) -> Settings:
        key = os.path.abspath(path)
        if key not in self.files:
            settings = load_file(path)
            self.overrides(settings)
            settings.enabled_codes()  # a bad selector is an error of that file's run
            self.files[key] = settings
        return self.files[key]

    def settings(self) -> List[Settings]:
        return list({id(s): s for s in [self.root, *self.files.values()]}.values())
