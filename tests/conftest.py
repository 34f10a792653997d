"""Shared helpers: run the real CLI, lint a snippet written to a real file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import List

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"
RULES = REPO / "rules"


def run_cli(*args: str, cwd=None, input: str = None) -> subprocess.CompletedProcess:
    """``python -m dslint ARGS`` in a subprocess, exactly as a user runs it."""
    env = dict(os.environ)
    env.pop("DSLINT_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "dslint", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        input=input,
        env=env,
        timeout=300,
    )


def lint_json(*args: str, cwd=None) -> List[dict]:
    result = run_cli("check", "--output-format", "json", "--no-cache", *args, cwd=cwd)
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)


@pytest.fixture
def lint_snippet(tmp_path):
    """Write ``code`` to ``tmp_path/name`` and return the codes of its findings (in-process)."""
    from dslint import config, engine

    def lint(code: str, name: str = "example.py", select=("DSL",)) -> List[tuple]:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(code), encoding="utf-8")
        settings = config.Settings(root=str(tmp_path), select=list(select))
        result = engine.run([str(path)], settings)
        return [(f.code, f.row) for f in result.findings]

    return lint
