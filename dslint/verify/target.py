"""What to run: a script with its arguments, or ``package.module:factory``."""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from typing import List, Optional

_FACTORY = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


class TargetError(ValueError):
    """The TARGET argument names nothing runnable."""


@dataclass
class Target:
    kind: str  # "script" | "factory"
    spec: str  # script path (absolute) or module:factory
    args: List[str] = field(default_factory=list)
    cwd: str = field(default_factory=os.getcwd)

    def argv(self, python: Optional[str] = None) -> List[str]:
        python = python or sys.executable
        if self.kind == "script":
            return [python, self.spec, *self.args]
        return [python, "-m", "dslint.verify.child.factory", self.spec, *self.args]

    @property
    def display(self) -> str:
        return self.spec if self.kind == "factory" else os.path.relpath(self.spec, self.cwd)

    def files(self) -> List[str]:
        """Source files of the target itself (the factory's module is found at run time)."""
        return [self.spec] if self.kind == "script" else []

    def project_root(self) -> str:
        """The tree ``--fix`` copies: the script's folder, or the working directory for a
        factory (the directory it is importable from)."""
        return os.path.dirname(self.spec) if self.kind == "script" else self.cwd

    def relocated(self, old_root: str, new_root: str) -> "Target":
        """The same target inside a copy of its project."""

        def move(path: str) -> str:
            rel = os.path.relpath(os.path.realpath(path), os.path.realpath(old_root))
            return path if rel.startswith("..") else os.path.normpath(os.path.join(new_root, rel))

        spec = move(self.spec) if self.kind == "script" else self.spec
        return Target(self.kind, spec, list(self.args), move(self.cwd))


def parse(spec: str, args: List[str], cwd: Optional[str] = None) -> Target:
    cwd = cwd or os.getcwd()
    path = os.path.join(cwd, spec)
    if os.path.isfile(path):
        return Target("script", os.path.abspath(path), list(args), cwd)
    if _FACTORY.match(spec):
        return Target("factory", spec, list(args), cwd)
    if spec.endswith(".py"):
        raise TargetError(f"{spec}: no such file")
    raise TargetError(f"{spec}: neither a script nor package.module:factory")
