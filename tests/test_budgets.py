"""Budgets, not crashes: one input too deep to read is one DSL001, and the run goes on."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from .conftest import lint_json

HAZARD = (
    "from torch.utils.data import DataLoader\n\n"
    "def main(ds):\n"
    "    return DataLoader(ds, persistent_workers=True)\n"
)
DEPTH = 100_000


@pytest.fixture
def deep_notebook_tree(tmp_path):
    nested = "[" * DEPTH + "]" * DEPTH
    (tmp_path / "deep.ipynb").write_text(
        '{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": ["import torch\\n"]}],'
        f' "metadata": {{"junk": {nested}}}, "nbformat": 4, "nbformat_minor": 5}}\n'
    )
    (tmp_path / "bad.py").write_text(HAZARD)
    return tmp_path


def test_deep_notebook_json_is_one_dsl001_in_the_cli(deep_notebook_tree):
    found = lint_json(".", cwd=deep_notebook_tree)
    got = sorted((f["filename"], f["code"]) for f in found)
    assert got == [("bad.py", "DSL201"), ("deep.ipynb", "DSL001")]
    (deep,) = [f for f in found if f["code"] == "DSL001"]
    assert "nested" in deep["message"]


def test_deep_notebook_json_does_not_crash_the_flake8_plugin(deep_notebook_tree):
    pytest.importorskip("flake8")
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "DSL", "."],
        cwd=deep_notebook_tree, capture_output=True, text=True, timeout=300, env=dict(os.environ),
    )
    assert "Traceback" not in result.stderr and "RecursionError" not in result.stderr, result.stderr
    assert result.returncode == 1
    assert result.stdout.startswith("./bad.py:4:27: DSL201"), result.stdout
