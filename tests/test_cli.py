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
    assert "1\tDSL301\t" in result.stdout
    (tmp_path / "two.py").write_text(
        "from torch.utils.data import DataLoader\n\n"
        "a = DataLoader(range(4), persistent_workers=True)\n"
        "b = DataLoader(range(4), persistent_workers=True)\n", encoding="utf-8")
    counted = run_cli("check", "--no-cache", "--statistics", "two.py", cwd=tmp_path)
    assert counted.stdout.startswith("2\tDSL201\t"), counted.stdout
    assert run_cli("--version").stdout.startswith("dslint ")


TRAIN_THROUGH_UTILS_AND_DATA = (
    "from torch.utils.data import DataLoader, Dataset\n\n"
    "from data import Stream\n"
    "from utils import load\n\n\n"
    "class Images(Dataset):\n"
    "    def __len__(self):\n"
    "        return 4\n\n"
    "    def __getitem__(self, index):\n"
    "        return load(f\"{index}.png\")\n\n\n"
    "if __name__ == \"__main__\":\n"
    "    for batch in DataLoader(Images(), num_workers=2):\n"
    "        pass\n"
    "    for batch in DataLoader(Stream(), num_workers=2):\n"
    "        pass\n"
)
STREAM = (
    "from torch.utils.data import IterableDataset, get_worker_info\n\n\n"
    "class Stream(IterableDataset):\n"
    "    def __iter__(self):\n"
    "        {body}\n"
)


def test_two_projects_with_the_same_module_names_are_linted_apart(tmp_path):
    """Two projects that both have ``utils.py`` and ``data.py``: one run over both reports
    exactly the union of the separate runs, in either order (modules are keyed by import
    root and dotted name; the last ``utils`` used to win, making or hiding a DSL103/DSL401)."""
    write(tmp_path, "careful/utils.py", "import cv2\n\ncv2.setNumThreads(0)\n\n\ndef load(path):\n    return cv2.imread(path)\n")
    write(tmp_path, "careful/data.py", STREAM.format(body="info = get_worker_info()\n        yield from range(info.id if info else 0, 8, info.num_workers if info else 1)"))
    write(tmp_path, "careless/utils.py", "import cv2\n\n\ndef load(path):\n    return cv2.imread(path)\n")
    write(tmp_path, "careless/data.py", STREAM.format(body="yield from range(8)"))
    for project in ("careful", "careless"):
        write(tmp_path, f"{project}/train.py", TRAIN_THROUGH_UTILS_AND_DATA)

    def found(*paths):
        result = run_cli("check", "--no-cache", "--output-format", "json", *paths, cwd=tmp_path)
        assert result.returncode in (0, 1), result.stderr
        return sorted((f["filename"], f["location"]["row"], f["code"]) for f in json.loads(result.stdout))

    careless = found("careless")
    assert {code for _, _, code in careless} == {"DSL103", "DSL401"}
    assert found("careful") == []
    assert found("careful", "careless") == careless
    assert found("careless", "careful") == careless
