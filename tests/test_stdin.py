"""``dslint -`` and ``--stdin-filename``, as editors and pre-commit wrappers call them."""

from __future__ import annotations

import json

from .conftest import run_cli

HAZARD = (
    "from torch.utils.data import DataLoader\n\n"
    "def main(ds):\n"
    "    return DataLoader(ds, persistent_workers=True)\n"
)
FIXED = HAZARD.replace(", persistent_workers=True", "")


def test_dash_reads_stdin(tmp_path):
    result = run_cli("-", "--output-format", "concise", cwd=tmp_path, input=HAZARD)
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("-:4:27: DSL201")
    assert list(tmp_path.iterdir()) == []  # nothing written, no cache


def test_stdin_filename_names_the_file_and_picks_its_config(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "train.py").write_text("x = 1\n")  # what is on disk is not what is linted
    found = run_cli("check", "--stdin-filename", "pkg/train.py", "--output-format", "json", cwd=tmp_path,
                    input=HAZARD)
    assert [(f["filename"], f["code"]) for f in json.loads(found.stdout)] == [("pkg/train.py", "DSL201")]
    (tmp_path / "pyproject.toml").write_text('[tool.dslint]\nper-file-ignores = { "pkg/*" = ["DSL201"] }\n')
    quiet = run_cli("check", "-", "--stdin-filename", "pkg/train.py", cwd=tmp_path, input=HAZARD)
    assert quiet.returncode == 0, quiet.stdout + quiet.stderr


def test_fix_writes_the_fixed_source_to_stdout(tmp_path):
    (tmp_path / "train.py").write_text(HAZARD)
    result = run_cli("check", "--fix", "--stdin-filename", "train.py", cwd=tmp_path, input=HAZARD)
    assert result.returncode == 0, result.stderr
    assert result.stdout == FIXED
    assert (tmp_path / "train.py").read_text() == HAZARD  # the file on disk is not touched
    kept = run_cli("-", "--fix", cwd=tmp_path, input="x = 1\r\ny = 2\r\n")
    assert kept.returncode == 0 and kept.stdout == "x = 1\ny = 2\n"  # (text mode reads \r\n as \n)


def test_diff_from_stdin(tmp_path):
    result = run_cli("-", "--diff", "--stdin-filename", "a.py", cwd=tmp_path, input=HAZARD)
    assert result.returncode == 1
    assert "-    return DataLoader(ds, persistent_workers=True)" in result.stdout
    assert "+    return DataLoader(ds)" in result.stdout


def test_stdin_with_other_paths_is_a_usage_error(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    result = run_cli("check", "-", "a.py", cwd=tmp_path, input=HAZARD)
    assert result.returncode == 2 and "stdin" in result.stderr
