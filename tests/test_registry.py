"""The rule tables stay in step: the checks, the message catalogue, the fixers and the pages."""

from __future__ import annotations

from dslint import catalogue
from dslint.checks import CHECKS
from dslint.fixes.apply import PLANNERS

from .conftest import REPO

RULE_CODES = {code for code in catalogue.RULES if code != "DSL001"}


def test_every_catalogued_rule_has_a_check_and_every_check_a_rule():
    assert set(CHECKS) == RULE_CODES


def test_fixers_are_exactly_the_rules_with_a_fix():
    offered = {code for code, rule in catalogue.RULES.items() if rule.fix}
    assert set(PLANNERS) == offered


def test_every_rule_has_its_page():
    pages = {p.stem for p in (REPO / "rules").glob("DSL*.md")}
    assert RULE_CODES <= pages
