"""The static side: lint the files the runtime loaders came from, map each finding to
the loaders it concerns.

``dslint.api`` may not be importable (an older or partial install): the verifier then
reports what its probes confirm, under the probe's rule, at the loader's site.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from typing import Any, Callable, Iterable, List, Optional, Sequence, Tuple

from .model import LoaderOutcome


def linter() -> Optional[Callable[[List[str]], List[Any]]]:
    try:
        from dslint.api import lint_paths
    except Exception:  # noqa: BLE001 - any import failure means "no static side"
        return None
    return lint_paths


def fixer() -> Optional[Callable[..., int]]:
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
    """Findings in ``files``, and why there are none when the linter itself failed (the
    runtime evidence is still worth reporting)."""
    lint_paths = linter()
    if lint_paths is None or not files:
        return [], None
    try:
        return list(lint_paths(files)), None
    except Exception as exc:  # noqa: BLE001 - a linter bug must not hide the probes' results
        return [], f"{type(exc).__name__}: {exc}"


def loaders_for(finding: Any, loaders: Sequence[LoaderOutcome]) -> List[LoaderOutcome]:
    """The loaders a finding concerns: the loader whose call spans the finding's line,
    else every loader whose call site, dataset class, collate or worker-init function
    lives in the finding's file (unless the line is inside another loader's call)."""
    path = _norm(finding.path)
    row = finding.row
    direct = [lo for lo in loaders
              if _norm(lo.site.get("path", "")) == path
              and lo.site.get("line", 0) <= row <= lo.site.get("end_line", lo.site.get("line", 0))]
    if direct:
        return direct
    return [lo for lo in loaders if path in {_norm(p) for p in lo.files()}]
