"""A warm run reuses the findings of the last run over the same files, when nothing they
were computed from has changed, one project boundary at a time (each is analysed on its own:
``engine.analyse``).

A run records in the cache, for every boundary, what its findings depend on: the content
hash of every file, the files the analysis actually read (summarised up front, summarised on
demand, quoted in a message) with their hashes, where each file sits (its module name,
import root and project), and the tiers and imports that decide which files are summarised
up front. A later run from the same working directory with the same options reuses a
boundary's findings, whatever paths it was given (``dslint pkg/a.py`` then ``dslint
pkg/b.py``: both read the whole package, one boundary), when

- every file of it has the same content (a warm run reads the cache and nothing else), or
- the only files that changed were never read by the analysis, and still have the same
  tier, imports and readability (an edit to one of the many files that mention nothing
  dslint looks for cannot change what it finds).

Any other boundary is analysed again: an edit in one project of a monorepo re-analyses that
project only. The per-file DSL001 of an unreadable or unparsable file is not recorded: it
comes from this run's per-file pass, like the noqa filtering after.
"""

from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING, Dict, Iterable, List, NamedTuple, Optional, Sequence

from .diagnostics import Finding
from .digests import blake2b
from .paths import absolute
from .model.yamlconfig import fingerprint, is_yaml
from .plaindata import Invalid

if TYPE_CHECKING:
    from .cache import Cache
    from .config import Settings
    from .engine import FileResult

NOT_KEYED = frozenset({"jobs", "cache", "cache_dir", "hierarchy"})  # settings that cannot change a finding


def _digest(parts: Iterable[str]) -> str:
    hasher = blake2b(digest_size=16)
    for part in parts:
        hasher.update(part.encode("utf-8", "surrogatepass"))
        hasher.update(b"\0")
    return hasher.hexdigest()


def run_key(codes: Sequence[str], settings: "Settings") -> str:
    """The question a run answers, but for its paths: where it runs from, its rules and options.
    The paths are not part of it: a boundary's record is found by the files it holds, and
    holds all of that project's findings, so ``dslint pkg/a.py`` and then ``dslint
    pkg/b.py`` (a pre-commit hook passing the staged files; the package is read around
    them) reuse one record."""
    options = [(f.name, repr(getattr(settings, f.name))) for f in dataclasses.fields(settings)
               if f.name not in NOT_KEYED]
    return _digest([os.getcwd(), repr(list(codes)), repr(options)])


def _in_order(results: Sequence["FileResult"]) -> List["FileResult"]:
    """A boundary's files in one order whatever order the run found them in (files named on
    the command line come first): the rules' answers do not depend on it."""
    return sorted(results, key=lambda r: r.path)


def contents(results: Sequence["FileResult"]) -> str:
    """Every file of the run and its content."""
    return _digest(f"{r.path}\0{r.digest}" for r in _in_order(results))


def identities(results: Sequence["FileResult"], roots: Dict[str, str]) -> str:
    """Where every file sits: its module name, import root and project boundary (which
    depend on ``__init__.py`` and project markers that are not files of the run)."""
    from .model.project import boundary_of, module_identity

    parts = []
    for result in _in_order(results):
        root, name, is_package = module_identity(result.path)
        parts.append(f"{result.path}\0{root}\0{name}\0{is_package}\0{boundary_of(root, absolute(roots[result.path]))}")
    return _digest(parts)


def connections(results: Sequence["FileResult"]) -> str:
    """What decides the files summarised up front: tiers, imports (of the files
    ``engine.connected_candidates`` follows) and which files could be read."""
    return _digest(f"{r.path}\0{r.tier}\0{r.imports!r}\0{r.error is None}" for r in _in_order(results))


def members(results: Sequence["FileResult"]) -> str:
    """Which files a boundary holds: the key its record is kept under."""
    return _digest(r.path for r in _in_order(results))


def record(results: Sequence["FileResult"], roots: Dict[str, str], groups: Sequence[Sequence[int]],
           consulted: Sequence[Iterable[str]], findings: Sequence[List[Finding]], cache: "Cache") -> Optional[dict]:
    """What to keep of a run: one record per boundary (``groups``: indexes into ``results``,
    with what each one's analysis read and found); None when the findings cannot be stored
    as plain data."""
    kept = {}
    for group, read, found in zip(groups, consulted, findings):
        files = [results[i] for i in group]
        one = _record_one(files, roots, read, found, cache)
        if one is None:
            return None
        kept[members(files)] = one
    return {"groups": kept}


MAX_GROUPS = 64  # boundary records kept under one key (the newest): the folders linted in turn


def merged(previous: Optional[dict], kept: dict) -> dict:
    """``kept`` with the boundary records of ``previous`` it does not replace (``dslint src/``
    then ``dslint tests/`` keep both), the oldest dropped beyond ``MAX_GROUPS``."""
    old = previous.get("groups") if isinstance(previous, dict) else None
    groups = {name: one for name, one in old.items() if name not in kept["groups"]} if isinstance(old, dict) else {}
    groups.update(kept["groups"])
    while len(groups) > MAX_GROUPS:
        del groups[next(iter(groups))]
    return {"groups": groups}


def _record_one(results: Sequence["FileResult"], roots: Dict[str, str], consulted: Iterable[str],
                findings: List[Finding], cache: "Cache") -> Optional[dict]:
    digests = {r.path: r.digest for r in results}
    try:
        encoded = cache.codec.encode(list(findings))
    except (TypeError, ValueError, RecursionError):
        return None
    consulted = set(consulted)
    return {
        "contents": contents(results),
        "identities": identities(results, roots),
        "connections": connections(results),
        "consulted": {path: digests.get(path, "") for path in sorted(consulted) if not is_yaml(path)},
        "configs": {path: fingerprint(path) for path in sorted(consulted) if is_yaml(path)},
        "findings": encoded,
    }


class Reused(NamedTuple):
    """A boundary's recorded findings that still hold, and the files its analysis read."""

    findings: List[Finding]
    consulted: List[str]


def recorded(cache: "Cache", key: str, results: Sequence["FileResult"], roots: Dict[str, str],
             groups: Sequence[Sequence[int]]) -> List[Optional[Reused]]:
    """For every boundary (``groups``), what the last run under ``key`` recorded for it when
    it still holds (see the module), else None."""
    saved = cache.run(key)
    kept = saved.get("groups") if isinstance(saved, dict) else None
    if not isinstance(kept, dict):
        return [None] * len(groups)
    out = []
    for group in groups:
        files = [results[i] for i in group]
        out.append(_recorded_one(cache, kept.get(members(files)), files, roots))
    return out


def _recorded_one(cache: "Cache", saved, results: Sequence["FileResult"], roots: Dict[str, str]) -> Optional[Reused]:
    if not isinstance(saved, dict) or not isinstance(saved.get("consulted"), dict):
        return None
    configs = saved.get("configs", {})
    if not isinstance(configs, dict) or any(not isinstance(path, str) or fingerprint(path) != mark
                                            for path, mark in configs.items()):
        return None  # a configuration file it read changed (or appeared): its values may differ
    if saved.get("contents") != contents(results):
        digests = {r.path: r.digest for r in results}
        if any(digests.get(path) != digest or not digest for path, digest in saved["consulted"].items()):
            return None
        if saved.get("connections") != connections(results):
            return None
    if saved.get("identities") != identities(results, roots):
        return None
    try:
        findings = cache.codec.decode(saved.get("findings"))
    except (Invalid, RecursionError):
        return None
    if not isinstance(findings, list) or not all(isinstance(f, Finding) for f in findings):
        return None
    return Reused(findings, list(saved["consulted"]) + list(configs))
