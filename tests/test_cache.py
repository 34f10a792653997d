"""The cache: a second run over an unchanged tree parses nothing; changes are seen."""

from __future__ import annotations

import os
import textwrap

from dslint import config, engine

DATASET = textwrap.dedent(
    """
    import cv2
    from torch.utils.data import Dataset
    import utils

    class Images(Dataset):
        def __getitem__(self, i):
            return cv2.imread(str(i))
    """
)


def make_tree(tmp_path, throttle: bool):
    (tmp_path / "utils.py").write_text("import cv2\n" + ("cv2.setNumThreads(0)\n" if throttle else "x = 1\n"))
    (tmp_path / "dataset.py").write_text(DATASET)


def lint(tmp_path, cache=True):
    settings = config.Settings(root=str(tmp_path), cache=cache, select=["DSL"], jobs=1)
    return engine.run([str(tmp_path)], settings)


def test_second_run_parses_nothing_and_cache_is_ignored_by_git(tmp_path):
    make_tree(tmp_path, throttle=True)
    first = lint(tmp_path)
    assert first.parsed == 2 and first.findings == []
    second = lint(tmp_path)
    assert second.parsed == 0 and second.findings == []
    ignore = tmp_path / ".dslint_cache" / ".gitignore"
    assert ignore.read_text().strip().endswith("*")


def test_change_in_imported_module_reaches_cross_file_finding(tmp_path):
    make_tree(tmp_path, throttle=True)
    assert lint(tmp_path).findings == []
    (tmp_path / "utils.py").write_text("import cv2\nx = 1\n")
    os.utime(tmp_path / "utils.py", ns=(1, 1))  # even with a stale-looking mtime
    result = lint(tmp_path)
    assert result.parsed == 1
    assert [(os.path.basename(f.path), f.code) for f in result.findings] == [("dataset.py", "DSL103")]


def test_no_cache_writes_nothing(tmp_path):
    make_tree(tmp_path, throttle=False)
    result = lint(tmp_path, cache=False)
    assert [f.code for f in result.findings] == ["DSL103"]
    assert not (tmp_path / ".dslint_cache").exists()
