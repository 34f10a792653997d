"""The flake8 plugin: the real flake8 reports what ``dslint check`` reports."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap

import pytest

from .conftest import FIXTURES, REPO, lint_json

pytest.importorskip("flake8")

REPOS = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir() and any(p.rglob("*.py")))


def flake8(*args, cwd=REPO, input=None):
    return subprocess.run(
        [sys.executable, "-m", "flake8", *args], cwd=cwd, capture_output=True, text=True, input=input, timeout=300,
    )


def flake8_findings(*args, cwd=REPO):
    result = flake8("--select", "DSL", "--format", "%(path)s\t%(row)d\t%(col)d\t%(code)s", *args, cwd=cwd)
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    found = set()
    for line in result.stdout.splitlines():
        path, row, col, code = line.split("\t")
        found.add((os.path.normpath(path), int(row), int(col), code))
    return found


def dslint_findings(*args, cwd=REPO):
    return {
        (os.path.normpath(f["filename"]), f["location"]["row"], f["location"]["column"], f["code"])
        for f in lint_json(*args, cwd=cwd)
        if not f["filename"].endswith(".ipynb")  # flake8 does not read notebooks
    }


def test_version_lists_the_plugin():
    result = flake8("--version")
    assert result.returncode == 0
    assert "torch-dslint: " in result.stdout.replace("\n", " ")


@pytest.mark.parametrize("name", REPOS)
def test_same_findings_as_dslint_check(name):
    target = f"fixtures/{name}"
    expected = dslint_findings("--select", "DSL", target)  # as flake8's --select DSL: off-by-default rules too
    assert flake8_findings(target) == expected  # same path, row, column (flake8 prints col + 1) and code
    if name == "hazard_repo":
        assert {code for *_, code in expected} >= {"DSL101", "DSL102", "DSL201", "DSL301"}


def test_same_findings_in_parallel_flake8_processes():
    assert flake8_findings("-j", "4", "fixtures/hazard_repo") == dslint_findings("--select", "DSL", "fixtures/hazard_repo")


def test_single_file_gets_the_same_answer_as_dslint():
    target = "fixtures/hazard_repo/train.py"
    assert flake8_findings(target) == dslint_findings("--select", "DSL", target)


def test_cross_file_facts_reach_a_file_read_from_stdin():
    # stdin is checked on its own text against the index of the other files of the paths
    text = (FIXTURES / "hazard_repo" / "train.py").read_text(encoding="utf-8")
    result = flake8("--select", "DSL", "--stdin-display-name", "train.py", "-", cwd=FIXTURES / "hazard_repo", input=text)
    codes = sorted(line.split()[1] for line in result.stdout.splitlines())
    on_disk = sorted(f[3] for f in dslint_findings("--select", "DSL", "train.py", cwd=FIXTURES / "hazard_repo"))
    assert codes == on_disk


def test_select_ignore_and_noqa_are_flake8s(tmp_path):
    source = textwrap.dedent(
        """\
        from torch.utils.data import DataLoader

        a = DataLoader(range(4), num_workers=2, collate_fn=lambda b: b)
        b = DataLoader(range(4), num_workers=2, collate_fn=lambda b: b)  # noqa: DSL102
        c = DataLoader(range(4), persistent_workers=True)  # noqa
        """
    )
    (tmp_path / "loaders.py").write_text(source, encoding="utf-8")
    rows = lambda found: sorted((row, code) for _, row, _, code in found)  # noqa: E731
    assert rows(flake8_findings("loaders.py", cwd=tmp_path)) == [(3, "DSL102")]
    assert rows(flake8_findings("--extend-ignore", "DSL102", "loaders.py", cwd=tmp_path)) == []
    assert rows(flake8_findings("--disable-noqa", "loaders.py", cwd=tmp_path)) == [
        (3, "DSL102"), (4, "DSL102"), (5, "DSL201")
    ]


def test_plugin_yields_zero_based_columns(tmp_path):
    from dslint.flake8_plugin import Plugin

    path = tmp_path / "loaders.py"
    path.write_text("from torch.utils.data import DataLoader\nx = DataLoader(range(4), num_workers=2, collate_fn=lambda b: b)\n")
    lines = path.read_text().splitlines(keepends=True)
    plugin = Plugin(ast.parse("".join(lines)), str(path), lines)
    (row, col, message, kind), = list(plugin.run())
    assert (row, col) == (2, 51) and message.startswith("DSL102 ") and kind is Plugin
    assert lines[1][col:].startswith("lambda")


def test_rules_off_by_default_are_registered_as_default_ignores(monkeypatch):
    from dslint import catalogue
    from dslint.flake8_plugin import Plugin

    monkeypatch.setitem(catalogue.RULES, "DSL999", catalogue.Rule("DSL999", "noisy", "A noisy rule.", default=False))

    class Manager:
        ignored = []

        def extend_default_ignore(self, codes):
            self.ignored.extend(codes)

    manager = Manager()
    Plugin.add_options(manager)
    assert "DSL999" in manager.ignored
    assert not set(manager.ignored) & {code for code, rule in catalogue.RULES.items() if rule.default}


def test_flake8_is_optional():
    # importing dslint (and running it) never needs flake8
    code = "import sys; sys.modules['flake8'] = None; import dslint.cli, dslint.flake8_plugin; print('ok')"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "ok", result.stderr


def test_file_excluded_by_dslint_config_gets_its_own_projects_answer(tmp_path):
    # flake8 lints what dslint's [tool.dslint] excludes; such a file is checked with the
    # files of its own import root, never with a half index (clean_repo's utils throttle cv2)
    import shutil

    shutil.copytree(FIXTURES / "clean_repo", tmp_path / "vendor" / "clean_repo")
    shutil.copytree(FIXTURES / "hazard_repo", tmp_path / "vendor" / "hazard_repo")
    (tmp_path / "pyproject.toml").write_text('[tool.dslint]\nextend-exclude = ["vendor"]\n', encoding="utf-8")
    assert lint_json(".", cwd=tmp_path) == []
    expected = set()
    for name in ("clean_repo", "hazard_repo"):
        expected |= {(os.path.normpath(f"vendor/{name}/{path}"), row, col, code)
                     for path, row, col, code in dslint_findings("--select", "DSL", ".", cwd=tmp_path / "vendor" / name)}
    assert flake8_findings(".", cwd=tmp_path) == expected
    assert not any(path.startswith("vendor/clean_repo") and code == "DSL103" for path, _, _, code in expected)
