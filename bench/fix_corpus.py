"""Run ``dslint check --fix --unsafe-fixes`` over a copy of the real corpus and check the bars.

    python bench/fix_corpus.py [CORPUS_SRC] [--keep]

CORPUS_SRC defaults to ~/.cache/dslint-corpus/src (fetched by ../shared/corpus/fetch.sh).
The corpus is copied to a temporary folder; the original is never touched. Checks:

1. every file that compiled before still compiles after the fix;
2. every file without a finding before is byte-identical after;
3. a second ``--fix --unsafe-fixes`` run changes nothing (idempotent).

Prints the figures and exits 1 when a check fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Dict, List


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


def dslint(root: Path, *args: str):
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "dslint", "check", "--no-cache", "--exit-zero", "--output-format", "json", *args, "."],
        cwd=root, capture_output=True, text=True,
    )
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.stderr.write(result.stderr[-3000:])
        raise SystemExit(f"dslint failed with exit code {result.returncode}")
    return json.loads(result.stdout), elapsed, result.stderr


def main(argv: List[str]) -> int:
    keep = "--keep" in argv
    argv = [a for a in argv if a != "--keep"]
    source = Path(argv[0] if argv else os.path.expanduser("~/.cache/dslint-corpus/src"))
    if not source.is_dir():
        print(f"no corpus at {source}: run ../shared/corpus/fetch.sh first", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="dslint-fix-corpus-"))
    root = work / "src"
    shutil.copytree(source, root, symlinks=True)
    try:
        before = snapshot(root)
        parsed_before = {name for name, data in before.items() if compiles(data, name)}
        findings, t_lint, _ = dslint(root)
        with_findings = {os.path.normpath(f["filename"]) for f in findings}
        fixable = Counter((f["code"], f["fix"]["applicability"]) for f in findings if f["fix"])

        _, t_fix, _ = dslint(root, "--fix", "--unsafe-fixes")
        after = snapshot(root)
        remaining, _, _ = dslint(root)
        changed = sorted(name for name in before if after.get(name) != before[name])
        broken = sorted(name for name in parsed_before if not compiles(after.get(name, b""), name))
        touched_clean = sorted(name for name in changed if os.path.normpath(name) not in with_findings)

        _, t_fix2, _ = dslint(root, "--fix", "--unsafe-fixes")
        again = snapshot(root)
        not_idempotent = sorted(name for name in after if again.get(name) != after[name])

        fixed_total = sum(fixable.values())
        print(f"corpus                      {source}")
        print(f"python files                {len(before)}")
        print(f"compiled before             {len(parsed_before)}")
        print(f"findings before             {len(findings)} in {len(with_findings)} files")
        for (code, applicability), count in sorted(fixable.items()):
            print(f"  fixable {code} ({applicability}){'':<6}{count}")
        print(f"fixable findings            {fixed_total}")
        print(f"findings after --fix        {len(remaining)} ({sum(1 for f in remaining if f['fix'])} still fixable)")
        print(f"files changed by --fix      {len(changed)}")
        print(f"time: check {t_lint:.1f}s, --fix {t_fix:.1f}s, second --fix {t_fix2:.1f}s")
        print(f"CHECK compiled before -> compiles after:   {'ok' if not broken else f'FAILED {len(broken)}'}")
        print(f"CHECK files without findings unchanged:    {'ok' if not touched_clean else f'FAILED {len(touched_clean)}'}")
        print(f"CHECK second run changes nothing:          {'ok' if not not_idempotent else f'FAILED {len(not_idempotent)}'}")
        for label, names in (("broken", broken), ("touched without findings", touched_clean),
                             ("not idempotent", not_idempotent)):
            for name in names[:20]:
                print(f"  {label}: {name}")
        return 1 if broken or touched_clean or not_idempotent else 0
    finally:
        if keep:
            print(f"kept the fixed copy in {root}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
