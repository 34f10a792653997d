"""The cache: a second run over an unchanged tree parses nothing; changes are seen."""

from __future__ import annotations

import os
import textwrap

import pytest

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
    assert result.parsed == 2  # a file the analysis read changed: it runs again (summaries are not cached)
    assert [(os.path.basename(f.path), f.code) for f in result.findings] == [("dataset.py", "DSL103")]


def test_edit_to_a_file_the_analysis_never_read_reuses_the_findings(tmp_path):
    make_tree(tmp_path, throttle=False)
    (tmp_path / "notes.py").write_text("x = 1\n")
    first = lint(tmp_path)
    assert first.parsed == 2 and [f.code for f in first.findings] == ["DSL103"]
    (tmp_path / "notes.py").write_text("x = 2  # nothing dslint looks for\n")
    again = lint(tmp_path)
    assert again.parsed == 0 and again.findings == first.findings
    (tmp_path / "notes.py").write_text("from torch.utils.data import DataLoader\n")  # now a seed
    assert lint(tmp_path).parsed == 3


def test_new_project_boundary_analyses_again(tmp_path):
    # where a file sits (its package, its project) is part of what its findings depend on
    from dslint.model import project

    (tmp_path / "app").mkdir()
    make_tree(tmp_path / "app", throttle=False)
    assert lint(tmp_path).parsed == 2
    assert lint(tmp_path).parsed == 0
    (tmp_path / "app" / "setup.cfg").write_text("[metadata]\n")  # app/ becomes a project of its own
    project._marked_ancestor.cache_clear()  # as a new process would see it
    assert lint(tmp_path).parsed == 2


def test_no_cache_writes_nothing(tmp_path):
    make_tree(tmp_path, throttle=False)
    result = lint(tmp_path, cache=False)
    assert [f.code for f in result.findings] == ["DSL103"]
    assert not (tmp_path / ".dslint_cache").exists()


# through the real CLI -------------------------------------------------------------------------
import json  # noqa: E402
import pickle  # noqa: E402

from .conftest import run_cli  # noqa: E402

HAZARD = (
    "from torch.utils.data import DataLoader\n\n"
    "def main(ds):\n"
    "    return DataLoader(ds, persistent_workers=True)\n"
)


class Payload:
    """Unpickling this creates ``marker``: proof that the cache ran code."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (self.marker,))


def cache_files(folder):
    return sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def concise(result):
    return sorted(line for line in result.stdout.splitlines() if ": DSL" in line)


def test_hostile_pickles_at_every_cache_path_never_run(tmp_path):
    project = tmp_path / "proj"
    (project / "pkg").mkdir(parents=True)
    (project / "pkg" / "bad.py").write_text(HAZARD)
    (project / "pkg" / "ok.py").write_text("import torch\nx = 1\n")
    first = run_cli("check", ".", "--output-format", "concise", cwd=project)
    assert first.returncode == 1 and [line[:20] for line in concise(first)] == ["pkg/bad.py:4:27: DSL"]
    cache = project / ".dslint_cache"
    written = cache_files(cache)
    assert written, "the first run wrote no cache"
    marker = tmp_path / "PWNED"
    payload = pickle.dumps(Payload(str(marker)))
    targets = set(written)
    for path in written:  # and the names an older, pickling dslint used
        targets.update({path.with_name(path.name + ".pickle"), path.with_suffix(".pickle"), path.with_suffix(".json")})
    for path in targets:
        path.write_bytes(payload)
    for attempt in range(2):
        again = run_cli("check", ".", "--output-format", "concise", cwd=project)
        assert not marker.exists(), "reading the cache executed code"
        assert again.returncode == 1 and concise(again) == concise(first), again.stderr
        assert "Traceback" not in again.stderr
    data = [p for p in cache_files(cache) if p in written and p.name not in (".gitignore", "CACHEDIR.TAG")]
    assert data and all(p.read_bytes() != payload for p in data), "the hostile cache file was not rewritten"
    assert all(b"pickle" not in p.read_bytes()[:64] for p in data)


def test_forged_cache_hiding_findings_is_not_trusted(tmp_path):
    # a committed cache file that claims the file is clean: dslint did not write it, so it is ignored
    (tmp_path / "bad.py").write_text(HAZARD)
    first = run_cli("check", "bad.py", "--output-format", "concise", cwd=tmp_path)
    (data,) = [p for p in cache_files(tmp_path / ".dslint_cache") if p.parent.name != ".dslint_cache"]
    raw = data.read_bytes()
    forged = raw.replace(b"persistent_workers", b"persistent_workerz")
    data.write_bytes(raw.split(b"\n", 1)[0] + b"\n" + raw.split(b"\n", 1)[1][:-10])  # truncated: corrupt
    assert concise(run_cli("check", "bad.py", "--output-format", "concise", cwd=tmp_path)) == concise(first)
    data.write_bytes(forged)
    assert concise(run_cli("check", "bad.py", "--output-format", "concise", cwd=tmp_path)) == concise(first)


def test_cache_lives_at_project_root_and_results_do_not_depend_on_cwd(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.dslint]\n")
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "bad.py").write_text(HAZARD)
    top = run_cli("check", "sub", "--output-format", "json", cwd=tmp_path)
    assert [f["filename"] for f in json.loads(top.stdout)] == ["sub/bad.py"]
    assert (tmp_path / ".dslint_cache").is_dir() and not (sub / ".dslint_cache").exists()
    inside = {fmt: run_cli("check", "--output-format", fmt, cwd=sub) for fmt in ("json", "concise", "github", "sarif")}
    assert [f["filename"] for f in json.loads(inside["json"].stdout)] == ["bad.py"]
    assert inside["concise"].stdout.startswith("bad.py:4:27: DSL201")
    assert "file=bad.py," in inside["github"].stdout
    (result,) = json.loads(inside["sarif"].stdout)["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bad.py"
    assert not (sub / ".dslint_cache").exists()
    fixed = run_cli("check", "--fix", cwd=sub)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "persistent_workers" not in (sub / "bad.py").read_text()


def test_without_config_the_cache_is_not_put_inside_the_first_path(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "bad.py").write_text(HAZARD)
    assert run_cli("check", "src", cwd=tmp_path).returncode == 1
    assert (tmp_path / ".dslint_cache").is_dir() and not (tmp_path / "src" / ".dslint_cache").exists()


def test_cache_dir_option_and_environment(tmp_path):
    (tmp_path / "bad.py").write_text(HAZARD)
    chosen = tmp_path / "elsewhere"
    assert run_cli("check", "bad.py", "--cache-dir", str(chosen), cwd=tmp_path).returncode == 1
    assert cache_files(chosen) and not (tmp_path / ".dslint_cache").exists()
    env_dir = tmp_path / "from-env"
    os.environ["DSLINT_CACHE_DIR"] = str(env_dir)
    try:
        assert run_cli("check", "bad.py", cwd=tmp_path).returncode == 1
    finally:
        del os.environ["DSLINT_CACHE_DIR"]
    assert cache_files(env_dir) and not (tmp_path / ".dslint_cache").exists()


def test_cache_never_written_through_links(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    precious = outside / "precious.txt"
    precious.write_text("keep me\n")
    project = tmp_path / "proj"
    project.mkdir()
    (project / "bad.py").write_text(HAZARD)
    cache = project / ".dslint_cache"
    cache.mkdir()
    os.symlink("../../outside/created", cache / ".gitignore")  # dangling
    os.symlink("../../outside/precious.txt", cache / "CACHEDIR.TAG")
    result = run_cli("check", ".", "--output-format", "concise", cwd=project)
    assert result.returncode == 1 and concise(result)[0].startswith("bad.py:4:27: DSL201")
    assert "running without the cache" in result.stderr
    assert not (outside / "created").exists()
    assert precious.read_text() == "keep me\n"
    assert sorted(p.name for p in cache.iterdir()) == [".gitignore", "CACHEDIR.TAG"]
    # a linked cache folder receives nothing
    for link in cache.iterdir():
        link.unlink()
    cache.rmdir()
    elsewhere = outside / "cache"
    elsewhere.mkdir()
    os.symlink(elsewhere, cache)
    result = run_cli("check", ".", "--output-format", "concise", cwd=project)
    assert result.returncode == 1 and "running without the cache" in result.stderr
    assert list(elsewhere.iterdir()) == []


def test_warm_run_reports_what_a_cold_run_does(tmp_path):
    import shutil

    from .conftest import FIXTURES

    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "hazard_repo", repo)
    cold = run_cli("check", ".", "--output-format", "json", "--no-cache", cwd=repo)
    first = run_cli("check", ".", "--output-format", "json", cwd=repo)
    warm = run_cli("check", ".", "--output-format", "json", cwd=repo)
    assert json.loads(cold.stdout) == json.loads(first.stdout) == json.loads(warm.stdout)
    assert cold.returncode == warm.returncode == 1


def test_every_summary_of_the_fixtures_round_trips_through_plain_data():
    # a new kind of value in a summary that the codec cannot store would silently make every
    # run uncached: this test names it instead
    from dslint.engine import cache_codec, summarise
    from dslint.sourcefile import read

    from .conftest import FIXTURES

    codec = cache_codec()
    summarised = 0
    for path in sorted(FIXTURES.rglob("*.py")):
        source = read(str(path))
        if not hasattr(source, "text"):
            continue
        result = summarise(str(path), source)
        if result.summary is None:
            continue
        encoded = json.loads(json.dumps(codec.encode(result)))
        assert codec.decode(encoded) == result, path
        summarised += 1
    assert summarised > 20


@pytest.mark.parametrize("data", [
    {"__reduce__": "os.system"},  # a JSON object is never data here
    [999, 1, 2],  # no such class
    [0],  # a class with the wrong number of fields
    [-9, 1],  # no such container
    [-3, [-2], 1],  # an unhashable key
    [],  # a container without a tag
    ["posix.system", "id"],  # a class named by the data is never looked up
])
def test_plain_data_that_is_not_an_encoding_is_invalid(data):
    from dslint.engine import cache_codec
    from dslint.plaindata import Invalid

    with pytest.raises(Invalid):
        cache_codec().decode(data)


def test_an_edit_in_one_project_analyses_that_project_only(tmp_path):
    """Each project boundary keeps its own record: editing a file one project's analysis read
    analyses that project again, and the other's findings come from the cache."""
    for name in ("first", "second"):
        (tmp_path / name).mkdir()
        make_tree(tmp_path / name, throttle=False)
        (tmp_path / name / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    first = lint(tmp_path)
    found = sorted((os.path.basename(os.path.dirname(f.path)), f.code) for f in first.findings)
    assert first.parsed == 4 and found == [("first", "DSL103"), ("second", "DSL103")]
    (tmp_path / "first" / "utils.py").write_text("import cv2\ncv2.setNumThreads(0)\n")
    again = lint(tmp_path)
    assert again.parsed == 2  # the first project's two files, nothing of the second
    assert [(os.path.basename(os.path.dirname(f.path)), f.code) for f in again.findings] == [("second", "DSL103")]


def test_files_named_in_turn_reuse_their_package_record(tmp_path):
    """A pre-commit hook names the staged files: the package around them is read, and one
    record serves whichever of its files are named (an unread file edited between runs);
    a run over another folder keeps the first folder's record."""
    package = tmp_path / "pkg"
    package.mkdir()
    make_tree(package, throttle=False)
    (package / "notes.py").write_text("x = 1\n")
    (tmp_path / "other").mkdir()
    make_tree(tmp_path / "other", throttle=False)
    settings = config.Settings(root=str(tmp_path), cache=True, select=["DSL"], jobs=1)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        first = engine.run([os.path.join("pkg", "dataset.py")], settings)
        assert first.parsed == 2 and [(f.path, f.code) for f in first.findings] == [("pkg/dataset.py", "DSL103")]
        (package / "notes.py").write_text("x = 2\n")
        named_other = engine.run([os.path.join("pkg", "notes.py")], settings)
        assert named_other.parsed == 0 and named_other.findings == []  # reused; notes.py has no finding
        assert engine.run(["other"], settings).parsed == 2
        again = engine.run([os.path.join("pkg", "dataset.py"), os.path.join("pkg", "utils.py")], settings)
        assert again.parsed == 0 and [(f.path, f.code) for f in again.findings] == [("pkg/dataset.py", "DSL103")]
    finally:
        os.chdir(cwd)
