"""Fixture repositories: dslint prints exactly the findings listed in each EXPECTED."""

from __future__ import annotations

import pytest

from .conftest import FIXTURES, lint_json

REPOS = sorted(p.parent for p in FIXTURES.glob("*/EXPECTED"))


def expected(repo):
    lines = (repo / "EXPECTED").read_text(encoding="utf-8").splitlines()
    return sorted(line.strip() for line in lines if line.strip() and not line.startswith("#"))


@pytest.mark.parametrize("repo", REPOS, ids=[r.name for r in REPOS])
def test_fixture_repo(repo):
    findings = lint_json(".", cwd=repo)
    got = sorted(f"{f['filename'].removeprefix('./')}:{f['location']['row']} {f['code']}" for f in findings)
    assert got == expected(repo)


def test_hazard_repo_exit_code_and_all_six_rules():
    from .conftest import run_cli

    result = run_cli("check", "--no-cache", "fixtures/hazard_repo", cwd=FIXTURES.parent)
    assert result.returncode == 1
    for code in ("DSL101", "DSL102", "DSL103", "DSL104", "DSL201", "DSL301"):
        assert code in result.stdout


@pytest.mark.parametrize("name", ["clean_repo", "lookalikes"])
def test_clean_fixtures_exit_zero(name):
    from .conftest import run_cli

    result = run_cli("check", "--no-cache", f"fixtures/{name}", cwd=FIXTURES.parent)
    assert result.returncode == 0, result.stdout
    assert "All checks passed!" in result.stdout
