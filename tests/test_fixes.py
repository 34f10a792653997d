"""``--fix``, ``--unsafe-fixes``, ``--diff``, ``--show-fixes`` and fixes in JSON, through the real CLI."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dslint import rule_pages

from .conftest import FIXTURES, RULES, lint_json, run_cli

FIXABLE = ("DSL101", "DSL102", "DSL103", "DSL104", "DSL201", "DSL202", "DSL301", "DSL403")


def _page_cases():
    for page in sorted(RULES.glob("DSL*.md")):
        if page.stem not in FIXABLE:
            continue
        examples = rule_pages.examples(page.read_text(encoding="utf-8"))
        for number, example in enumerate(examples):
            if example["kind"] != "bad":
                continue
            following = examples[number + 1] if number + 1 < len(examples) else None
            fixed = following["code"] if following and following["kind"] == "fixed" else None
            yield pytest.param(page.stem, example["code"], fixed, id=f"{page.stem}-{number + 1}")


LABELS = ("safe", "unsafe", "no-fix")


def _labelled_cases():
    for page in sorted(RULES.glob("DSL*.md")):
        if page.stem not in FIXABLE:
            continue
        for number, example in enumerate(rule_pages.examples(page.read_text(encoding="utf-8"))):
            labels = [t for t in example["tags"] if t in LABELS]
            if example["kind"] == "bad" and labels:
                yield pytest.param(page.stem, example["code"], labels[0], id=f"{page.stem}-{number + 1}-{labels[0]}")


def test_pages_label_their_fix_safety_examples():
    labelled = {(code, label) for code, _, label in (p.values for p in _labelled_cases())}
    for code in FIXABLE:
        assert {label for c, label in labelled if c == code}, f"{code}.md labels none of its bad examples"


def test_catalogue_fix_safety_matches_the_pages_labels():
    """``dslint rules``, SARIF and the README table read the catalogue: it says what the
    fixers offer (DSL403's fix became unsafe while the catalogue still said safe)."""
    from dslint import catalogue

    labels = {}
    for code, _, label in (p.values for p in _labelled_cases()):
        if label != "no-fix":
            labels.setdefault(code, set()).add(label)
    for code in FIXABLE:
        expected = "sometimes" if labels[code] == {"safe", "unsafe"} else labels[code].pop()
        assert catalogue.RULES[code].fix == expected, code


@pytest.mark.parametrize("code,bad,label", list(_labelled_cases()))
def test_page_example_fix_is_offered_as_labelled(code, bad, label, tmp_path):
    (tmp_path / "example.py").write_text(bad, encoding="utf-8")
    findings = [f for f in lint_json("--select", code, "example.py", cwd=tmp_path) if f["code"] == code]
    assert findings, f"{code}: the example is not reported"
    offered = {f["fix"]["applicability"] if f["fix"] else "no-fix" for f in findings}
    assert offered == {label}, f"{code}: the page says {label}, the fix is offered as {offered}"
    if label == "no-fix":
        _fix("--select", code, "example.py", cwd=tmp_path)
        assert (tmp_path / "example.py").read_text(encoding="utf-8") == bad


def _fix(*args: str, cwd) -> subprocess.CompletedProcess:
    return run_cli("check", "--no-cache", "--fix", "--unsafe-fixes", *args, cwd=cwd)


@pytest.mark.parametrize("code,bad,fixed", list(_page_cases()))
def test_rule_page_example_fixes(code, bad, fixed, tmp_path):
    path = tmp_path / "example.py"
    path.write_text(bad, encoding="utf-8")
    first = _fix("--select", code, "example.py", cwd=tmp_path)
    assert first.returncode in (0, 1), first.stderr
    after = path.read_text(encoding="utf-8")
    compile(after, str(path), "exec")
    if fixed is not None:
        assert after == fixed, f"{code}: the fix of the bad example differs from the page's fixed example"
        assert first.returncode == 0, first.stdout
    # second run: nothing changes, and what remains has no fix to offer
    second = run_cli("check", "--no-cache", "--fix", "--unsafe-fixes", "--select", code,
                     "--output-format", "json", "example.py", cwd=tmp_path)
    assert path.read_text(encoding="utf-8") == after
    remaining = json.loads(second.stdout)
    assert all(f["fix"] is None for f in remaining), remaining
    if fixed is not None:
        assert [f["code"] for f in remaining] == []


def _copy_hazard_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "hazard_repo"
    shutil.copytree(FIXTURES / "hazard_repo", repo)
    return repo


def _snapshot(repo: Path):
    return {p.relative_to(repo).as_posix(): p.read_bytes() for p in sorted(repo.rglob("*.py"))}


@pytest.fixture(scope="module")
def fixed_hazard_repo(tmp_path_factory):
    repo = _copy_hazard_repo(tmp_path_factory.mktemp("fixed"))
    result = _fix("--show-fixes", ".", cwd=repo)
    assert result.returncode in (0, 1), result.stderr
    return repo, result


def test_hazard_repo_fix_leaves_nothing_fixable(fixed_hazard_repo):
    repo, result = fixed_hazard_repo
    assert "Fixed " in result.stdout and "× DSL201 (persistent-without-workers)" in result.stdout
    assert "fixed," in result.stdout and "remaining" in result.stdout
    for path in repo.rglob("*.py"):
        compile(path.read_text(encoding="utf-8"), str(path), "exec")
    remaining = lint_json(".", cwd=repo)
    assert [f for f in remaining if f["fix"] is not None] == []
    assert not {f["code"] for f in remaining} & set(FIXABLE), remaining
    before = _snapshot(repo)
    again = _fix(".", cwd=repo)
    assert again.returncode in (0, 1), again.stderr
    assert _snapshot(repo) == before, "a second --fix changed files"


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_fixed_train_script_runs(fixed_hazard_repo, method, tmp_path):
    repo, _ = fixed_hazard_repo
    driver = tmp_path / "drive.py"
    driver.write_text(
        textwrap.dedent(
            f"""
            import runpy, sys
            import torch.multiprocessing as mp
            mp.set_start_method({method!r}, force=True)
            sys.path.insert(0, {str(repo)!r})
            sys.argv = ["train.py", "--epochs", "1", "--batch-size", "8"]
            runpy.run_path({str(repo / 'train.py')!r}, run_name="__main__")
            """
        ),
        encoding="utf-8",
    )
    result = subprocess.run([sys.executable, str(driver)], cwd=repo, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "epoch 0: loss" in result.stdout
    assert "frames flagged as defective" in result.stdout


def test_diff_prints_and_writes_nothing(tmp_path):
    repo = _copy_hazard_repo(tmp_path)
    before = _snapshot(repo)
    result = run_cli("check", "--no-cache", "--diff", ".", cwd=repo)
    assert result.returncode == 1
    assert "--- train.py" in result.stdout and "+++ train.py" in result.stdout
    assert "+            images = images.to(device, non_blocking=True)" in result.stdout
    assert "Would fix" in result.stderr
    assert '+if __name__ == "__main__":' not in result.stdout  # unsafe fixes need --unsafe-fixes
    assert _snapshot(repo) == before
    unsafe = run_cli("check", "--no-cache", "--diff", "--unsafe-fixes", ".", cwd=repo)
    assert '+if __name__ == "__main__":' in unsafe.stdout
    assert _snapshot(repo) == before
    clean = run_cli("check", "--no-cache", "--diff", str(FIXTURES / "clean_repo"), cwd=repo)
    assert clean.returncode == 0 and clean.stdout == ""


def _apply_edits(text: str, edits) -> str:
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(loc):
        return starts[loc["row"] - 1] + loc["column"] - 1

    for edit in sorted(edits, key=lambda e: (e["location"]["row"], e["location"]["column"]), reverse=True):
        text = text[: offset(edit["location"])] + edit["content"] + text[offset(edit["end_location"]) :]
    return text


@pytest.mark.parametrize("code", ["DSL201", "DSL101", "DSL102"])
def test_json_carries_fix_edits_that_reproduce_the_fix(code, tmp_path):
    examples = rule_pages.examples(rule_pages.page(code))
    bad = next(e["code"] for e, n in zip(examples, examples[1:]) if e["kind"] == "bad" and n["kind"] == "fixed")
    fixed = next(n["code"] for e, n in zip(examples, examples[1:]) if e["kind"] == "bad" and n["kind"] == "fixed")
    (tmp_path / "example.py").write_text(bad, encoding="utf-8")
    findings = lint_json("--select", code, "example.py", cwd=tmp_path)
    assert findings and findings[0]["fix"] is not None
    fix = findings[0]["fix"]
    assert fix["applicability"] == ("unsafe" if code == "DSL101" else "safe")
    assert fix["message"] and fix["edits"]
    assert _apply_edits(bad, fix["edits"]) == fixed
    assert (tmp_path / "example.py").read_text(encoding="utf-8") == bad  # reporting writes nothing


def test_text_summary_counts_fixable(tmp_path):
    repo = _copy_hazard_repo(tmp_path)
    result = run_cli("check", "--no-cache", ".", cwd=repo)
    assert "fixable with `--fix`" in result.stdout
    assert "more fixable with `--fix --unsafe-fixes`" in result.stdout


def test_text_summary_counts_only_the_fixes_a_run_would_make(tmp_path):
    """A plain check counts fixes without planning them: a `.cuda(0, False)` copy (its
    `non_blocking` given by position, where a keyword would be given twice) is not counted,
    and a DSL102 lambda is "may be fixable" until planned; planned (`--diff`), the same
    findings give the exact kinds."""
    (tmp_path / "train.py").write_text(
        "import torch\nfrom torch.utils.data import DataLoader, TensorDataset\n\n\n"
        "def main():\n"
        "    loader = DataLoader(TensorDataset(torch.zeros(8)), num_workers=2, pin_memory=True,\n"
        "                        collate_fn=lambda items: items)\n"
        "    for (x,) in loader:\n"
        "        x.type(torch.cuda.FloatTensor)\n"
        "    for (x,) in loader:\n"
        "        x.cuda(0, False)\n\n\n"
        "if __name__ == \"__main__\":\n    main()\n",
        encoding="utf-8")
    plain = run_cli("check", "--no-cache", "train.py", cwd=tmp_path)
    assert "Found 3 problems." in plain.stdout, plain.stdout
    assert "[*] 1 fixable with `--fix`." in plain.stdout, plain.stdout
    assert "1 more may be fixable" in plain.stdout and "unsafe-fixes`." not in plain.stdout, plain.stdout
    planned = run_cli("check", "--no-cache", "--diff", "train.py", cwd=tmp_path)
    assert "Would fix 2 errors." in planned.stderr, planned.stderr  # the lambda reads nothing: safe
    assert "x.type(torch.cuda.FloatTensor, non_blocking=True)\n" in planned.stdout  # Tensor.type takes it
    assert "x.cuda(0, False)\n" in planned.stdout  # unchanged, as counted


def test_text_summary_counts_no_fix_for_a_module_level_handle(tmp_path):
    """DSL104's fixer rewrites handles opened in ``__init__`` only: a handle opened at module
    level was counted as "1 more fixable with --unsafe-fixes" that no run would fix."""
    (tmp_path / "train.py").write_text(
        "from torch.utils.data import DataLoader, Dataset\n\n"
        "RECORDS = open(\"records.bin\", \"rb\")\n\n\n"
        "class Records(Dataset):\n"
        "    def __len__(self):\n        return 8\n\n"
        "    def __getitem__(self, index):\n        RECORDS.seek(index)\n        return RECORDS.read(1)\n\n\n"
        "if __name__ == \"__main__\":\n    for batch in DataLoader(Records(), num_workers=2):\n        pass\n",
        encoding="utf-8")
    result = run_cli("check", "--no-cache", ".", cwd=tmp_path)
    assert "train.py:3:1: DSL104" in result.stdout and "Found 1 problem" in result.stdout, result.stdout
    assert "fixable" not in result.stdout
    planned = json.loads(run_cli("check", "--no-cache", "--output-format", "json", ".", cwd=tmp_path).stdout)
    assert [f["fix"] for f in planned] == [None]


SHARED_DICT = (
    "from torch.utils.data import DataLoader\n\n"
    "BASE = dict(batch_size=32, num_workers=0, persistent_workers=True, prefetch_factor=2)\n\n\n"
    "def main(ds):\n"
    "    for x in DataLoader(ds, **{**BASE, \"num_workers\": 4}):\n        pass\n"
    "    for x in DataLoader(ds, **BASE):\n        pass\n\n\n"
    "if __name__ == \"__main__\":\n    main([1])\n"
)


@pytest.mark.parametrize("shared", [True, False])
def test_keyword_in_a_dict_other_loaders_copy_is_not_rewritten(shared, tmp_path):
    """DSL201/202 report the keywords where `BASE` holds them; removing them there would also
    take persistence and prefetching from the four-worker loader copying `BASE`, so no fix
    is offered; with `BASE` given to one loader only, the dict is fixed."""
    text = SHARED_DICT if shared else SHARED_DICT.replace(
        "    for x in DataLoader(ds, **{**BASE, \"num_workers\": 4}):\n        pass\n", "")
    (tmp_path / "train.py").write_text(text, encoding="utf-8")
    found = json.loads(run_cli("check", "--no-cache", "--output-format", "json", ".", cwd=tmp_path).stdout)
    assert sorted((f["code"], f["location"]["row"]) for f in found) == [("DSL201", 3), ("DSL202", 3)]
    assert all((f["fix"] is None) == shared for f in found), found
    _fix(".", cwd=tmp_path)
    after = (tmp_path / "train.py").read_text(encoding="utf-8")
    assert (after == text) == shared
    if not shared:
        assert "BASE = dict(batch_size=32, num_workers=0)\n" in after, after


def test_config_fix_true(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.dslint]\nfix = true\n", encoding="utf-8")
    source = textwrap.dedent(
        """\
        from torch.utils.data import DataLoader


        def make(ds):
            return DataLoader(ds, batch_size=4, persistent_workers=True)
        """
    )
    (tmp_path / "loaders.py").write_text(source, encoding="utf-8")
    result = run_cli("check", "--no-cache", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stdout
    assert "DataLoader(ds, batch_size=4)" in (tmp_path / "loaders.py").read_text(encoding="utf-8")
    assert "1 fixed, 0 remaining" in result.stdout


def test_encoding_newlines_permissions_and_untouched_bytes(tmp_path):
    source = (
        "# -*- coding: latin-1 -*-\r\n"
        "from torch.utils.data import DataLoader  # caf\xe9\r\n"
        "\r\n"
        "\r\n"
        "def make(ds, n):\r\n"
        "    # un commentaire \xe0 garder\r\n"
        "    return DataLoader(ds,   batch_size=4,\r\n"
        "                      num_workers=0,  persistent_workers=True)  # fin\r\n"
    )
    path = tmp_path / "latin.py"
    path.write_bytes(source.encode("latin-1"))
    os.chmod(path, 0o751)
    result = _fix("latin.py", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    expected = source.replace(",  persistent_workers=True", "")  # a literal zero count: the keyword goes
    assert path.read_bytes() == expected.encode("latin-1")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o751
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".dslint-")]


def test_several_fixes_in_one_file_compose(tmp_path):
    source = textwrap.dedent(
        '''\
        """A notebook-style script."""
        import sys

        import torch
        from torch.utils.data import DataLoader, Dataset, TensorDataset

        SCALE = 2.0
        offset = float(len(sys.argv))  # read by the dataset


        class Shifted(Dataset):
            def __init__(self, base):
                self.base = base

            def __len__(self):
                return len(self.base)

            def __getitem__(self, index):
                return self.base[index][0] + offset


        data = Shifted(TensorDataset(torch.randn(32, 4)))
        loader = DataLoader(data, batch_size=8, num_workers=2, pin_memory=True,
                            collate_fn=lambda b: torch.stack(b) * SCALE)
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        for batch in loader:
            batch = batch.to(device)
            print(tuple(batch.shape))
        '''
    )
    path = tmp_path / "script.py"
    path.write_text(source, encoding="utf-8")
    result = _fix("--show-fixes", "script.py", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    after = path.read_text(encoding="utf-8")
    assert "def collate_fn(b):\n    return torch.stack(b) * SCALE\n" in after
    assert "batch.to(device, non_blocking=True)" in after
    assert 'if __name__ == "__main__":\n    main()\n' in after
    assert after.startswith(source.split("\n\n\nclass")[0])  # untouched head, offset stays global
    assert "    " + "\n" not in after.replace("    \n    ", "")  # no whitespace-only lines
    run = subprocess.run(
        [sys.executable, "-c",
         "import runpy, torch.multiprocessing as mp; mp.set_start_method('spawn', force=True); "
         "runpy.run_path('script.py', run_name='__main__')"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.count("(8, 4)") == 4
    again = _fix("script.py", cwd=tmp_path)
    assert path.read_text(encoding="utf-8") == after and again.returncode == 0


def test_dsl102_closure_is_unsafe_and_uses_partial(tmp_path):
    source = textwrap.dedent(
        """\
        import torch
        from torch.utils.data import DataLoader, TensorDataset


        def main(pad=0):
            collate_fn = None
            loader = DataLoader(TensorDataset(torch.zeros(4)), num_workers=2,
                                collate_fn=lambda batch: [pad for _ in batch])
            return loader, collate_fn
        """
    )
    path = tmp_path / "closure.py"
    path.write_text(source, encoding="utf-8")
    safe_only = run_cli("check", "--no-cache", "--fix", "closure.py", cwd=tmp_path)
    assert path.read_text(encoding="utf-8") == source
    assert "1 more fixable with `--fix --unsafe-fixes`" in safe_only.stdout
    _fix("closure.py", cwd=tmp_path)
    after = path.read_text(encoding="utf-8")
    assert after.startswith("import functools\n\nimport torch\n")  # a section of its own, as isort has it
    assert "def collate_fn_2(batch, pad):\n    return [pad for _ in batch]\n" in after
    assert "collate_fn=functools.partial(collate_fn_2, pad=pad))" in after
    namespace = {}
    exec(compile(after, "closure.py", "exec"), namespace)
    loader, _ = namespace["main"](pad=7)
    import pickle

    assert pickle.loads(pickle.dumps(loader.collate_fn.keywords)) == {"pad": 7}


@pytest.mark.parametrize("imports,expected", [
    ("import os\nimport sys\n\nimport torch\n", "import functools\nimport os\nimport sys\n\nimport torch\n"),
    ("import argparse\n\nimport torch\n", "import argparse\nimport functools\n\nimport torch\n"),
    ("from pathlib import Path\n\nimport torch\n", "import functools\nfrom pathlib import Path\n\nimport torch\n"),
    ("import argparse\nimport datetime\nimport numpy as np\nimport os\n\nimport torch\n",  # sections mixed
     "import argparse\nimport datetime\nimport functools\nimport numpy as np\nimport os\n\nimport torch\n"),
])
def test_functools_import_goes_where_isort_puts_it(imports, expected, tmp_path):
    source = imports + textwrap.dedent(
        """\
        from torch.utils.data import DataLoader


        def make(ds, pad=0):
            return DataLoader(ds, num_workers=2, collate_fn=lambda batch: [pad, batch, os, sys, Path])
        """
    ).replace(", os, sys, Path", "".join(f", {n}" for n in ("os", "sys", "Path") if n in imports))
    path = tmp_path / "loaders.py"
    path.write_text(source, encoding="utf-8")
    before = _style_messages(tmp_path, "loaders.py")
    _fix("--select", "DSL102", "loaders.py", cwd=tmp_path)
    after = path.read_text(encoding="utf-8")
    assert after.startswith(expected), after
    assert [m for m in _style_messages(tmp_path, "loaders.py") if m not in before] == []


def test_unparseable_result_is_never_written(tmp_path):
    import libcst as cst

    from dslint.fixes import apply, base

    path = tmp_path / "m.py"
    path.write_text("x = 1\n", encoding="utf-8")
    context = base.FileContext(str(path), path.read_bytes(), "x = 1\n", None)
    plan = base.FixPlan("DSL000", "break it", "safe")
    plan.on_stmt(context.module.body[0], lambda core: [cst.parse_statement("return 1\n")])
    assert apply.render(context, [plan]) is None
    module, kept = apply.combined(context, [plan])
    assert module is None and kept == []


def test_text_edits_are_minimal():
    from dslint.fixes.apply import text_edits

    edits = text_edits("a = f(x, y=True)\nb = 2\n", "a = f(x)\nb = 2\n")
    assert len(edits) == 1
    edit = edits[0]
    assert (edit.location.row, edit.location.column) == (1, 8)
    assert (edit.end_location.row, edit.end_location.column) == (1, 16)
    assert edit.content == ""


DSL103_LAYOUTS = {
    "import-block": '''\
        """Frames of a clip."""
        import os

        import cv2
        from torch.utils.data import DataLoader, Dataset

        try:
            import lmdb
        except ImportError:
            lmdb = None
        import json

        __all__ = ["Frames"]


        class Frames(Dataset):
            def __len__(self):
                return 4

            def __getitem__(self, index):
                return json.dumps(cv2.imread(os.path.join("clips", str(index)))), lmdb


        def make():
            return DataLoader(Frames(), batch_size=2, num_workers=2)
        ''',
    "alias-and-code-after": '''\
        import cv2 as cv
        from torch.utils.data import DataLoader, Dataset
        SIZE = 4


        class Frames(Dataset):
            def __len__(self):
                return SIZE

            def __getitem__(self, index):
                return cv.imread(str(index))


        loader = DataLoader(Frames(), num_workers=2)
        ''',
    "inside-try": '''\
        from torch.utils.data import DataLoader, Dataset

        try:
            import cv2
            import numpy as np
        except ImportError:
            cv2 = np = None


        class Frames(Dataset):
            def __len__(self):
                return 4

            def __getitem__(self, index):
                return np.asarray(cv2.imread(str(index)))


        def make():
            return DataLoader(Frames(), num_workers=2)
        ''',
    "from-import": '''\
        from cv2 import IMREAD_COLOR, imread
        from torch.utils.data import DataLoader, Dataset


        class Frames(Dataset):
            def __len__(self):
                return 4

            def __getitem__(self, index):
                import cv2

                return cv2.flip(imread(str(index), IMREAD_COLOR), 0)


        def make():
            return DataLoader(Frames(), num_workers=2)
        ''',
}


def _style_messages(tmp_path, name):
    """flake8's E/W/F messages and, when ruff is installed, ruff's E402 and I001."""
    flake8 = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select", "E,W,F",
                             "--max-line-length", "120", name], cwd=tmp_path, capture_output=True, text=True)
    found = [line.split(":", 3)[-1].strip() for line in flake8.stdout.splitlines()]
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if os.path.exists(ruff):
        checked = subprocess.run([ruff, "check", "--isolated", "--select", "E402,I001", "--output-format", "concise",
                                  name], cwd=tmp_path, capture_output=True, text=True)
        found += [line.split(":", 3)[-1].strip() for line in checked.stdout.splitlines() if name in line]
    return found


@pytest.mark.parametrize("layout", sorted(DSL103_LAYOUTS))
def test_dsl103_fix_keeps_flake8_and_ruff_quiet(layout, tmp_path):
    source = textwrap.dedent(DSL103_LAYOUTS[layout])
    path = tmp_path / "frames.py"
    path.write_text(source, encoding="utf-8")
    before = _style_messages(tmp_path, "frames.py")
    result = run_cli("check", "--no-cache", "--fix", "--select", "DSL103", "frames.py", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    after = path.read_text(encoding="utf-8")
    assert "setNumThreads(0)" in after and after != source
    new = [message for message in _style_messages(tmp_path, "frames.py") if message not in before]
    assert new == [], after


def test_dsl103_call_follows_the_whole_import_block(tmp_path):
    path = tmp_path / "frames.py"
    path.write_text(textwrap.dedent(DSL103_LAYOUTS["import-block"]), encoding="utf-8")
    run_cli("check", "--no-cache", "--fix", "--select", "DSL103", "frames.py", cwd=tmp_path)
    assert "import json\n\ncv2.setNumThreads(0)\n\n__all__" in path.read_text(encoding="utf-8")


def test_ruff_is_used_when_installed():
    """The style test above runs ruff whenever it is importable in this environment."""
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not os.path.exists(ruff):
        pytest.skip("ruff is not installed")
    version = subprocess.run([ruff, "--version"], capture_output=True, text=True)
    assert version.returncode == 0


def _written_diff(before, after) -> str:
    """The unified diff, in dslint's format, of what a fix wrote."""
    import difflib

    out = []
    for name in sorted(after):
        if before.get(name) == after[name]:
            continue
        old = before[name].decode("utf-8").splitlines(keepends=True)
        new = after[name].decode("utf-8").splitlines(keepends=True)
        for line in difflib.unified_diff(old, new, fromfile=name, tofile=name):
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


@pytest.mark.parametrize("tree", ["hazard_repo", "fix_equivalence/cases/d202_with_d201_same_call"])
def test_diff_shows_exactly_what_fix_writes(tree, tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / tree, repo)
    before = _snapshot(repo)
    diff = run_cli("check", "--no-cache", "--diff", "--unsafe-fixes", "--show-fixes", ".", cwd=repo)
    assert _snapshot(repo) == before
    fix = run_cli("check", "--no-cache", "--fix", "--unsafe-fixes", "--show-fixes", ".", cwd=repo)
    assert fix.returncode in (0, 1), fix.stderr
    assert diff.stdout == _written_diff(before, _snapshot(repo)) != ""
    would = [line for line in diff.stderr.splitlines() if line.startswith("Would fix ")][0]
    assert would.replace("Would fix", "Fixed").rstrip(":.") == fix.stdout.splitlines()[0].rstrip(":")


def test_persistent_workers_with_a_literal_zero_count_is_removed_not_tied(tmp_path):
    """``num_workers=0`` written out: the advice and the fix drop the keyword (never ``0 > 0``)."""
    path = tmp_path / "lit.py"
    path.write_text("from torch.utils.data import DataLoader\n\n\ndef main(ds):\n"
                    "    for b in DataLoader(ds, num_workers=0, persistent_workers=True):\n        print(b)\n",
                    encoding="utf-8")
    [found] = lint_json("--select", "DSL201", "lit.py", cwd=tmp_path)
    assert found["message"].endswith(": remove it"), found["message"]
    assert found["fix"]["message"] == "Remove `persistent_workers=...`"
    _fix("--select", "DSL201", "lit.py", cwd=tmp_path)
    assert "DataLoader(ds, num_workers=0):" in path.read_text(encoding="utf-8")


def test_persistent_workers_from_a_setting_keeps_deciding_with_workers(tmp_path):
    """A value other than ``True`` (a setting the user chose) is kept: ``v and workers > 0``,
    so a run with workers and ``v`` false still has no persistent workers; the fixed file is
    silent."""
    path = tmp_path / "cfg.py"
    path.write_text("from torch.utils.data import DataLoader\n\n\n"
                    "def main(ds, workers=0, keep=True):\n"
                    "    for b in DataLoader(ds, num_workers=workers, persistent_workers=keep):\n        print(b)\n",
                    encoding="utf-8")
    [found] = lint_json("--select", "DSL201", "cfg.py", cwd=tmp_path)
    assert found["message"].endswith("use `persistent_workers=keep and workers > 0`"), found["message"]
    _fix("--select", "DSL201", "cfg.py", cwd=tmp_path)
    fixed = path.read_text(encoding="utf-8")
    assert "DataLoader(ds, num_workers=workers, persistent_workers=keep and workers > 0):" in fixed
    assert lint_json("--select", "DSL201", "cfg.py", cwd=tmp_path) == []


def test_pool_initializer_lambda_is_hoisted_as_init_process(tmp_path):
    """DSL102 on a pool's ``initializer=`` (pickled with each spawn/forkserver process):
    the lambda becomes a module-level ``init_process``, and the fixed file is silent."""
    path = tmp_path / "pool.py"
    path.write_text(textwrap.dedent(
        """\
        import multiprocessing as mp
        import os


        def main(paths):
            with mp.get_context("spawn").Pool(4, initializer=lambda: os.nice(1)) as pool:
                return pool.map(len, paths)
        """), encoding="utf-8")
    _fix("--select", "DSL102", "pool.py", cwd=tmp_path)
    after = path.read_text(encoding="utf-8")
    assert "def init_process():\n    return os.nice(1)\n" in after and "initializer=init_process)" in after, after
    assert lint_json("--select", "DSL102", "pool.py", cwd=tmp_path) == []


def _load(path: Path) -> dict:
    namespace = {"__name__": "fixed_module"}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    return namespace


def test_dsl403_fix_guards_a_sampler_that_may_be_none(tmp_path):
    """A sampler made only for distributed runs (`... if distributed else None`) gets
    `if sampler is not None:` around its `set_epoch`: the other runs keep working, even
    though the one caller in the file passes `distributed=True`."""
    pytest.importorskip("torch")
    path = tmp_path / "train.py"
    shutil.copy(FIXTURES / "rules" / "DSL403" / "bad_sampler_only_when_distributed.py", path)
    before = _load(path)["train"](distributed=True)
    assert before[0] == before[1] == before[2]  # the hazard: one order for every epoch
    result = _fix("--select", "DSL403", "train.py", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    fixed = path.read_text(encoding="utf-8")
    assert "        if sampler is not None:\n            sampler.set_epoch(epoch)\n" in fixed
    train = _load(path)["train"]
    after = train(distributed=True)
    assert after[0] == before[0] and after[1] != after[0]  # epoch 0 as before, a new order from epoch 1
    assert len(train(distributed=False)) == 3  # without the sampler the loop still runs


def test_dsl403_no_fix_through_a_loader_that_may_have_no_distributed_sampler(tmp_path):
    """`loader.sampler.set_epoch(epoch)` would fail when the loader was given `sampler=None`
    (its `.sampler` is then torch's RandomSampler): the finding stays, with no fix."""
    path = tmp_path / "train.py"
    shutil.copy(FIXTURES / "rules" / "DSL403" / "bad_inline_sampler_maybe_none.py", path)
    source = path.read_text(encoding="utf-8")
    (finding,) = [f for f in lint_json("--select", "DSL403", "train.py", cwd=tmp_path)]
    assert finding["code"] == "DSL403" and finding["fix"] is None
    _fix("--select", "DSL403", "train.py", cwd=tmp_path)
    assert path.read_text(encoding="utf-8") == source


def _safe_dsl102_fix(tmp_path: Path, name: str, source: str) -> str:
    """``source`` written to ``name``, DSL102's safe fixes applied by the CLI: the fixed text."""
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    result = run_cli("check", "--no-cache", "--fix", "--select", "DSL102", name, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    return path.read_text(encoding="utf-8")


def test_dsl102_hoisted_lambda_is_named_after_its_keyword_or_parameter(tmp_path):
    """A lambda handed to a dataset is named after what it is given as: the keyword
    (`target_transform=lambda ...`) or, for a parameter's default, `default_<parameter>`
    (`noise_fn=default_noise_fn`), not a generic `transform`."""
    source = textwrap.dedent(
        """\
        from torch.utils.data import DataLoader, Dataset


        class Noisy(Dataset):
            def __init__(self, items, noise_fn=lambda s: s[::-1]):
                self.items = items
                self.noise_fn = noise_fn

            def __len__(self):
                return len(self.items)

            def __getitem__(self, index):
                return self.noise_fn(self.items[index])


        class Labelled(Dataset):
            def __init__(self, labels, target_transform=None):
                self.labels = labels
                self.target_transform = target_transform

            def __len__(self):
                return len(self.labels)

            def __getitem__(self, index):
                return self.target_transform(self.labels[index])


        def loaders():
            noisy = DataLoader(Noisy(["ab", "cd"]), num_workers=2)
            labelled = DataLoader(Labelled([1, 2], target_transform=lambda y: y + 1), num_workers=2)
            return noisy, labelled
        """
    )
    fixed = _safe_dsl102_fix(tmp_path, "data.py", source)
    assert "def default_noise_fn(s):\n    return s[::-1]\n" in fixed
    assert "def __init__(self, items, noise_fn=default_noise_fn):" in fixed
    assert "def target_transform(y):\n    return y + 1\n" in fixed
    assert "Labelled([1, 2], target_transform=target_transform)" in fixed
    compile(fixed, "data.py", "exec")


def test_dsl102_hoisted_lambda_keeps_a_generic_name_where_the_slot_names_no_function(tmp_path):
    """`text=lambda text: ...` would give `def text(text)`: a keyword that names no function
    leaves the generic `transform`; an attribute that does names it (`self.preprocess_txt`)."""
    source = textwrap.dedent(
        """\
        from torch.utils.data import DataLoader, Dataset


        class Captions(Dataset):
            def __init__(self, texts, image=None, text=None):
                self.texts = texts
                self.text = text
                self.preprocess_txt = lambda t: t.lower()

            def __len__(self):
                return len(self.texts)

            def __getitem__(self, index):
                return self.preprocess_txt(self.text(self.texts[index]))


        def loader():
            return DataLoader(Captions(["A", "B"], text=lambda text: text.strip()), num_workers=2)
        """
    )
    fixed = _safe_dsl102_fix(tmp_path, "captions.py", source)
    assert "def preprocess_txt(t):\n    return t.lower()\n" in fixed
    assert "self.preprocess_txt = preprocess_txt" in fixed
    assert "def transform(text):\n    return text.strip()\n" in fixed
    assert 'Captions(["A", "B"], text=transform)' in fixed
    compile(fixed, "captions.py", "exec")
