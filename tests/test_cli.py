"""The command line as users run it: exit codes, output, config, noqa, bad input."""

from __future__ import annotations

import json

from .conftest import FIXTURES, run_cli

HAZARD = (
    "from torch.utils.data import DataLoader\n\n"
    "def main(ds):\n"
    "    return DataLoader(ds, persistent_workers=True)\n"
)


def write(tmp_path, name, text, mode="w"):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode == "wb":
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_default_verb_is_check_and_exit_codes(tmp_path):
    write(tmp_path, "bad.py", HAZARD)
    write(tmp_path, "ok.py", "x = 1\n")
    result = run_cli("bad.py", cwd=tmp_path)
    assert result.returncode == 1
    assert "bad.py:4:27: DSL201" in result.stdout
    assert "Found 1 problem" in result.stdout
    clean = run_cli("ok.py", cwd=tmp_path)
    assert clean.returncode == 0 and "All checks passed!" in clean.stdout
    assert run_cli("bad.py", "--exit-zero", cwd=tmp_path).returncode == 0


def test_json_output_has_ruff_shape(tmp_path):
    write(tmp_path, "bad.py", HAZARD)
    result = run_cli("check", "bad.py", "--output-format", "json", cwd=tmp_path)
    (item,) = json.loads(result.stdout)
    assert {"code", "message", "filename", "location", "end_location", "fix", "noqa_row", "url"} <= set(item)
    assert item["code"] == "DSL201"
    assert item["location"] == {"row": 4, "column": 27}
    assert item["end_location"]["row"] == 4


def test_select_ignore_and_unknown_selector(tmp_path):
    write(tmp_path, "bad.py", HAZARD)
    assert run_cli("check", "bad.py", "--ignore", "DSL2", cwd=tmp_path).returncode == 0
    assert run_cli("check", "bad.py", "--select", "DSL1", cwd=tmp_path).returncode == 0
    assert run_cli("check", "bad.py", "--select", "DSL201", cwd=tmp_path).returncode == 1
    wrong = run_cli("check", "bad.py", "--select", "XYZ9", cwd=tmp_path)
    assert wrong.returncode == 2
    assert "unknown rule selector" in wrong.stderr and "Traceback" not in wrong.stderr


def test_noqa(tmp_path):
    write(tmp_path, "a.py", HAZARD.replace("True)\n", "True)  # noqa: DSL201\n"))
    write(tmp_path, "b.py", HAZARD.replace("True)\n", "True)  # noqa\n"))
    write(tmp_path, "c.py", HAZARD.replace("True)\n", "True)  # noqa: DSL102\n"))
    assert run_cli("check", "a.py", "b.py", cwd=tmp_path).returncode == 0
    assert run_cli("check", "c.py", cwd=tmp_path).returncode == 1


def test_pyproject_config_is_found_upwards(tmp_path):
    write(tmp_path, "pyproject.toml", '[tool.dslint]\nignore = ["DSL201"]\nextend-exclude = ["skip"]\n')
    write(tmp_path, "src/bad.py", HAZARD)
    write(tmp_path, "skip/bad.py", HAZARD)
    assert run_cli("check", "src", cwd=tmp_path).returncode == 0
    write(tmp_path, "pyproject.toml", '[tool.dslint]\nper-file-ignores = {"src/*" = ["DSL201"]}\n')
    result = run_cli("check", ".", "--output-format", "concise", cwd=tmp_path)
    assert [line.split(":")[0] for line in result.stdout.splitlines() if "DSL" in line] == ["skip/bad.py"]
    write(tmp_path, "pyproject.toml", "[tool.dslint]\nselct = 1\n")
    bad = run_cli("check", "src", cwd=tmp_path)
    assert bad.returncode == 2 and "unknown option" in bad.stderr


def test_gitignore_and_default_excludes(tmp_path):
    write(tmp_path, ".gitignore", "generated/\n*.tmp.py\n")
    write(tmp_path, "generated/bad.py", HAZARD)
    write(tmp_path, "x.tmp.py", HAZARD)
    write(tmp_path, ".venv/lib/bad.py", HAZARD)
    write(tmp_path, "build/bad.py", HAZARD)
    write(tmp_path, "real.py", HAZARD)
    result = run_cli("check", ".", "--output-format", "concise", cwd=tmp_path)
    assert [line.split(":")[0] for line in result.stdout.splitlines() if "DSL" in line] == ["real.py"]


def test_unparsable_files_are_reported_and_others_linted(tmp_path):
    write(tmp_path, "syntax.py", "from torch.utils.data import DataLoader\ndef f(:\n    pass\n")
    write(tmp_path, "py2.py", 'import cv2\nprint "hello"\n')
    write(tmp_path, "binary.py", b"\x00\x01\x02", mode="wb")
    write(tmp_path, "latin.py", b"x = '\xe9'\n", mode="wb")
    write(tmp_path, "declared.py", b"# -*- coding: latin-1 -*-\nx = '\xe9'\n", mode="wb")
    write(tmp_path, "bad.py", HAZARD)
    result = run_cli("check", ".", "--output-format", "concise", cwd=tmp_path)
    assert result.returncode == 1
    assert "Traceback" not in result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("syntax.py:2:") and "DSL001" in line and "syntax error" in line for line in lines)
    assert any(line.startswith("py2.py:2:") and "DSL001" in line for line in lines)
    assert any(line.startswith("binary.py:1:") and "NUL" in line for line in lines)
    assert any(line.startswith("latin.py:1:") and "decode" in line for line in lines)
    assert not any(line.startswith("declared.py") for line in lines)
    assert any(line.startswith("bad.py:4:") and "DSL201" in line for line in lines)


def test_missing_path_is_reported(tmp_path):
    result = run_cli("check", "nope.py", cwd=tmp_path)
    assert result.returncode == 1 and "nope.py" in result.stdout and "DSL001" in result.stdout


def test_statistics_and_version(tmp_path):
    result = run_cli("check", str(FIXTURES / "hazard_repo"), "--statistics")
    assert result.returncode == 1
    assert "2\tDSL301\t" in result.stdout
    assert run_cli("--version").stdout.startswith("dslint ")
