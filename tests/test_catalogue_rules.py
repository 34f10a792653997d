"""The catalogue beyond the core six (issue 6): every rule fires on its fixtures at the
right line and is silent on its look-alikes, through the real CLI.

Each ``fixtures/rules/<CODE>/`` holds files that fire (marked ``# DSLnnn`` on the reported
line) and look-alikes that must not, with ``EXPECTED`` listing ``path:LINE CODE``.
"""

from __future__ import annotations

import re

import pytest

from dslint import catalogue

from .conftest import FIXTURES, lint_json, run_cli

RULE_DIRS = sorted(p.parent for p in (FIXTURES / "rules").glob("*/EXPECTED"))
NEW_RULES = ("DSL105", "DSL106", "DSL107", "DSL202", "DSL203", "DSL302", "DSL303", "DSL401", "DSL402",
             "DSL403", "DSL501")


def _expected(folder):
    lines = (folder / "EXPECTED").read_text(encoding="utf-8").splitlines()
    return sorted(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def _markers(folder):
    found = []
    for path in sorted(folder.rglob("*.py")):
        for row, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for code in re.findall(r"#.*?\b(DSL\d{3})\b", line):
                found.append(f"{path.relative_to(folder).as_posix()}:{row} {code}")
    return sorted(set(found))


@pytest.mark.parametrize("folder", RULE_DIRS, ids=[p.name for p in RULE_DIRS])
def test_rule_fixtures(folder):
    findings = lint_json("--select", "DSL", ".", cwd=folder)
    got = sorted(f"{f['filename'].removeprefix('./')}:{f['location']['row']} {f['code']}" for f in findings)
    assert got == _expected(folder)


@pytest.mark.parametrize("folder", RULE_DIRS, ids=[p.name for p in RULE_DIRS])
def test_expected_matches_markers(folder):
    """EXPECTED and the ``# DSLnnn`` markers in the files say the same thing."""
    assert _markers(folder) == _expected(folder)


@pytest.mark.parametrize("code", NEW_RULES)
def test_every_new_rule_has_fixtures_and_fires(code):
    folder = FIXTURES / "rules" / code
    assert (folder / "EXPECTED").is_file()
    assert any(line.endswith(code) for line in _expected(folder))
    assert any(not p.name.startswith("bad") for p in folder.glob("*.py")), "needs a look-alike"


@pytest.mark.parametrize("code,default", [("DSL303", False), ("DSL501", False), ("DSL302", False)])
def test_default_selection(code, default):
    assert catalogue.RULES[code].default is default


@pytest.mark.parametrize("code", ["DSL302", "DSL303"])
def test_off_by_default_rules_need_select(code):
    """DSL302 fires on correct training scripts and its change is unsafe (issue 13): opt-in."""
    folder = FIXTURES / "rules" / code
    default = lint_json(".", cwd=folder)
    assert [f for f in default if f["code"] == code] == []
    selected = lint_json("--select", code, ".", cwd=folder)
    assert {f["code"] for f in selected} == {code}


def test_fix_metadata():
    assert catalogue.RULES["DSL202"].fix == "safe"
    assert catalogue.RULES["DSL403"].fix == "unsafe"  # later epochs are reshuffled: not the same program
    assert catalogue.RULES["DSL105"].fix is None


def test_trainer_entry_points_extend_from_config(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("from ourlab.engine import Experiment\n\nExperiment().run()\n", encoding="utf-8")
    assert lint_json("--select", "DSL101", str(script), cwd=tmp_path) == []
    (tmp_path / "pyproject.toml").write_text(
        '[tool.dslint]\ntrainer-entry-points = ["ourlab.Experiment.run"]\n', encoding="utf-8"
    )
    found = lint_json("--select", "DSL101", str(script), cwd=tmp_path)
    assert [(f["code"], f["location"]["row"]) for f in found] == [("DSL101", 3)]


@pytest.mark.parametrize(
    "snippet,codes",
    [
        # DSL202/DSL201: the zero branch of a conditional worker count counts
        ("import sys\nfrom torch.utils.data import DataLoader\n"
         "def f(ds):\n    return DataLoader(ds, num_workers=0 if sys.platform == 'win32' else 8, prefetch_factor=2)\n",
         ["DSL202"]),
        ("from torch.utils.data import DataLoader\n"
         "def f(ds, num_workers):\n    return DataLoader(ds, num_workers=num_workers, "
         "prefetch_factor=2 if num_workers > 0 else None)\n", []),
        ("from torch.utils.data import DataLoader\n"
         "def f(ds, num_workers):\n    return DataLoader(ds, num_workers=num_workers, "
         "prefetch_factor=4 if num_workers > 0 else 2)\n", ["DSL202"]),
        # DSL203: the documented idiom
        ("from torch.utils.data import DataLoader\n"
         "def f(ds, sampler=None):\n    return DataLoader(ds, sampler=sampler, shuffle=(sampler is None))\n", []),
    ],
)
def test_precision_traps(lint_snippet, snippet, codes):
    assert [c for c, _ in lint_snippet(snippet)] == codes


def test_rules_table_lists_new_rules():
    result = run_cli("rules")
    assert result.returncode == 0
    for code in NEW_RULES:
        assert code in result.stdout
