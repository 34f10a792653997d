"""Selection and configuration through the real CLI: ALL, typos, types, nearest config."""

from __future__ import annotations

import json
import os

import pytest

from dslint import catalogue, config

from .conftest import run_cli

HAZARD = (
    "from torch.utils.data import DataLoader\n\n"
    "def main(ds):\n"
    "    return DataLoader(ds, persistent_workers=True)\n"
)
# DSL303 is off by default: only a selection that names it (or ALL) reports it
OPT_IN = "DSL303"


def codes(result):
    assert result.returncode in (0, 1), result.stderr
    return sorted({item["code"] for item in json.loads(result.stdout)})


@pytest.fixture
def project(tmp_path):
    (tmp_path / "bad.py").write_text(HAZARD)
    return tmp_path


def test_select_all_selects_every_rule(project):
    assert not catalogue.RULES[OPT_IN].default
    everything = run_cli("check", "bad.py", "--select", "ALL", "--output-format", "json", "--show-settings",
                         cwd=project)
    assert everything.returncode == 0
    assert json.loads(everything.stdout.split("enabled rules = ", 1)[1]) == sorted(catalogue.RULES)
    assert codes(run_cli("check", "bad.py", "--select", "ALL", "--output-format", "json", cwd=project)) == ["DSL201"]
    (project / "pyproject.toml").write_text('[tool.dslint]\nselect = ["ALL"]\n')
    shown = run_cli("check", "bad.py", "--show-settings", cwd=project)
    assert json.loads(shown.stdout.split("enabled rules = ", 1)[1]) == sorted(catalogue.RULES)
    assert codes(run_cli("check", "bad.py", "--output-format", "json", cwd=project)) == ["DSL201"]
    assert run_cli("check", "bad.py", "--ignore", "ALL", cwd=project).returncode == 0


def test_unknown_selector_is_exit_2_with_a_hint(project):
    wrong = run_cli("check", "bad.py", "--select", "DSL2O1", cwd=project)
    assert wrong.returncode == 2 and "Traceback" not in wrong.stderr
    assert "unknown rule selector `DSL2O1`" in wrong.stderr and "did you mean `DSL201`?" in wrong.stderr
    (project / "pyproject.toml").write_text('[tool.dslint]\nignore = ["DSL2O1"]\n')
    in_file = run_cli("check", "bad.py", cwd=project)
    assert in_file.returncode == 2
    assert "pyproject.toml" in in_file.stderr and "`ignore`" in in_file.stderr and "did you mean" in in_file.stderr


@pytest.mark.parametrize(
    "text,key,expected",
    [
        ('per-file-ignores = { "*.py" = "DSL201" }', "per-file-ignores", "a table of glob = list of rule codes"),
        ("select = [5]", "select", "a list of rule codes"),
        ('select = "DSL201"', "select", "a list of rule codes"),
        ("jobs = true", "jobs", "a positive integer"),
        ("jobs = 0", "jobs", "a positive integer"),
        ('fix = "yes"', "fix", "true or false"),
        ("exclude = [1, 2]", "exclude", "a list of glob patterns"),
        ('trainer-entry-points = "a.b"', "trainer-entry-points", "a list of dotted names"),
    ],
)
def test_config_types_are_validated(project, text, key, expected):
    (project / "pyproject.toml").write_text(f"[tool.dslint]\n{text}\n")
    result = run_cli("check", "bad.py", cwd=project)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    message = result.stderr
    assert "pyproject.toml" in message and f"`{key}`" in message and expected in message, message


def test_string_per_file_ignores_never_silences_every_rule(project):
    # as a string, "DSL201" would be iterated per character and "D" would silence all rules
    (project / "pyproject.toml").write_text('[tool.dslint]\nper-file-ignores = { "*.py" = "DSL201" }\n')
    assert run_cli("check", "bad.py", cwd=project).returncode == 2


def test_jobs_capped_at_cores_and_files():
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert config.cap_jobs(128, 10_000) == cores
    assert config.cap_jobs(128, 1) == 1
    assert config.cap_jobs(None, 3) == min(cores, 3)


def test_repository_jobs_128_starts_no_more_processes_than_cores(tmp_path):
    # 70 seed files of 40 KB: enough source to share with workers; this process and its
    # workers never outnumber the cores
    padding = "# " + "x" * 77 + "\n"
    for i in range(70):
        (tmp_path / f"m{i}.py").write_text(HAZARD + padding * 500)
    (tmp_path / "pyproject.toml").write_text("[tool.dslint]\njobs = 128\n")
    probe = (
        "import sys\n"
        "from dslint import cli, parallel\n"
        "seen = []\n"
        "real = parallel.map_shared\n"
        "def spy(function, chunks, workers, done=None, **options):\n"
        "    seen.append(workers)\n"
        "    return real(function, chunks, workers, done, **options)\n"
        "parallel.map_shared = spy\n"
        "code = cli.main(['check', '--no-cache', '-q', '.'])\n"
        "print('WORKERS', seen, file=sys.stderr)\n"
    )
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    workers = json.loads(result.stderr.rsplit("WORKERS", 1)[1])
    cores = len(os.sched_getaffinity(0))
    assert workers and max(workers) + 1 <= cores, result.stderr


def test_nearest_config_of_each_file_applies(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.dslint]\nignore = ["DSL201"]\n')
    (tmp_path / "top.py").write_text(HAZARD)
    sub = tmp_path / "sub"
    (sub / "vendor").mkdir(parents=True)
    (sub / "dslint.toml").write_text('select = ["DSL2"]\nextend-exclude = ["vendor"]\n')
    (sub / "inner.py").write_text(HAZARD)
    (sub / "vendor" / "skipped.py").write_text(HAZARD)
    other = tmp_path / "other"
    other.mkdir()
    (other / "pyproject.toml").write_text('[project]\nname = "x"\n')  # no [tool.dslint]: not a config
    (other / "plain.py").write_text(HAZARD)
    result = run_cli("check", ".", "--output-format", "json", "--no-cache", cwd=tmp_path)
    assert sorted(f["filename"] for f in json.loads(result.stdout)) == ["sub/inner.py"]
    files = run_cli("check", ".", "--show-files", cwd=tmp_path)
    assert files.returncode == 0
    assert sorted(os.path.relpath(line, tmp_path) for line in files.stdout.split()) == [
        "other/plain.py", "sub/inner.py", "top.py"]
    shown = run_cli("check", "sub/inner.py", "--show-settings", cwd=tmp_path)
    assert "Settings path: " + str(sub / "dslint.toml") in shown.stdout
    assert 'select = ["DSL2"]' in shown.stdout
    isolated = run_cli("check", ".", "--isolated", "--output-format", "json", "--no-cache", cwd=tmp_path)
    assert sorted(f["filename"] for f in json.loads(isolated.stdout)) == [
        "other/plain.py", "sub/inner.py", "sub/vendor/skipped.py", "top.py"]


def test_a_file_named_alone_is_linted_beside_a_broken_config_elsewhere(tmp_path):
    """Naming one file walks its package for context: another folder's configuration that
    does not validate is not this run's (the file is linted); linting under it still fails."""
    (tmp_path / "bad.py").write_text(HAZARD)
    other = tmp_path / "other"
    other.mkdir()
    (other / "pyproject.toml").write_text('[tool.dslint]\nloader-classes = "mylib.FastLoader"\n')
    (other / "plain.py").write_text("x = 1\n")
    result = run_cli("check", "bad.py", "--output-format", "json", "--no-cache", cwd=tmp_path)
    assert codes(result) == ["DSL201"]
    broken = run_cli("check", "plain.py", "--no-cache", cwd=other)
    assert broken.returncode == 2 and "loader-classes" in broken.stderr


def test_no_python_files_found_is_a_warning(tmp_path):
    (tmp_path / "notes.txt").write_text("hello\n")
    result = run_cli("check", ".", cwd=tmp_path)
    assert result.returncode == 0
    assert "No Python files found" in result.stderr


def test_mistyped_command_is_a_usage_error(tmp_path):
    result = run_cli("chek", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "`chek` is neither a command nor an existing path" in result.stderr
    assert "did you mean `dslint check`?" in result.stderr
    assert "DSL001" not in result.stdout
    (tmp_path / "chek").mkdir()  # a folder of that name is a path after all
    assert run_cli("chek", cwd=tmp_path).returncode == 0
