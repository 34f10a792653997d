"""Python API for other parts of dslint (the verifier) and for users' scripts."""

from __future__ import annotations

from typing import List, Sequence

from . import config, engine
from .diagnostics import Finding


def lint_paths(paths: Sequence[str], select: Sequence[str] = ("DSL",)) -> List[Finding]:
    """Findings for ``paths`` (every rule selected by default, config otherwise honoured)."""
    settings = config.load(paths[0] if paths else ".")
    settings.select = list(select)
    return engine.run(list(paths), settings).findings
