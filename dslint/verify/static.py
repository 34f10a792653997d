"""The static side: lint the files the runtime loaders came from, and map each finding to
the loaders it concerns - its own loaders only.

A finding names its loader: its own span or a related location ("given to this loader",
"the loader is built here") lies on the loader's call. Failing that, a finding inside
a loader's own code (dataset class, collate or worker-init function) concerns that
loader. A finding that names a loader which did not run takes no other loader's
evidence: it is NOT TESTED, with the reason.

``dslint.api`` may not be importable (an older or partial install): the verifier then
reports what its probes confirm, under the probe's rule, at the loader's site.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from .model import LoaderOutcome, RunOutcome


def linter() -> Optional[Callable[..., List[Any]]]:
    try:
        from dslint.api import lint_paths
    except Exception:  # noqa: BLE001 - any import failure means "no static side"
        return None
    return lint_paths


def fixer() -> Optional[Callable[..., Any]]:
    try:
        from dslint.api import fix_paths
    except Exception:  # noqa: BLE001
        return None
    return fix_paths


def _norm(path: str) -> str:
    return os.path.realpath(path)


def _library_dirs() -> List[str]:
    dirs = {sys.prefix, sys.base_prefix, sysconfig.get_paths().get("purelib", ""),
            sysconfig.get_paths().get("stdlib", "")}
    import dslint

    dirs.add(os.path.dirname(os.path.abspath(dslint.__file__)))
    return [_norm(d) + os.sep for d in dirs if d]


def project_files(loaders: Iterable[LoaderOutcome], extra: Sequence[str] = ()) -> List[str]:
    """User files behind the loaders (not the standard library, site-packages, torch)."""
    libs = _library_dirs()
    out = []
    for path in [*extra, *(p for lo in loaders for p in lo.files())]:
        if path and os.path.isfile(path) and path.endswith((".py", ".ipynb")):
            real = _norm(path)
            if not real.startswith(tuple(libs)) and real not in out:
                out.append(real)
    return out


def lint(files: List[str]) -> Tuple[List[Any], Optional[str]]:
    """Findings in ``files`` (with their fixes; no cache written into the user's tree),
    and why there are none when the linter itself failed (the runtime evidence is still
    worth reporting)."""
    lint_paths = linter()
    if lint_paths is None or not files:
        return [], None
    try:
        return list(lint_paths(files, cache=False, with_fixes=True)), None
    except TypeError:  # an older dslint.api without these options
        try:
            return list(lint_paths(files)), None
        except Exception as exc:  # noqa: BLE001
            return [], f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # noqa: BLE001 - a linter bug must not hide the probes' results
        return [], f"{type(exc).__name__}: {exc}"


Place = Tuple[str, int, int]  # real path, first row, last row


def places(finding: Any) -> List[Place]:
    """The finding's own span and its related locations."""
    end = getattr(getattr(finding, "end_location", None), "row", finding.row)
    out = [(_norm(finding.path), finding.row, max(end, finding.row))]
    for rel in getattr(finding, "related", ()) or ():
        out.append((_norm(rel.path), rel.location.row, max(rel.end_location.row, rel.location.row)))
    return out


def _on_call(site: Dict[str, Any], place: Place) -> bool:
    path, first, last = place
    if _norm(site.get("path", "")) != path:
        return False
    start = site.get("line", 0)
    end = site.get("end_line", start) or start
    return first <= end and start <= last


def _in_code(lo: LoaderOutcome, place: Place) -> bool:
    path, row, _ = place
    for span in lo.code_spans():
        if _norm(span["file"]) == path and span.get("line") is not None \
                and span["line"] <= row <= span.get("end_line", span["line"]):
            return True
    return False


def loaders_for(finding: Any, loaders: Sequence[LoaderOutcome]) -> List[LoaderOutcome]:
    """The loaders ``finding`` concerns (see the module's docstring)."""
    spots = places(finding)
    direct = [lo for lo in loaders if any(_on_call(lo.site, p) for p in spots)]
    if direct:
        return direct
    inside = [lo for lo in loaders if _in_code(lo, spots[0])]
    if inside or len(spots) > 1:
        return inside  # a finding that names its loader takes no other loader's evidence
    return [lo for lo in loaders if spots[0][0] in {_norm(p) for p in lo.files()}]


def why_untested(finding: Any, runs: Sequence[RunOutcome]) -> str:
    """Why no loader of ``finding`` was probed: built and never iterated, never built,
    or nothing ran at all."""
    spots = places(finding)
    built = [c for run in runs for c in run.constructed]
    for entry in built:
        if any(_on_call(entry["site"], p) for p in spots):
            site = entry["site"]
            return (f"its loader ({_short(site.get('path', '?'))}:{site.get('line')}) was built but the "
                    "program ended before iterating it")
    named = [p for p in spots[1:] if p[0] == spots[0][0]] or spots[1:]
    if any(run.loaders or run.constructed for run in runs):
        where = f" ({_short(named[0][0])}:{named[0][1]})" if named else ""
        return (f"its loader{where} was never built under the verifier: the program stopped at an "
                "earlier loader or took another path")
    return "no loader ran under the verifier"


def _short(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("../..") else rel
