"""``dslint rule CODE`` and ``dslint rules``: text and JSON."""

from __future__ import annotations

import json

from dslint import catalogue, rule_pages

from .conftest import run_cli

FIELDS = {"code", "name", "summary", "default", "fix", "severity", "url"}


def test_rules_json_lists_every_rule():
    result = run_cli("rules", "--output-format", "json")
    assert result.returncode == 0, result.stderr
    rules = json.loads(result.stdout)
    assert [r["code"] for r in rules] == sorted(catalogue.RULES)
    for entry in rules:
        assert set(entry) >= FIELDS
        rule = catalogue.RULES[entry["code"]]
        assert (entry["name"], entry["default"], entry["fix"], entry["summary"]) == (
            rule.name, rule.default, rule.fix, rule.summary)


def test_rules_table_has_the_columns_and_whole_names():
    result = run_cli("rules")
    assert result.returncode == 0, result.stderr
    header = next(line for line in result.stdout.splitlines() if "code" in line and "summary" in line)
    assert header.split() == ["code", "name", "default", "fix", "summary"]
    for code, rule in catalogue.RULES.items():
        row = next(line for line in result.stdout.splitlines() if line.strip().startswith(code))
        cells = row.split()
        assert cells[1] == rule.name  # never truncated, even in a pipe
        assert cells[2] == ("on" if rule.default else "off")
        assert cells[3] == (rule.fix or "-")


def test_rule_renders_its_page():
    result = run_cli("rule", "DSL102")
    assert result.returncode == 0, result.stderr
    assert "DSL102: unpicklable-callable" in result.stdout
    assert "Can't pickle local object" in result.stdout
    assert "```" not in result.stdout  # rendered, not raw Markdown


def test_rule_json_carries_the_page():
    result = run_cli("rule", "dsl102", "--output-format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["code"] == "DSL102" and data["name"] == "unpicklable-callable"
    assert data["explanation"] == rule_pages.page("DSL102")
    assert set(data) >= FIELDS


def test_rule_without_a_page_falls_back_to_its_summary():
    code = next((c for c in sorted(catalogue.RULES) if rule_pages.page(c) is None), None)
    if code is None:
        return
    data = json.loads(run_cli("rule", code, "--output-format", "json").stdout)
    assert catalogue.RULES[code].summary in data["explanation"]


def test_unknown_rule_is_a_usage_error():
    result = run_cli("rule", "DSL999")
    assert result.returncode == 2
    assert "unknown rule `DSL999`" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_readme_rule_table_is_the_catalogue():
    """The README's rule table says what ``dslint rules`` says, one row per rule in order
    (it once listed DSL403 twice, the second time with a fix labelled safe)."""
    from .conftest import REPO

    rows = [line.split("|")[1:5] for line in (REPO / "README.md").read_text(encoding="utf-8").splitlines()
            if line.startswith("| DSL")]
    table = [tuple(cell.strip() for cell in row) for row in rows]
    assert table == [(code, rule.name, "on" if rule.default else "off", rule.fix or "-")
                     for code, rule in sorted(catalogue.RULES.items())]
