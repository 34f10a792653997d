"""The pre-commit hooks of ``.pre-commit-hooks.yaml``, run by the real pre-commit.

``pre-commit try-repo`` installs the hook repository with pip into a fresh environment,
which needs the package index (build dependencies, libcst, rich). Offline, the test runs
the manifest's own hook definitions as a ``repo: local`` config with ``language: system``
against the dslint installed here: the same entry, arguments, file types and
serialisation. Set ``DSLINT_TEST_NETWORK=1`` to also run ``try-repo`` for real.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from .conftest import REPO

yaml = pytest.importorskip("yaml")
pytest.importorskip("pre_commit")

MANIFEST = REPO / ".pre-commit-hooks.yaml"
HAZARD = textwrap.dedent(
    """\
    from torch.utils.data import DataLoader


    def main():
        loader = DataLoader(range(8), num_workers=2, collate_fn=lambda batch: batch)
        for batch in loader:
            print(batch)


    if __name__ == "__main__":
        main()
    """
)
CLEAN = "def add(a, b):\n    return a + b\n"


def hooks():
    return {hook["id"]: hook for hook in yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))}


def fixer_available() -> bool:
    try:
        import dslint.fixes.apply  # noqa: F401
    except ImportError:
        return False
    return True


def git(*args, cwd):
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


def pre_commit(*args, cwd, home):
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never", "SKIP": ""}
    env.pop("DSLINT_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=cwd, capture_output=True,
                          text=True, env=env, timeout=120)


def local_config(hook_ids):
    """The manifest's hooks as local hooks running the installed dslint."""
    local = []
    for hook_id in hook_ids:
        hook = dict(hooks()[hook_id])
        assert hook["entry"].startswith("dslint ")
        hook["entry"] = f"{sys.executable} -m dslint {hook['entry'][len('dslint '):]}"
        hook["language"] = "system"
        hook.pop("minimum_pre_commit_version", None)
        local.append(hook)
    return yaml.safe_dump({"repos": [{"repo": "local", "hooks": local}]}, sort_keys=False)


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    git("init", "-q", cwd=root)
    (root / "train.py").write_text(HAZARD, encoding="utf-8")
    (root / "util.py").write_text(CLEAN, encoding="utf-8")
    (root / "README.md").write_text("not python\n", encoding="utf-8")
    return root


def test_manifest():
    found = hooks()
    assert set(found) == {"dslint", "dslint-fix"}
    for hook in found.values():
        assert hook["language"] == "python"
        assert hook["require_serial"] is True
        assert set(hook["types_or"]) >= {"python", "jupyter"}
        assert "--force-exclude" in hook["entry"].split()
    assert found["dslint"]["entry"].split()[:2] == ["dslint", "check"]
    assert "--fix" in found["dslint-fix"]["entry"].split()


def test_hooks_block_a_hazard_and_pass_clean_code(project, tmp_path):
    ids = ["dslint", "dslint-fix"] if fixer_available() else ["dslint"]
    (project / ".pre-commit-config.yaml").write_text(local_config(ids), encoding="utf-8")
    git("add", "-A", cwd=project)
    home = tmp_path / "home"

    blocked = pre_commit("run", "dslint", "--all-files", cwd=project, home=home)
    assert blocked.returncode == 1, blocked.stdout + blocked.stderr
    assert "train.py:5:" in blocked.stdout and "DSL102" in blocked.stdout

    clean = pre_commit("run", "dslint", "--files", "util.py", "README.md", cwd=project, home=home)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Passed" in clean.stdout

    nothing = pre_commit("run", "dslint", "--files", "README.md", cwd=project, home=home)
    assert nothing.returncode == 0 and "no files to check" in nothing.stdout

    if "dslint-fix" in ids:
        fixed = pre_commit("run", "dslint-fix", "--all-files", cwd=project, home=home)
        assert fixed.returncode == 1, fixed.stdout + fixed.stderr  # files changed: the commit stops
        assert "lambda" not in (project / "train.py").read_text(encoding="utf-8")
        again = pre_commit("run", "dslint", "--all-files", cwd=project, home=home)
        assert again.returncode == 0, again.stdout


def test_hook_honours_excludes_of_the_project_config(project, tmp_path):
    (project / "vendor" / "lib").mkdir(parents=True)
    (project / "vendor" / "lib" / "loaders.py").write_text(HAZARD, encoding="utf-8")
    (project / "pyproject.toml").write_text('[tool.dslint]\nextend-exclude = ["train.py", "vendor"]\n',
                                            encoding="utf-8")
    (project / ".pre-commit-config.yaml").write_text(local_config(["dslint"]), encoding="utf-8")
    git("add", "-A", cwd=project)
    result = pre_commit("run", "dslint", "--all-files", cwd=project, home=tmp_path / "home")
    assert result.returncode == 0, result.stdout + result.stderr


def test_hook_lints_notebooks(project, tmp_path):
    shutil.copy(REPO / "fixtures" / "notebook" / "train.ipynb", project / "explore.ipynb")
    (project / "train.py").unlink()
    (project / ".pre-commit-config.yaml").write_text(local_config(["dslint"]), encoding="utf-8")
    git("add", "-A", cwd=project)
    result = pre_commit("run", "dslint", "--all-files", cwd=project, home=tmp_path / "home")
    assert result.returncode == 1
    assert "explore.ipynb:cell 5:4:32: DSL102" in result.stdout


def _copy_of_this_repo(target: Path) -> None:
    """The working tree (tracked and untracked, not ignored) as a fresh one-commit repo."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO, capture_output=True,
                            text=True, check=True).stdout.splitlines()
    for name in listed:
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    git("init", "-q", cwd=target)
    git("add", "-A", cwd=target)
    git("commit", "-qm", "snapshot", cwd=target)


@pytest.mark.skipif(os.environ.get("DSLINT_TEST_NETWORK") != "1",
                    reason="try-repo pip-installs dslint from the package index (set DSLINT_TEST_NETWORK=1)")
def test_try_repo_installs_and_runs_the_hook(project, tmp_path):
    hook_repo = tmp_path / "dslint-repo"
    hook_repo.mkdir()
    _copy_of_this_repo(hook_repo)
    git("add", "-A", cwd=project)
    result = pre_commit("try-repo", str(hook_repo), "dslint", "--all-files", cwd=project, home=tmp_path / "home")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "DSL102" in result.stdout
