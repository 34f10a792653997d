"""Output formats for CI: SARIF 2.1.0 (schema-valid), GitHub annotations, JUnit XML; the
progress bar that appears only on a terminal."""

from __future__ import annotations

import io
import json
import os
import pty
import subprocess
import sys
import threading
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from dslint import catalogue
from dslint.diagnostics import Edit, Finding, Fix, Location
from dslint.reporters import get

from .conftest import REPO, lint_json, run_cli

SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"


def sarif_errors(document):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.validators.validator_for(schema)(schema)
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(document)]


def finding(**kw):
    base = dict(code="DSL102", message="Lambda passed as `collate_fn`", path="src/train.py",
                location=Location(70, 20), end_location=Location(70, 86))
    base.update(kw)
    return Finding(**base)


def render(fmt, findings):
    out = io.StringIO()
    get(fmt)(findings, out, sources={})
    return out.getvalue()


# SARIF ---------------------------------------------------------------------
@pytest.mark.parametrize("target", ["fixtures/hazard_repo", "fixtures/notebook", "fixtures/clean_repo"])
def test_sarif_of_fixtures_is_valid(target):
    result = run_cli("check", "--no-cache", "--output-format", "sarif", target, cwd=REPO)
    assert result.returncode in (0, 1), result.stderr
    document = json.loads(result.stdout)
    assert sarif_errors(document) == []
    got = sorted((r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
                 for r in document["runs"][0]["results"])
    assert got == sorted((f["code"], f["filename"]) for f in lint_json(target, cwd=REPO))


def test_sarif_rules_carry_metadata_and_rule_pages():
    document = json.loads(render("sarif", [finding()]))
    driver = document["runs"][0]["tool"]["driver"]
    assert driver["name"] == "dslint"
    rules = {rule["id"]: rule for rule in driver["rules"]}
    assert set(rules) == set(catalogue.RULES)
    rule = rules["DSL102"]
    assert rule["name"] == "unpicklable-callable"
    assert rule["shortDescription"]["text"] == catalogue.RULES["DSL102"].summary
    assert rule["help"]["markdown"].startswith("# DSL102")
    assert "Can't pickle local object" in rule["help"]["text"]
    assert rule["helpUri"].endswith("DSL102.md")
    (result,) = document["runs"][0]["results"]
    assert driver["rules"][result["ruleIndex"]]["id"] == "DSL102"
    assert result["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "src/train.py", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 70, "startColumn": 20, "endLine": 70, "endColumn": 86},
    }


def test_sarif_fixes_notebook_cells_and_odd_paths_stay_valid():
    fix = Fix("Replace the lambda with a module-level `def`", "safe",
              (Edit(Location(70, 20), Location(70, 86), "collate"), Edit(Location(1, 1), Location(1, 1), "def collate(b):\n    return b\n")))
    findings = [
        finding(fix=fix),
        finding(path="nb/train run.ipynb", cell=5, location=Location(4, 32), end_location=Location(4, 68)),
        finding(path=os.path.abspath("x.py"), code="DSL001", message="Cannot lint this file: syntax error"),
        finding(code="DSL999", message="a code the catalogue does not know"),
    ]
    document = json.loads(render("sarif", findings))
    assert sarif_errors(document) == []
    results = document["runs"][0]["results"]
    assert results[0]["fixes"][0]["artifactChanges"][0]["replacements"][0]["insertedContent"] == {"text": "collate"}
    assert "region" not in results[1]["locations"][0]["physicalLocation"]
    assert results[1]["message"]["text"].startswith("cell 5:4:32: ")
    assert results[1]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "nb/train%20run.ipynb"
    assert results[2]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith("file:///")
    assert "ruleIndex" not in results[3]


def test_related_locations_in_json_and_sarif():
    """Where the pinned loader is built is part of a DSL301 finding (DESIGN: every format
    that can carry it)."""
    hazard = REPO / "fixtures" / "hazard_repo"
    found = [f for f in lint_json(".", cwd=hazard) if f["code"] == "DSL301"]
    assert found and all(f["related"] for f in found)
    built = found[0]["related"][0]
    assert built == {"filename": "train.py", "location": {"row": 64, "column": 20},
                     "end_location": {"row": 71, "column": 6}, "message": "the pinned loader is built here"}
    result = run_cli("check", "--no-cache", "--output-format", "sarif", ".", cwd=hazard)
    document = json.loads(result.stdout)
    assert sarif_errors(document) == []
    (first, *_) = [r for r in document["runs"][0]["results"] if r["ruleId"] == "DSL301"]
    place = first["relatedLocations"][0]
    assert place["message"]["text"] == "the pinned loader is built here"
    assert place["physicalLocation"]["artifactLocation"]["uri"] == "train.py"
    assert place["physicalLocation"]["region"] == {"startLine": 64, "startColumn": 20, "endLine": 71, "endColumn": 6}


# GitHub --------------------------------------------------------------------
def test_github_annotation_format():
    assert render("github", [finding()]) == (
        "::error title=DSL102 (unpicklable-callable),file=src/train.py,line=70,col=20,endLine=70,endColumn=86"
        "::Lambda passed as `collate_fn`\n"
    )


def test_github_escapes_and_severity_and_cells():
    lines = render("github", [
        finding(code="DSL301", message="100% of it\nnext line", path="a,b:c.py"),
        finding(path="nb.ipynb", cell=5, location=Location(4, 32), end_location=Location(4, 68)),
    ]).splitlines()
    assert lines[0] == ("::warning title=DSL301 (pin-without-non-blocking),file=a%2Cb%3Ac.py,"
                        "line=70,col=20,endLine=70,endColumn=86::100%25 of it%0Anext line")
    assert lines[1] == ("::error title=DSL102 (unpicklable-callable),file=nb.ipynb"
                        "::cell 5:4:32: Lambda passed as `collate_fn`")


def test_github_output_of_the_hazard_fixture():
    result = run_cli("check", "--no-cache", "--output-format", "github", "fixtures/hazard_repo", cwd=REPO)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert len(lines) == len(lint_json("fixtures/hazard_repo", cwd=REPO))
    assert all(line.startswith(("::error title=DSL", "::warning title=DSL")) for line in lines)
    assert ("::error title=DSL102 (unpicklable-callable),file=fixtures/hazard_repo/train.py,line=70,col=20,"
            "endLine=70,endColumn=86::Lambda passed as `collate_fn`") in result.stdout


# JUnit ---------------------------------------------------------------------
def test_junit_one_suite_per_file():
    result = run_cli("check", "--no-cache", "--output-format", "junit", "fixtures/hazard_repo", cwd=REPO)
    assert result.returncode == 1
    expected = lint_json("fixtures/hazard_repo", cwd=REPO)
    root = ET.fromstring(result.stdout)
    assert root.tag == "testsuites" and root.get("failures") == str(len(expected))
    suites = {suite.get("name"): suite for suite in root}
    assert set(suites) == {f["filename"] for f in expected}
    cases = suites["fixtures/hazard_repo/train.py"].findall("testcase")
    assert len(cases) == sum(f["filename"].endswith("train.py") for f in expected)
    case = next(c for c in cases if c.get("name").startswith("DSL102"))
    assert case.get("name") == "DSL102 (unpicklable-callable) at fixtures/hazard_repo/train.py:70:20"
    assert case.find("failure").get("message").startswith("Lambda passed as `collate_fn`")


def test_junit_without_findings_is_one_passing_case():
    root = ET.fromstring(render("junit", []))
    assert root.get("failures") == "0"
    (case,) = root.iter("testcase")
    assert case.find("failure") is None


def test_junit_escapes_markup():
    root = ET.fromstring(render("junit", [finding(message="a < b & \"c\"", cell=2, path="n.ipynb")]))
    failure = next(root.iter("failure"))
    assert failure.get("message") == "a < b & \"c\""
    assert failure.text.startswith("n.ipynb:cell 2:70:20: DSL102")


# progress ------------------------------------------------------------------
def _many_files(folder: Path, count: int) -> None:
    folder.mkdir()
    for i in range(count):
        (folder / f"m{i}.py").write_text(f"x = {i}\n", encoding="utf-8")


def test_progress_callback_sees_every_file(tmp_path):
    from dslint import config, engine

    _many_files(tmp_path / "src", 120)
    calls = []
    engine.run([str(tmp_path / "src")], config.Settings(root=str(tmp_path), cache=False, jobs=1),
               progress=lambda done, total: calls.append((done, total)))
    assert calls and calls[-1] == (120, 120)


def test_progress_bar_only_for_many_files():
    from dslint.progress import ProgressBar

    class Tty(io.StringIO):
        def isatty(self):
            return True

    small, big, piped = Tty(), Tty(), io.StringIO()
    for stream, total in ((small, 200), (big, 201), (piped, 5000)):
        with ProgressBar(stream) as bar:
            bar(0, total)
            bar(total, total)
    assert small.getvalue() == "" and piped.getvalue() == ""
    assert "201/201" in big.getvalue()


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_progress_bar_on_a_terminal_and_silent_in_a_pipe(tmp_path):
    _many_files(tmp_path / "src", 230)
    command = [sys.executable, "-m", "dslint", "check", "--no-cache", "src"]
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "100"}
    piped = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120)
    assert piped.returncode == 0 and piped.stderr == ""

    master, slave = pty.openpty()
    chunks = []

    def drain():  # read the terminal while dslint runs, so it never blocks on a full pty
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every writer has closed the terminal
                return
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    process = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    stdout = process.communicate(timeout=120)[0]
    reader.join(timeout=10)
    os.close(master)
    terminal = b"".join(chunks)
    assert process.returncode == 0
    assert b"All checks passed!" in stdout
    assert b"230/230" in terminal


TRICKY = ["a\tb\tc", "x\ry", "bell\x07back\x08vt\x0bff\x0c", "wide 漢字 and \u200b zero-width", "[bold]not markup[/]",
          "trailing   ", "esc \x1b[31m kept", "\t"]


@pytest.mark.parametrize("text", TRICKY)
def test_plain_output_is_what_rich_writes_to_a_pipe(text, tmp_path):
    """Outside a terminal the text reporter writes lines itself (rich is not imported); they
    must be exactly what rich's console writes to a file that is not a terminal."""
    from dslint.reporters.text import _Plain, _Styled

    source = tmp_path / "x.py"
    source.write_text(f"x = 1  # {text}\nloader = 2\n")
    item = Finding("DSL101", f"message {text}", str(source), Location(1, 3), Location(1, 4))
    outputs = []
    for writer in (_Plain, _Styled):
        out = io.StringIO()
        line = [(f"{source}:1:3: ", "bold"), ("DSL101", "bold red"), (f" message {text}", None)]
        w = writer(out)
        w.line(line)
        w.line([(f"1 | x = 1  # {text}", "blue"), (text, None)])
        w.line()
        outputs.append(out.getvalue())
    assert outputs[0] == outputs[1]
    rendered = io.StringIO()
    get("full")([item], rendered, sources={})
    assert rendered.getvalue().startswith(f"{source}:1:3: DSL101 message ")
