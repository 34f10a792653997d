"""Run ``dslint check --fix --unsafe-fixes`` over a copy of real code and check the bars.

    python bench/fix_corpus.py [SOURCE ...] [--keep]      # --help for the options

SOURCE defaults to the library corpus (~/.cache/dslint-corpus/src, fetched by
../shared/corpus/fetch.sh) and the training repositories (../shared/training-repos/src)
when they are there. Each source is copied to a temporary folder; the original is never
touched. Every top-level folder of a source is linted as its own project. Checks:

1. every file that compiled before still compiles after the fix;
2. no file gains a pyflakes name problem (undefined name, unused import or variable,
   redefinition, ...): pyflakes before and after, per file, messages compared without
   their line numbers;
3. every file without a finding before is byte-identical after;
4. ``--diff`` printed exactly what ``--fix`` then wrote;
5. a second ``--fix --unsafe-fixes`` changes nothing (idempotent).

Needs pyflakes (``pip install pyflakes``; flake8 brings it). Prints the figures and
exits 1 when a check fails.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Dict, List, Tuple

HERE = Path(__file__).resolve().parent
SHARED = next((p / "shared" for p in HERE.parents if (p / "shared" / "training-repos").is_dir()), HERE / "shared")
DEFAULT_SOURCES = (Path("~/.cache/dslint-corpus/src").expanduser(), SHARED / "training-repos" / "src")


def snapshot(root: Path) -> Dict[str, bytes]:
    out = {}
    for path in root.rglob("*.py"):
        if path.is_file() and not path.is_symlink():
            try:
                out[str(path.relative_to(root))] = path.read_bytes()
            except OSError:
                continue
    return out


def compiles(data: bytes, name: str) -> bool:
    try:
        compile(data, name, "exec", dont_inherit=True)
        return True
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


def name_problems(data: bytes, name: str) -> Counter:
    """pyflakes' messages for one file, as (kind, arguments) without line numbers."""
    from pyflakes import checker

    try:
        tree = ast.parse(data, filename=name)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Counter()
    found = checker.Checker(tree, filename=name)
    return Counter((type(m).__name__, str(m.message_args)) for m in found.messages)


def dslint(root: Path, *args: str) -> Tuple[subprocess.CompletedProcess, float]:
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "dslint", "check", "--no-cache", "--exit-zero", *args],
        cwd=root, capture_output=True, text=True,
    )
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.stderr.write(result.stderr[-3000:])
        raise SystemExit(f"dslint failed with exit code {result.returncode}")
    return result, elapsed


def projects(root: Path) -> List[str]:
    return sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))


def written_diff(before: Dict[str, bytes], after: Dict[str, bytes]) -> str:
    out = []
    for name in sorted(after):
        if before.get(name) == after[name]:
            continue
        shown = name
        old = before[name].decode("utf-8", "replace").splitlines(keepends=True)
        new = after[name].decode("utf-8", "replace").splitlines(keepends=True)
        for line in difflib.unified_diff(old, new, fromfile=shown, tofile=shown):
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def python_blocks(diff: str) -> str:
    """The parts of a ``--diff`` about .py files (a notebook's diff is of its joined code)."""
    blocks = re.split(r"(?m)^(?=--- )", diff)
    return "".join(b for b in blocks if b.startswith("--- ") and b.split("\n", 1)[0].endswith(".py"))


def writable(root: Path) -> None:
    """The copy of a read-only source (``../shared`` is) must be writable, or every fix is
    rightly refused as a write to a read-only file."""
    for path in [root, *root.rglob("*")]:
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | 0o200)


def check_source(source: Path, keep: bool) -> Tuple[dict, List[Tuple[str, str]]]:
    work = Path(tempfile.mkdtemp(prefix="dslint-fix-corpus-"))
    root = work / "src"
    shutil.copytree(source, root, symlinks=True)
    writable(root)
    figures: dict = Counter()
    failures: List[Tuple[str, str]] = []
    fixable: Counter = Counter()
    try:
        before = snapshot(root)
        figures["python files"] = len(before)
        compiled = {name for name, data in before.items() if compiles(data, name)}
        figures["compiled before"] = len(compiled)
        for project in projects(root):
            report, t_check = dslint(root / project, "--output-format", "json", ".")
            findings = json.loads(report.stdout)
            figures["findings before"] += len(findings)
            figures["time check"] += t_check
            with_findings = {os.path.normpath(os.path.join(project, f["filename"])) for f in findings}
            figures["files with findings"] += len(with_findings)
            fixable.update((f["code"], f["fix"]["applicability"]) for f in findings if f["fix"])
            ahead = snapshot(root / project)
            diff, _ = dslint(root / project, "--diff", "--unsafe-fixes", ".")
            _, t_fix = dslint(root / project, "--fix", "--unsafe-fixes", ".")
            figures["time fix"] += t_fix
            after = snapshot(root / project)
            if python_blocks(diff.stdout) != written_diff(ahead, after).replace("\r\n", "\n"):  # stdout read as text
                failures.append(("--diff differs from what --fix wrote", project))
            remaining, _ = dslint(root / project, "--output-format", "json", ".")
            left = json.loads(remaining.stdout)
            figures["findings after"] += len(left)
            figures["still fixable after"] += sum(1 for f in left if f["fix"])
            _, t_again = dslint(root / project, "--fix", "--unsafe-fixes", ".")
            figures["time second fix"] += t_again
            again = snapshot(root / project)
            for name in sorted(after):
                full = os.path.join(project, name)
                if again.get(name) != after[name]:
                    failures.append(("not idempotent", full))
                if after[name] == ahead.get(name):
                    continue
                figures["files changed"] += 1
                if full not in with_findings:
                    failures.append(("changed without a finding", full))
                if full in compiled and not compiles(after[name], full):
                    failures.append(("stopped compiling", full))
                    continue
                new = name_problems(after[name], full) - name_problems(ahead.get(name, b""), full)
                for (kind, args), count in sorted(new.items()):
                    failures.append((f"new pyflakes {kind} {args} x{count}", full))
        for (code, applicability), count in sorted(fixable.items()):
            figures[f"fixable {code} ({applicability})"] = count
        return figures, failures
    finally:
        if keep:
            print(f"kept the fixed copy in {root}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python bench/fix_corpus.py",
        description="Run `dslint check --fix --unsafe-fixes` over a copy of real code and check "
                    "that nothing stops compiling, no pyflakes name problem appears, --diff is "
                    "what --fix writes and a second run changes nothing. Exit 1 when a check fails.",
    )
    parser.add_argument("sources", nargs="*", type=Path, metavar="SOURCE",
                        help="folders to copy and fix (default: the library corpus and the training "
                             "repositories, where they are)")
    parser.add_argument("--keep", action="store_true", help="keep the fixed copy and print where it is")
    options = parser.parse_args(argv)
    keep = options.keep
    missing = [s for s in options.sources if not s.is_dir()]
    if missing:
        parser.error(f"not a folder: {missing[0]}")
    sources = options.sources or [s for s in DEFAULT_SOURCES if s.is_dir()]
    if not sources:
        print("no corpus: run ../shared/corpus/fetch.sh first, or name a folder", file=sys.stderr)
        return 2
    import importlib.util

    if importlib.util.find_spec("pyflakes") is None:
        print("the bench needs pyflakes: pip install pyflakes", file=sys.stderr)
        return 2
    failed = False
    for source in sources:
        figures, failures = check_source(source, keep)
        print(f"== {source}")
        for key, value in figures.items():
            print(f"{key:<34} {value:.1f}s" if key.startswith("time") else f"{key:<34} {value}")
        checks = {
            "compiled before -> compiles after": "stopped compiling",
            "no new pyflakes name problem": "new pyflakes",
            "files without findings unchanged": "changed without a finding",
            "--diff is what --fix wrote": "--diff differs",
            "second run changes nothing": "not idempotent",
        }
        for label, prefix in checks.items():
            bad = [f for f in failures if f[0].startswith(prefix)]
            print(f"CHECK {label:<34} {'ok' if not bad else f'FAILED {len(bad)}'}")
        for reason, name in failures[:40]:
            print(f"  {reason}: {name}")
        failed |= bool(failures)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
