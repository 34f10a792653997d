"""Fix safety as a contract, checked by running the code (issue 15).

Every case under ``fixtures/fix_equivalence/cases/`` is a small program with a finding
that has a fix (or one whose fix must be declined). The program runs before and after
``dslint check --fix`` through the real CLI, with the stand-in ``torch`` of
``fixtures/fix_equivalence/standin`` first on the path (real worker processes, no real
torch to import) unless the case asks for real torch. ``case.json`` says what must hold:

- ``"expect": "safe"``: the fix is offered as safe, and every run prints the same and
  exits the same after the fix. A run listed with ``before_error`` is one where the
  original stops with the error the rule reports (a loader that cannot be built, a
  lambda that cannot be pickled): there the fix must make the program run.
- ``"expect": "unsafe"``: the fix is offered only with ``--unsafe-fixes``; each run
  prints the same except the runs listed under ``changes``, where the behaviour changes
  exactly as recorded there (that record is the point of the label).
- ``"expect": "declined"``: the rule still reports the finding, no fix is offered, and
  ``--fix --unsafe-fixes`` leaves every file as it was.

After every applied fix, pyflakes reports no name problem the original did not have.
``python -m tests.test_fix_equivalence`` prints the table of what each fix does.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest

from .conftest import FIXTURES, lint_json, run_cli

ROOT = FIXTURES / "fix_equivalence"
CASES = ROOT / "cases"
STANDIN = ROOT / "standin"
FIXERS = ("DSL101", "DSL102", "DSL103", "DSL104", "DSL201", "DSL202", "DSL301", "DSL403")


def load_case(name: str) -> dict:
    case = json.loads((CASES / name / "case.json").read_text(encoding="utf-8"))
    case.setdefault("entry", "script.py")
    case.setdefault("runs", [{"args": []}])
    case.setdefault("changes", [])
    return case


def case_names() -> List[str]:
    return sorted(p.name for p in CASES.iterdir() if (p / "case.json").is_file())


def run_program(folder: Path, case: dict, args: List[str]) -> Tuple[str, str]:
    """What one run shows (its output, and how it ended when it did not end well), and its stderr."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if case.get("torch") != "real":
        env["PYTHONPATH"] = str(STANDIN)
    env["PYTHONHASHSEED"] = "0"
    result = subprocess.run([sys.executable, case["entry"], *args], cwd=folder, env=env,
                            capture_output=True, text=True, timeout=120)
    shown = result.stdout.strip()
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or [""])[-1]
        shown = f"{shown}\nexit {result.returncode}: {last}".strip()
    return shown, result.stderr


def snapshot(folder: Path) -> Dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*.py"))}


def pyflakes_messages(folder: Path) -> Dict[str, List[str]]:
    """pyflakes' messages per file, without line numbers (a fix moves lines)."""
    from pyflakes import api, reporter

    class Collect(reporter.Reporter):
        def __init__(self):
            self.found: List[str] = []

        def flake(self, message):
            self.found.append(message.message % message.message_args)

        def syntaxError(self, filename, msg, lineno, offset, text):
            self.found.append(f"syntax error: {msg}")

        def unexpectedError(self, filename, msg):
            self.found.append(f"error: {msg}")

    out = {}
    for path in sorted(folder.rglob("*.py")):
        collect = Collect()
        api.check(path.read_text(encoding="utf-8"), str(path), collect)
        out[path.relative_to(folder).as_posix()] = sorted(collect.found)
    return out


def prepare(name: str, tmp_path: Path) -> Path:
    folder = tmp_path / name
    shutil.copytree(CASES / name, folder, ignore=shutil.ignore_patterns("case.json", "__pycache__"))
    return folder


def offered(folder: Path, select: str) -> List[Optional[str]]:
    """The applicability of the fix of each finding of the ``select``ed rules (None: no fix)."""
    findings = lint_json("--select", select, ".", cwd=folder)
    return [f["fix"]["applicability"] if f["fix"] else None for f in findings if f["code"] in select.split(",")]


def apply_fix(folder: Path, select: str, unsafe: bool) -> subprocess.CompletedProcess:
    flags = ["--fix", "--unsafe-fixes"] if unsafe else ["--fix"]
    result = run_cli("check", "--no-cache", *flags, "--select", select, ".", cwd=folder)
    assert result.returncode in (0, 1), result.stderr
    return result


def outcomes(folder: Path, case: dict) -> Dict[str, Tuple[str, str]]:
    runs = [r["args"] for r in case["runs"]] + [c["args"] for c in case["changes"]]
    return {" ".join(args): run_program(folder, case, args) for args in runs}


def check_case(name: str, tmp_path: Path) -> Dict[str, tuple]:
    """Run one case end to end; returns {run: (before, after)} for the table."""
    case = load_case(name)
    rule, expect = case["rule"], case["expect"]
    select = case.get("select", rule)
    folder = prepare(name, tmp_path)
    before = outcomes(folder, case)
    original = snapshot(folder)
    flakes_before = pyflakes_messages(folder)
    failed = {run: shown for run, (shown, _) in before.items() if "exit " in shown}
    expected_failures = {" ".join(r["args"]) for r in case["runs"] if "before_error" in r}
    assert set(failed) <= expected_failures | {" ".join(c["args"]) for c in case["changes"]}, failed
    labels = offered(folder, rule)
    assert labels, f"{name}: {rule} is not reported"
    if expect == "declined":
        assert labels == [None] * len(labels), f"{name}: a fix is offered ({labels}): {case.get('why')}"
        apply_fix(folder, select, unsafe=True)
        assert snapshot(folder) == original, f"{name}: --fix --unsafe-fixes changed a file"
        return {run: (shown, shown) for run, (shown, _) in before.items()}
    assert set(labels) == {expect}, f"{name}: fixes offered as {labels}, expected {expect}"
    apply_fix(folder, select, unsafe=False)
    if expect == "unsafe":
        assert snapshot(folder) == original, f"{name}: --fix applied an unsafe fix"
        apply_fix(folder, select, unsafe=True)
    fixed = snapshot(folder)
    assert fixed != original, f"{name}: the fix changed nothing"
    for path, data in fixed.items():
        compile(data, path, "exec")
        assert b"global " not in data or b"global " in original.get(path, b""), f"{name}: the fix wrote `global`"
    flakes_after = pyflakes_messages(folder)
    for path, messages in flakes_after.items():
        new = sorted(set(messages) - set(flakes_before.get(path, [])))
        assert not new, f"{name}: the fix adds pyflakes messages to {path}: {new}"
    assert offered(folder, select) == [], f"{name}: {select} is still reported after the fix"
    after = outcomes(folder, case)
    for run in case["runs"]:
        key = " ".join(run["args"])
        (shown_before, stderr_before), (shown_after, stderr_after) = before[key], after[key]
        if "before_error" in run:
            assert "exit " in shown_before and run["before_error"] in stderr_before, (
                f"{name} [{key}]: the original did not fail as recorded: {shown_before}")
            assert "exit " not in shown_after, f"{name} [{key}]: still fails after the fix: {stderr_after}"
            assert shown_after == run.get("after", shown_after), f"{name} [{key}]: prints {shown_after!r} after the fix"
        else:
            assert shown_after == shown_before, f"{name} [{key}]: the fix changed the output\n{shown_before}\n---\n{shown_after}"
    for change in case["changes"]:
        key = " ".join(change["args"])
        assert expect == "unsafe", f"{name}: a {expect} fix records a change"
        observed = (before[key][0], after[key][0])
        assert observed == (change["before"], change["after"]), (
            f"{name} [{key}]: the recorded change is not what happens: {observed[0]!r} -> {observed[1]!r}"
        )
    return {run: (before[run][0], after[run][0]) for run in before}


@pytest.mark.parametrize("name", case_names())
def test_fix_keeps_or_records_behaviour(name, tmp_path):
    check_case(name, tmp_path)


def test_every_fixer_has_cases_of_its_labels():
    cases = [load_case(n) for n in case_names()]
    covered = {c["rule"] for c in cases if c["expect"] in ("safe", "unsafe")}
    assert covered == set(FIXERS)
    for case in cases:
        assert case["expect"] in ("safe", "unsafe", "declined")
        if case["expect"] != "safe":
            assert case.get("why"), f"{case['rule']}: an unsafe or declined case says why"


def _table() -> None:  # pragma: no cover - a report for people
    import tempfile

    for name in case_names():
        case = load_case(name)
        with tempfile.TemporaryDirectory() as tmp:
            try:
                runs = check_case(name, Path(tmp))
                status = "ok"
            except AssertionError as exc:
                runs, status = {}, f"FAILED: {str(exc).splitlines()[0]}"
        fixed = {" ".join(r["args"]) or "(no args)" for r in case["runs"] if "before_error" in r}
        changed = [r or "(no args)" for r, (b, a) in runs.items() if b != a and (r or "(no args)") not in fixed]
        notes = [f"error gone: {', '.join(sorted(fixed))}"] if fixed else []
        notes += [f"behaviour changes: {', '.join(changed)}"] if changed else []
        print(f"{case['rule']}  {case['expect']:<9} {name:<34} {status}  {'; '.join(notes)}")


if __name__ == "__main__":  # pragma: no cover
    _table()
