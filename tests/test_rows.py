"""Rows as Python counts them (\\r\\n, \\r, \\n only) in noqa, code frames and fixes; file
noqa only as a comment line of its own; line endings kept byte for byte."""

from __future__ import annotations

import pytest

from .conftest import lint_json, run_cli

HEADER = "from torch.utils.data import DataLoader\n"
CALL = "    return DataLoader(ds, persistent_workers=True)"


@pytest.mark.parametrize("separator", ["\f", "\u2028", "\x1c", "\x85"])
def test_noqa_after_a_string_holding_a_line_separator(tmp_path, separator):
    text = f'{HEADER}NOTE = "a{separator}b"\ndef main(ds):\n{CALL}  # noqa: DSL201\n'
    (tmp_path / "own_line.py").write_text(text, encoding="utf-8")
    # a noqa on the row above the finding must not silence it
    text = f'{HEADER}NOTE = "a{separator}b"\ndef main(ds):  # noqa\n{CALL}\n'
    (tmp_path / "row_above.py").write_text(text, encoding="utf-8")
    found = lint_json(".", cwd=tmp_path)
    assert [(f["filename"], f["code"], f["location"]["row"]) for f in found] == [("row_above.py", "DSL201", 4)]


def test_code_frame_shows_the_finding_row(tmp_path):
    (tmp_path / "a.py").write_text(f'{HEADER}NOTE = "x\fy\u2028z"\ndef main(ds):\n{CALL}\n', encoding="utf-8")
    result = run_cli("check", "--no-cache", "a.py", cwd=tmp_path)
    assert f"4 | {CALL}" in result.stdout, result.stdout


def test_file_noqa_inside_a_string_silences_nothing(tmp_path):
    (tmp_path / "in_string.py").write_text(f'{HEADER}HELP = """\n# flake8: noqa\n"""\ndef main(ds):\n{CALL}\n')
    (tmp_path / "inline.py").write_text(f'{HEADER}HELP = "# dslint: noqa"\ndef main(ds):\n{CALL}\n')
    (tmp_path / "comment.py").write_text(f"{HEADER}# ruff: noqa\ndef main(ds):\n{CALL}\n")
    (tmp_path / "codes.py").write_text(f"{HEADER}# ruff: noqa: DSL201\ndef main(ds):\n{CALL}\n")
    (tmp_path / "other_codes.py").write_text(f"{HEADER}# flake8: noqa: E501\ndef main(ds):\n{CALL}\n")
    found = lint_json(".", cwd=tmp_path)
    assert sorted(f["filename"] for f in found) == ["in_string.py", "inline.py", "other_codes.py"]


def test_cr_only_file_keeps_every_line_ending_on_fix(tmp_path):
    source = f"{HEADER}\rdef main(ds):\r{CALL}\r".replace("\n", "\r").encode()
    (tmp_path / "cr.py").write_bytes(source)
    result = run_cli("check", "--fix", "--no-cache", "cr.py", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "cr.py").read_bytes() == source.replace(b", persistent_workers=True", b"")


def test_cr_only_noqa_rows(tmp_path):
    (tmp_path / "cr.py").write_bytes(f"{HEADER}def main(ds):\r{CALL}  # noqa: DSL201\r".replace("\n", "\r").encode())
    assert lint_json("cr.py", cwd=tmp_path) == []
