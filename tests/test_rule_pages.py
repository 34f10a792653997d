"""Every rule page's examples are executable specifications (DESIGN §4)."""

from __future__ import annotations

import pytest

from dslint import catalogue, rule_pages

from .conftest import RULES

PAGES = sorted(RULES.glob("DSL*.md"))


def _examples():
    for page in PAGES:
        code = page.stem
        for number, example in enumerate(rule_pages.examples(page.read_text(encoding="utf-8")), 1):
            yield pytest.param(code, example["kind"], example["code"], id=f"{code}-{number}-{example['kind']}")


def test_every_rule_has_a_page():
    missing = [code for code in catalogue.RULES if code != "DSL001" and rule_pages.page_path(code) is None]
    assert missing == []


@pytest.mark.parametrize("code", sorted(p.stem for p in PAGES))
def test_page_has_bad_and_good_examples(code):
    kinds = {e["kind"] for e in rule_pages.examples(rule_pages.page(code))}
    assert {"bad", "good"} <= kinds


@pytest.mark.parametrize("code,kind,source", list(_examples()))
def test_example(code, kind, source, lint_snippet):
    found = {c for c, _ in lint_snippet(source)}
    if kind == "bad":
        assert found == {code}, f"bad example of {code} raised {sorted(found)}"
    else:
        assert found == set(), f"{kind} example of {code} raised {sorted(found)}"
