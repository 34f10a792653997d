"""A hostile repository cannot make dslint read or write outside it (through the real CLI).

The trees here are a linted ``proj/`` beside an ``outside/`` folder that must never change.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys

import pytest

from .conftest import run_cli

HAZARD = (
    "from torch.utils.data import DataLoader\n\n"
    "def main(ds):\n"
    "    return DataLoader(ds, persistent_workers=True)\n"
)
FIXED = HAZARD.replace(", persistent_workers=True", "")


def notebook(code: str) -> str:
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": code.splitlines(keepends=True)}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


def snapshot(folder):
    return {str(p): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file() and not p.is_symlink()}


@pytest.fixture
def trees(tmp_path):
    outside = tmp_path / "outside"
    (outside / "pkg").mkdir(parents=True)
    (outside / "train.py").write_text(HAZARD)
    (outside / "explore.ipynb").write_text(notebook(HAZARD))
    (outside / "pkg" / "loaders.py").write_text(HAZARD)
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "own.py").write_text(HAZARD)
    os.symlink("../outside/train.py", proj / "link.py")
    os.symlink("../outside/explore.ipynb", proj / "link.ipynb")
    os.symlink("../outside/pkg", proj / "linked_pkg")
    os.symlink("..", proj / "up")
    os.symlink("own.py", proj / "alias.py")  # a link inside the tree: the file is linted once
    return proj, outside


def test_fix_never_writes_or_walks_out_through_links(trees):
    proj, outside = trees
    before = snapshot(outside)
    result = run_cli("check", "--fix", "--no-cache", ".", cwd=proj)
    assert "Traceback" not in result.stderr
    assert result.returncode == 0, result.stdout + result.stderr
    assert snapshot(outside) == before
    assert (proj / "own.py").read_text() == FIXED
    assert os.path.islink(proj / "alias.py") and os.path.islink(proj / "link.py")
    for name in ("link.py", "link.ipynb", "linked_pkg", "up"):
        assert f"{name}: not following the symbolic link" in result.stderr, result.stderr


def test_repository_config_fix_true_does_not_reach_outside(trees):
    proj, outside = trees
    (proj / "pyproject.toml").write_text("[tool.dslint]\nfix = true\n")
    before = snapshot(outside)
    result = run_cli("check", "--no-cache", ".", cwd=proj)
    assert result.returncode == 0, result.stdout + result.stderr
    assert snapshot(outside) == before
    assert (proj / "own.py").read_text() == FIXED


def test_links_named_on_the_command_line_are_linted_but_never_written(trees):
    proj, outside = trees
    before = snapshot(outside)
    result = run_cli("check", "--fix", "--no-cache", "--output-format", "concise", "link.py", "link.ipynb",
                     cwd=proj)
    assert result.returncode == 1, result.stdout + result.stderr
    assert snapshot(outside) == before
    assert "link.py: not fixed: it is a symbolic link" in result.stderr
    assert "link.ipynb: not fixed: it is a symbolic link" in result.stderr
    assert {line.split(":")[0] for line in result.stdout.splitlines() if "DSL201" in line} == {"link.py", "link.ipynb"}


def test_walk_does_not_lint_the_parent_through_an_up_link(trees):
    proj, _ = trees
    result = run_cli("check", "--no-cache", "--output-format", "json", ".", cwd=proj)
    assert sorted(f["filename"] for f in json.loads(result.stdout)) == ["own.py"]
    assert "up: not following the symbolic link to .." in result.stderr


def test_read_only_file_is_left_with_a_warning_and_the_run_goes_on(tmp_path):
    (tmp_path / "locked.py").write_text(HAZARD)
    (tmp_path / "open.py").write_text(HAZARD)
    os.chmod(tmp_path / "locked.py", 0o444)
    result = run_cli("check", "--fix", "--no-cache", "--output-format", "concise", ".", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr  # something was left unfixed
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    assert (tmp_path / "locked.py").read_text() == HAZARD
    assert stat.S_IMODE(os.stat(tmp_path / "locked.py").st_mode) == 0o444
    assert (tmp_path / "open.py").read_text() == FIXED
    assert "locked.py: not fixed: the file is read-only" in result.stderr
    assert result.stdout.startswith("locked.py:4:27: DSL201")


def without_root_powers() -> list:
    """A command prefix that runs as root without the power to write what its mode forbids."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: a read-only folder is writable")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search,-fowner"]


def test_read_only_folder_is_a_per_file_warning(tmp_path):
    locked = tmp_path / "locked"
    writable = tmp_path / "writable"
    for folder in (locked, writable):
        folder.mkdir()
        (folder / "bad.py").write_text(HAZARD)
    (locked / "data.ipynb").write_text(notebook(HAZARD))
    os.chmod(locked, 0o555)
    try:
        env = dict(os.environ)
        env.pop("DSLINT_DEBUG", None)
        result = subprocess.run(
            [*without_root_powers(), sys.executable, "-m", "dslint", "check", "--fix", "--no-cache",
             "--output-format", "concise", "."],
            cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300,
        )
    finally:
        os.chmod(locked, 0o755)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    assert result.returncode == 1, result.stdout + result.stderr
    assert (writable / "bad.py").read_text() == FIXED
    assert (locked / "bad.py").read_text() == HAZARD
    assert "locked/bad.py: not fixed: cannot write" in result.stderr
    assert "locked/data.ipynb: not fixed: cannot write" in result.stderr
    assert sorted(line.split(":")[0] for line in result.stdout.splitlines() if "DSL201" in line) == [
        "locked/bad.py", "locked/data.ipynb"]


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another owner")
def test_fix_as_root_keeps_owner_group_and_mode(tmp_path):
    path = tmp_path / "owned.py"
    path.write_text(HAZARD)
    book = tmp_path / "owned.ipynb"
    book.write_text(notebook(HAZARD))
    for item in (path, book):
        os.chown(item, 1234, 2345)
        os.chmod(item, 0o640)
    result = run_cli("check", "--fix", "--no-cache", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert path.read_text() == FIXED
    assert "persistent_workers" not in book.read_text()
    for item in (path, book):
        info = os.stat(item)
        assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (1234, 2345, 0o640)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".dslint-")]  # no temporary left
