"""Exclude patterns keep ``fnmatch``'s meaning now that they are compiled once per walk."""

import fnmatch
import os

import pytest

from dslint import discovery


def _reference(path, root, patterns):
    """The definition the compiled matcher replaces: each pattern tried with ``fnmatch`` on
    the name and the path relative to ``root``; one with a slash also matches below it."""
    name = os.path.basename(path)
    relative = os.path.relpath(path, root).replace(os.sep, "/")
    for pattern in patterns:
        pattern = pattern.rstrip("/")
        if fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(relative, pattern):
            return True
        if "/" in pattern and fnmatch.fnmatch(relative, pattern.lstrip("./") + "/*"):
            return True
    return False


PATTERNS = [
    (), discovery.DEFAULT_EXCLUDES, ("a",), ("a/b",), ("./a/b/",), ("sub/test_*.py",), ("*.egg-info",),
    ("data/**",), ("[ab]*",), ("?",), ("tests", "docs/*"), ("a/*/c.py",),
]
PATHS = ["a", "a/b", "a/b/c.py", "a/bc", "x/a", "sub/test_x.py", "sub/x.py", "pkg.egg-info", "data/raw/g.py",
         "build", "b", "c", "docs/conf.py", "docs", "tests/unit/t.py", "a/x/c.py", "venv/lib/site.py"]


@pytest.mark.parametrize("patterns", PATTERNS, ids=lambda p: ",".join(p) or "none")
def test_compiled_patterns_match_like_fnmatch(tmp_path, patterns):
    root = str(tmp_path)
    for relative in PATHS:
        absolute = os.path.join(root, *relative.split("/"))
        assert discovery._matches_any(absolute, root, patterns) == _reference(absolute, root, patterns), relative


def test_relative_paths_and_paths_outside_the_root(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    root = str(tmp_path / "proj")
    for path in ["proj/a/b", "proj/sub/test_x.py", "other/a/b", "a", str(tmp_path / "proj" / "a")]:
        for patterns in PATTERNS:
            assert discovery._matches_any(path, root, patterns) == _reference(path, root, patterns), (path, patterns)


def test_walk_skips_what_the_patterns_and_gitignore_name(tmp_path, monkeypatch):
    for relative in ["a/b/c.py", "a/d.py", "build/e.py", "x.egg-info/f.py", "data/raw/g.py", "sub/h.py",
                     "sub/test_i.py", "top.py"]:
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n")
    (tmp_path / ".gitignore").write_text("data/\n")
    monkeypatch.chdir(tmp_path)
    walk = discovery.Discovery(".", exclude=("sub/test_*.py", "a/b"))
    found = sorted(os.path.relpath(p).replace(os.sep, "/") for p in walk.files(["."]))
    assert found == ["a/d.py", "sub/h.py", "top.py"]
