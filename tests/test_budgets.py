"""Budgets, not crashes: one input too deep to read is one DSL001, and the run goes on."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from .conftest import lint_json, run_cli

HAZARD = (
    "from torch.utils.data import DataLoader\n\n"
    "def main(ds):\n"
    "    return DataLoader(ds, persistent_workers=True)\n"
)
DEPTH = 100_000


@pytest.fixture
def deep_notebook_tree(tmp_path):
    nested = "[" * DEPTH + "]" * DEPTH
    (tmp_path / "deep.ipynb").write_text(
        '{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": ["import torch\\n"]}],'
        f' "metadata": {{"junk": {nested}}}, "nbformat": 4, "nbformat_minor": 5}}\n'
    )
    (tmp_path / "bad.py").write_text(HAZARD)
    return tmp_path


def test_deep_notebook_json_is_one_dsl001_in_the_cli(deep_notebook_tree):
    found = lint_json(".", cwd=deep_notebook_tree)
    got = sorted((f["filename"], f["code"]) for f in found)
    assert got == [("bad.py", "DSL201"), ("deep.ipynb", "DSL001")]
    (deep,) = [f for f in found if f["code"] == "DSL001"]
    assert "nested" in deep["message"]


def test_deep_notebook_json_does_not_crash_the_flake8_plugin(deep_notebook_tree):
    pytest.importorskip("flake8")
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "DSL", "."],
        cwd=deep_notebook_tree, capture_output=True, text=True, timeout=300, env=dict(os.environ),
    )
    assert "Traceback" not in result.stderr and "RecursionError" not in result.stderr, result.stderr
    assert result.returncode == 1
    assert result.stdout.startswith("./bad.py:4:27: DSL201"), result.stdout


def test_file_over_the_fix_budget_is_checked_without_a_rewrite_tree(tmp_path):
    """A plain check plans no fix for a file too big to rewrite (a LibCST tree of 10 MB took
    33 s and 1 GB; ``ast`` 1 s): the finding is reported without a fix, and --fix says why
    it leaves the file alone."""
    from dslint.fixes.apply import FIX_BUDGET_BYTES

    cv2_hazard = (
        "import cv2\nfrom torch.utils.data import DataLoader, Dataset\n\n\n"
        "class Frames(Dataset):\n    def __getitem__(self, i):\n        return cv2.imread(str(i))\n\n\n"
        "def main():\n    return DataLoader(Frames(), num_workers=2)\n"
    )
    filler = "".join(f'S{i} = "{"x" * 90}"\n' for i in range(FIX_BUDGET_BYTES // 96 + 100))
    big = tmp_path / "big.py"
    big.write_text(cv2_hazard + filler)
    (tmp_path / "small.py").write_text(cv2_hazard)
    found = {f["filename"]: f for f in lint_json(".", cwd=tmp_path)}
    assert found["big.py"]["code"] == "DSL103" and found["big.py"]["fix"] is None
    assert found["small.py"]["fix"]["applicability"] == "safe"
    before = big.read_bytes()
    result = run_cli("check", "--no-cache", "--fix", ".", cwd=tmp_path)
    assert result.returncode == 1
    assert f"big.py: not fixed: {len(before) // 1024} KiB is more than dslint rewrites" in result.stderr
    assert big.read_bytes() == before
    assert "cv2.setNumThreads(0)" in (tmp_path / "small.py").read_text()


def test_plain_check_never_builds_a_libcst_tree(tmp_path):
    """A plain (text) check of files with fixable findings plans no fix: LibCST is never
    imported, and the "fixable" count still shows (it comes from the rules' metadata)."""
    from .conftest import FIXTURES

    probe = (
        "import sys\n"
        "from dslint import cli\n"
        "try:\n"
        "    cli.main(['check', '--no-cache', sys.argv[1]])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('libcst loaded:', 'libcst' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", probe, str(FIXTURES / "hazard_repo")], capture_output=True,
                            text=True, cwd=tmp_path)
    assert "Found 6 problems" in result.stdout and "fixable with `--fix`" in result.stdout, result.stdout + result.stderr
    assert result.stdout.rstrip().endswith("libcst loaded: False"), result.stdout


def _resolver(tmp_path, source):
    """The resolver of a one-module project, and the module's key."""
    from dslint import engine
    from dslint.model.project import Project, Sources
    from dslint.model.resolver import Resolver

    path = tmp_path / "chain.py"
    path.write_text(source)
    result, _ = engine.analyze(str(path), force=True)
    project = Project.build([(str(path), result.summary, str(tmp_path))], Sources(engine.lazy_summary(), engine.source_text))
    (key,) = project.modules
    return Resolver(project), key


def _module_value(resolver, key, name):
    return resolver.project.summary(key).bindings[name][-1].value


def test_a_question_over_its_budget_answers_unknown(tmp_path, monkeypatch):
    """Each question a rule asks may evaluate ``FUEL`` new values: the caps on each step
    do not bound their product (one loop of torch's own ``_dynamo`` reached 3.3 million);
    past the budget the answer is unknown, which never becomes a finding by itself."""
    from dslint.model import resolver as resolver_module
    from dslint.model.objects import Lit, Top

    source = "a0 = 1\n" + "".join(f"a{i} = a{i - 1}\n" for i in range(1, 40))
    resolver, key = _resolver(tmp_path, source)
    assert [f.obj for f in resolver.eval(_module_value(resolver, key, "a39"), resolver.context(key))] == [Lit(1)]

    monkeypatch.setattr(resolver_module, "FUEL", 10)
    resolver, key = _resolver(tmp_path, source)
    answer = [f.obj for f in resolver.eval(_module_value(resolver, key, "a39"), resolver.context(key))]
    assert answer and all(isinstance(obj, Top) for obj in answer)
    resolver.eval(_module_value(resolver, key, "a5"), resolver.context(key))  # a new question: a new budget
    assert [f.obj for f in resolver.eval(_module_value(resolver, key, "a5"), resolver.context(key))] == [Lit(1)]


def test_displays_built_from_displays_are_read_once_each(tmp_path, monkeypatch):
    """``p30 = (*p29, *p29)``: each display is read once (memoised), not once per way to it
    (2**30 reads: ``path = (*path, key)`` in recursive code hung a run over torch's sources)."""
    from dslint.model.objects import Lit
    from dslint.model.resolver import Resolver

    source = "p0 = (1,)\n" + "".join(f"p{i} = (*p{i - 1}, *p{i - 1})\n" for i in range(1, 31))
    resolver, key = _resolver(tmp_path, source)
    reads = []
    written = Resolver._written_items

    def counted(self, container):
        reads.append(container)
        return written(self, container)

    monkeypatch.setattr(Resolver, "_written_items", counted)
    (display,) = resolver.eval(_module_value(resolver, key, "p30"), resolver.context(key))
    assert [f.obj for f in resolver.iterate(display)] == [Lit(1)]
    assert len(reads) <= 40  # linear in the displays (a display with no starred item is not memoised)


def test_an_iterator_that_wraps_itself_is_not_an_internal_error(tmp_path):
    """A recursive generator rebinding its parameter to ``iter()`` of it (the stdlib's
    ``test_set.powerset``) makes an iteration wrapper that wraps itself: DSL101's test for
    batch items follows wrappers a bounded number deep (it recursed until RecursionError,
    and the whole run ended in an internal error)."""
    (tmp_path / "walk.py").write_text(
        "from torch.utils.data import DataLoader\n\n\n"
        "def powerset(items):\n"
        "    items = iter(items)\n"
        "    try:\n"
        "        first = frozenset([next(items)])\n"
        "        for subset in powerset(items):\n"
        "            yield subset\n"
        "            yield subset | first\n"
        "    except StopIteration:\n"
        "        yield frozenset()\n\n\n"
        "def main(loader: DataLoader):\n"
        "    for batch in loader:\n"
        "        print(batch, list(powerset(range(3))))\n"
        "    return DataLoader(batch, persistent_workers=True)\n"
    )
    found = lint_json(".", cwd=tmp_path)
    assert [(f["filename"], f["location"]["row"], f["code"]) for f in found] == [("walk.py", 18, "DSL201")]
