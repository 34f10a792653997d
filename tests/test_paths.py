"""The per-run memo of absolute paths (``dslint.paths``): the same answers as
``os.path.abspath``, and none carried from one run into the next."""

import os

from dslint import paths
from dslint.discovery import Discovery


def test_absolute_matches_abspath_inside_and_outside_a_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for path in ("a.py", "pkg/../b.py", "./c/d.py", str(tmp_path / "e.py")):
        assert paths.absolute(path) == os.path.abspath(path)
        with paths.one_run():
            assert paths.absolute(path) == os.path.abspath(path)
            assert paths.absolute(path) == os.path.abspath(path)  # the memoised answer


def test_a_new_run_sees_the_new_working_directory(tmp_path, monkeypatch):
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    monkeypatch.chdir(first)
    with paths.one_run():
        assert paths.absolute("m.py") == str(first / "m.py")
    monkeypatch.chdir(second)
    with paths.one_run():
        assert paths.absolute("m.py") == str(second / "m.py")


def test_files_the_walk_finds_are_remembered_as_abspath_would_say(tmp_path, monkeypatch):
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    for name in ("pkg/__init__.py", "pkg/sub/x.py", "top.py"):
        (tmp_path / name).write_text("x = 1\n")
    monkeypatch.chdir(tmp_path)
    with paths.one_run():
        found = Discovery(str(tmp_path), [], True, False).files(["."])
        assert sorted(found) == sorted(os.path.normpath(p) for p in ("pkg/__init__.py", "pkg/sub/x.py", "top.py"))
        for path in found:
            assert paths._MEMO.get(path) == os.path.abspath(path)
